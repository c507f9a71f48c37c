#!/usr/bin/env bash
# Provision a real etcd + kube-apiserver for kubeforge/testing, from Debian packages only.
#
#   etcd            Debian's etcd-server (3.4)
#   kube-apiserver  v1.20.2, built from Debian's "kubernetes" source package with Debian's Go
#
# Idempotent and cached: the binaries land in $KUBEFORGE_ENVTEST_DIR/bin (default
# ${XDG_CACHE_HOME:-~/.cache}/kubeforge/envtest/bin); a second run only checks them.
# The last line printed is that folder: use it as KUBEBUILDER_ASSETS (envtest's convention).
# Needs root (or sudo) for apt the first time. First run: about 7 minutes on 2 cores.
set -euo pipefail

ROOT=${KUBEFORGE_ENVTEST_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kubeforge/envtest}
BIN=$ROOT/bin
WORK=$ROOT/work
# Bump when the build recipe changes: a cached kube-apiserver with another stamp is rebuilt.
STAMP="v1.20.2+kubeforge.2 (reflect2 1.0.2; go-openapi zero-value fix)"
mkdir -p "$BIN"

log() { echo "setup-envtest: $*" >&2; }

SUDO=
if [[ $(id -u) != 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
fi
apt_install() {
  if [[ $(id -u) != 0 && -z $SUDO ]]; then
    log "need root (or sudo) to apt-get install: $*"; exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  if [[ -z ${APT_UPDATED:-} ]]; then $SUDO apt-get update -q >&2; APT_UPDATED=1; fi
  $SUDO apt-get install -y -q "$@" >&2
}

# --- etcd -------------------------------------------------------------------------
if [[ ! -x $BIN/etcd ]]; then
  if ! command -v etcd >/dev/null 2>&1; then
    log "installing etcd-server from Debian"
    apt_install etcd-server
  fi
  ln -sf "$(command -v etcd)" "$BIN/etcd"
fi
# Debian's etcd-server enables a system service on install; tests start their own.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet etcd 2>/dev/null; then
  $SUDO systemctl stop etcd >&2 || true
fi

# --- kube-apiserver ------------------------------------------------------------------
if [[ ! -x $BIN/kube-apiserver || "$(cat "$BIN/.build-stamp" 2>/dev/null)" != "$STAMP" ]]; then
  log "building kube-apiserver v1.20.2 from Debian's kubernetes source package (several minutes)"
  if ! grep -rqs '^Types: deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    # The source packages come from the archives this machine's apt already uses: their deb
    # entries, as deb-src (no mirror is named here).
    for f in /etc/apt/sources.list.d/*.sources; do
      if [[ -f $f && $f != */kubeforge-debian-src.sources ]]; then sed 's/^Types: deb$/Types: deb-src/' "$f"; echo; fi
    done | $SUDO tee /etc/apt/sources.list.d/kubeforge-debian-src.sources >/dev/null
    if [[ -f /etc/apt/sources.list ]] && grep -q '^deb ' /etc/apt/sources.list; then
      grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | $SUDO tee /etc/apt/sources.list.d/kubeforge-debian-src.list >/dev/null
    fi
    APT_UPDATED=  # the new source lists must be fetched before `apt-get source`
  fi
  # rsync and jq are used by Kubernetes' hack/ scripts; reflect2 1.0.2 replaces the vendored
  # 1.0.1, which crashes under Go >= 1.18 on the first custom resource.
  apt_install golang-go rsync jq make dpkg-dev golang-github-modern-go-reflect2-dev
  mkdir -p "$WORK"
  cd "$WORK"
  if [[ ! -d src ]]; then
    apt-get source --download-only kubernetes >&2
    dpkg-source -x kubernetes_*.dsc src >&2
  fi
  vendored=src/vendor/github.com/modern-go/reflect2
  if [[ ! -f $vendored/go_above_118.go ]]; then
    rm -rf "$vendored"
    mkdir -p "$vendored"
    cp /usr/share/gocode/src/github.com/modern-go/reflect2/*.go \
       /usr/share/gocode/src/github.com/modern-go/reflect2/*.s "$vendored/"
  fi
  # go-openapi's type validator decides "is this null?" by comparing two reflect.Value structs;
  # from Go 1.19 on, both point at the runtime's shared zero buffer for "", 0 and false, so a
  # custom resource with an empty string, a zero or false in a typed field is rejected as null.
  # On the Go these sources were written for the comparison only ever held for nil: say so.
  for f in src/vendor/k8s.io/kube-openapi/pkg/validation/validate/type.go src/vendor/github.com/go-openapi/validate/type.go; do
    sed -i 's/if data == nil || reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data)) {/if data == nil {/' "$f"
    grep -q '^	if data == nil {$' "$f" || { log "could not apply the zero-value fix to $f"; exit 1; }
  done
  (cd src && env HOME="$WORK/home" CGO_ENABLED=0 GOFLAGS= GOPROXY=off make WHAT=cmd/kube-apiserver >&2)
  install -m 0755 src/_output/local/bin/linux/amd64/kube-apiserver "$BIN/kube-apiserver.tmp"
  mv "$BIN/kube-apiserver.tmp" "$BIN/kube-apiserver"
  echo "$STAMP" > "$BIN/.build-stamp"
  # The source tree and Go cache are only needed to rebuild; keep the binary, drop the rest.
  if [[ -z ${KUBEFORGE_ENVTEST_KEEP_WORK:-} ]]; then rm -rf "$WORK"; fi
fi

"$BIN/kube-apiserver" --version >&2
# No pipe into head here: under pipefail, etcd can die of SIGPIPE once head has exited, and the
# script would fail (exit 141) before printing the folder. Capture the whole output instead.
etcd_version=$("$BIN/etcd" --version 2>&1) || { log "etcd --version failed: $etcd_version"; exit 1; }
echo "${etcd_version%%$'\n'*}" >&2
echo "$BIN"
