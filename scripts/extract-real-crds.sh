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

# project | owner+name | how the files were chosen | path pattern (grep -E on the tree listing, last: it may hold |)
SOURCES=(
  "cert-manager|cert-manager+cert-manager|every CRD the project ships|^deploy/crds/[^/]+\.yaml$"
  "cluster-api|kubernetes-sigs+cluster-api|the CRDs of core, the kubeadm providers, clusterctl and the docker test provider; the CRDs of unit tests are left out|^(core|bootstrap/kubeadm|controlplane/kubeadm|cmd/clusterctl|test/infrastructure/docker)/config/crd/bases/[^/]+\.yaml$"
  "prometheus-operator|prometheus-operator+prometheus-operator|seven of ten: prometheusagents, scrapeconfigs and thanosrulers repeat the pod-template schemas of prometheuses and alertmanagers (size)|^example/prometheus-operator-crd/monitoring\.coreos\.com_(alertmanagerconfigs|alertmanagers|podmonitors|probes|prometheuses|prometheusrules|servicemonitors)\.yaml$"
  "gateway-api|kubernetes-sigs+gateway-api|the experimental channel (a superset of the standard one); its ValidatingAdmissionPolicy file is not a CRD|^config/crd/experimental/[^/]+\.yaml$"
  "keda|kedacore+keda|every CRD the project ships|^config/crd/bases/[^/]+\.yaml$"
  "external-secrets|external-secrets+external-secrets|every CRD under config/crds/bases (deploy/crds/bundle.yaml holds the same 25 CRDs in one file)|^config/crds/bases/[^/]+\.yaml$"
  "crossplane|crossplane+crossplane|every CRD the project ships; the e2e test CRDs are left out|^cluster/crds/[^/]+\.yaml$"
)

for s in "${SOURCES[@]}"; do
  IFS='|' read -r project repo selection pattern <<<"$s"
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
    echo "selection: $selection"
    echo "licence: Apache-2.0 (the project's generated CRD files, copied verbatim, used as test data)"
    echo "paths:"
    for p in "${paths[@]}"; do echo "  - $p"; done
  } >"$OUT/$project/PROVENANCE"
done
