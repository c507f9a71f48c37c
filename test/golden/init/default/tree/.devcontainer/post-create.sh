#!/usr/bin/env bash
# Run once when the dev container is created (devcontainer.json's postCreateCommand): installs what
# the Makefile calls besides Node.js and npm (kubectl for install/deploy and kustomize, kind for
# test-e2e), the project's npm dependencies, and the control plane `make test` starts.
# Tools already on PATH are kept. INSTALL_DIR (default /usr/local/bin) is where new ones go.
set -euo pipefail

INSTALL_DIR="${INSTALL_DIR:-/usr/local/bin}"
SUDO=""
if [ "$(id -u)" -ne 0 ] && [ ! -w "${INSTALL_DIR}" ]; then SUDO="sudo"; fi

case "$(uname -m)" in
  x86_64) ARCH=amd64 ;;
  aarch64 | arm64) ARCH=arm64 ;;
  *) echo "post-create: unsupported architecture $(uname -m)" >&2; exit 1 ;;
esac

# install_tool <name> <url>: downloads an executable into INSTALL_DIR unless <name> is on PATH already.
install_tool() {
  if command -v "$1" >/dev/null 2>&1; then
    echo "post-create: $1 is installed ($(command -v "$1"))"
    return
  fi
  echo "post-create: installing $1"
  curl -fsSLo "/tmp/$1" "$2"
  chmod +x "/tmp/$1"
  ${SUDO} mv "/tmp/$1" "${INSTALL_DIR}/$1"
}

install_tool kubectl "https://dl.k8s.io/release/$(curl -fsSL https://dl.k8s.io/release/stable.txt)/bin/linux/${ARCH}/kubectl"
install_tool kind "https://kind.sigs.k8s.io/dl/latest/kind-linux-${ARCH}"

echo "post-create: installing the npm dependencies"
npm ci --no-audit --no-fund

# kubeforge's own shell completion, when its CLI offers it.
if npx --no-install kubeforge completion bash >/tmp/kubeforge-completion.bash 2>/dev/null; then
  mkdir -p "${HOME}/.local/share/bash-completion/completions"
  mv /tmp/kubeforge-completion.bash "${HOME}/.local/share/bash-completion/completions/kubeforge"
fi

echo "post-create: downloading etcd and kube-apiserver for make test"
make setup-envtest

kubectl version --client
kind version
echo "post-create: done (node $(node --version), npm $(npm --version))"
