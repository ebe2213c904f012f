#!/usr/bin/env bash
# Runs a command with the project's pinned toolchain first on PATH (see scripts/toolchain.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
exec "$@"
