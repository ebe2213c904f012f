#!/usr/bin/env bash
# Writes the local development Secret's values (k8s/overlays/local/secrets.env, gitignored), which the
# overlay's secretGenerator reads: a random admin token and session secret per checkout, never a value
# published in the repository (the services refuse the ones the overlay used to ship). Run by
# `skaffold dev -p dev` before it renders (skaffold.yaml), or by hand before `kubectl apply -k k8s/overlays/local`.
# An existing file is kept (a new session secret signs every user out); --rotate writes a new one.
# The source API keys come from EIA_API_KEY, NASS_API_KEY and CFTC_APP_TOKEN when set (empty otherwise).
#   bash k8s/overlays/local/generate-secrets.sh [--rotate] [file]
set -euo pipefail

rotate=false
if [[ "${1:-}" == "--rotate" ]]; then
  rotate=true
  shift
fi
file="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/secrets.env}"

if [[ -s "$file" && "$rotate" == false ]]; then
  exit 0
fi

random_hex() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }

umask 077
tmp="$(mktemp "$file.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
{
  echo "admin-token=$(random_hex)"
  echo "dashboard-session-secret=$(random_hex)"
  echo "eia-api-key=${EIA_API_KEY:-}"
  echo "nass-api-key=${NASS_API_KEY:-}"
  echo "cftc-app-token=${CFTC_APP_TOKEN:-}"
} > "$tmp"
mv "$tmp" "$file"
trap - EXIT
echo "wrote $file (a random admin token and session secret)"
