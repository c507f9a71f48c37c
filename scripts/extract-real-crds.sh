#!/usr/bin/env bash
# Copies the CRDs that a few well-known controller-gen projects commit into
# test/fixtures/real-crds/<project>/, verbatim, and writes PROVENANCE there.
# Usage: scripts/extract-real-crds.sh <dir holding owner+name/repo bare git dirs>
# (each argument directory is a bare clone; the commit used is its HEAD).
# Only files whose first document is an apiextensions.k8s.io/v1 CustomResourceDefinition are kept.
set -euo pipefail
MIRRORS=${1:?usage: $0 <mirrors dir>}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/test/fixtures/real-crds"
rm -rf "$OUT"
mkdir -p "$OUT"

# project | owner+name | path globs (grep -E on the tree listing)
SOURCES=(
  "cert-manager|cert-manager+cert-manager|^deploy/crds/[^/]+\.yaml$"
  "cluster-api|kubernetes-sigs+cluster-api|^(core|bootstrap/kubeadm|controlplane/kubeadm|cmd/clusterctl|test/infrastructure/docker)/config/crd/bases/[^/]+\.yaml$"
  "prometheus-operator|prometheus-operator+prometheus-operator|^example/prometheus-operator-crd/monitoring\.coreos\.com_(alertmanagerconfigs|alertmanagers|podmonitors|probes|prometheuses|prometheusrules|servicemonitors)\.yaml$"
  "gateway-api|kubernetes-sigs+gateway-api|^config/crd/experimental/[^/]+\.yaml$"
  "keda|kedacore+keda|^config/crd/bases/[^/]+\.yaml$"
  "external-secrets|external-secrets+external-secrets|^config/crds/bases/[^/]+\.yaml$"
  "crossplane|crossplane+crossplane|^cluster/crds/[^/]+\.yaml$"
)

for s in "${SOURCES[@]}"; do
  IFS='|' read -r project repo pattern <<<"$s"
  git_dir="$MIRRORS/$repo/repo"
  commit=$(git --git-dir="$git_dir" rev-parse HEAD)
  mkdir -p "$OUT/$project"
  paths=()
  while IFS= read -r p; do
    text=$(git --git-dir="$git_dir" show "$commit:$p")
    if grep -q '^kind: CustomResourceDefinition$' <<<"$text" && grep -q '^apiVersion: apiextensions.k8s.io/v1$' <<<"$text"; then
      git --git-dir="$git_dir" show "$commit:$p" >"$OUT/$project/$(basename "$p")"
      paths+=("$p")
    fi
  done < <(git --git-dir="$git_dir" ls-tree -r --name-only "$commit" | grep -E "$pattern" | LC_ALL=C sort)
  {
    echo "repository: https://github.com/${repo/+//}"
    echo "commit: $commit"
    echo "licence: Apache-2.0 (the project's generated CRD files, copied verbatim, used as test data)"
    echo "paths:"
    for p in "${paths[@]}"; do echo "  - $p"; done
  } >"$OUT/$project/PROVENANCE"
done
