# Sourced by the other scripts: where the pinned toolchain lives and how to put it on PATH.
# Everything installed for the project goes under CDS_CACHE (outside the clone, so a fresh
# clone on the same machine reuses it); nothing is installed into the system except apt packages.
CDS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CDS_NODE_VERSION="$(tr -d ' \n' < "$CDS_ROOT/.nvmrc")"
CDS_CACHE="${CDS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/commodity-data-service}"
case "$(uname -m)" in
  x86_64 | amd64) CDS_NODE_ARCH=x64 ;;
  aarch64 | arm64) CDS_NODE_ARCH=arm64 ;;
  *) CDS_NODE_ARCH="$(uname -m)" ;;
esac
CDS_NODE_DIR="$CDS_CACHE/node-v$CDS_NODE_VERSION-linux-$CDS_NODE_ARCH"
CDS_BIN_DIR="$CDS_CACHE/bin"
export CDS_ROOT CDS_NODE_VERSION CDS_CACHE CDS_NODE_DIR CDS_BIN_DIR
export PATH="$CDS_NODE_DIR/bin:$CDS_BIN_DIR:$CDS_ROOT/node_modules/.bin:$PATH"
