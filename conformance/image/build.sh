#!/usr/bin/env bash
# Registry-free build of the suite's container image: the packed package (npm pack), installed
# the way a vendor installs it (from the npm cache: pack-install.ts), plus the HOST's node binary
# and the shared libraries it and the installed native modules need (found with ldd), imported
# with `docker import` (the rootfs assembly reference-server/image/build.sh uses too:
# scripts/image/assemble-rootfs.sh).
#
#   docker run --rm --network host -v "$PWD/reports:/reports" rflps-conformance:local \
#     run --base-url http://127.0.0.1:8080
# writes report.html, results.json, junit.xml and badge.svg into ./reports.
#
# Usage:   bash conformance/image/build.sh
# Env:     IMAGE=rflps-conformance:local   image name:tag to produce
#          NODE_BIN=/usr/bin/node          node binary to ship (resolved through symlinks)
#          FORCE=1                         rebuild even when an image with the same content hash exists
set -Eeuo pipefail

die() { echo "conformance/image/build.sh: ERROR: $*" >&2; exit 1; }
log() { echo "conformance/image/build.sh: $*"; }
trap 'rc=$?; echo "conformance/image/build.sh: ERROR: failed at line $LINENO: $BASH_COMMAND (exit $rc)" >&2; exit $rc' ERR

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
cd "$ROOT"
# shellcheck source=../../scripts/image/assemble-rootfs.sh
source "$ROOT/scripts/image/assemble-rootfs.sh"

IMAGE="${IMAGE:-rflps-conformance:local}"
NODE_BIN="${NODE_BIN:-/usr/bin/node}"
PKG="$(node -p 'require("./package.json").name')"
BUILD_SCRIPT_VERSION=1   # bump when the rootfs layout below changes

rootfs_preflight "$NODE_BIN"
[[ -x node_modules/.bin/tsx ]] || die "node_modules/.bin/tsx missing: run 'npm ci' first"

STAGE="$(mktemp -d /tmp/rflps-suite-rootfs.XXXXXX)"
trap 'rm -rf "$STAGE"' EXIT
R="$STAGE/rootfs"
mkdir -p "$R"/{tmp,etc,dev,proc,sys,reports,work,usr/local/bin}
chmod 1777 "$R/tmp" "$R/reports" "$R/work"

# ---- 1. the package, installed as a vendor installs it ---------------------------------------
log "packing and installing $PKG into the image's /app"
node_modules/.bin/tsx conformance/image/pack-install.ts "$R/app" >/dev/null \
  || die "pack-install failed (is the npm cache complete? run 'npm ci' first)"
ENTRY="/app/node_modules/$PKG/conformance/bin/conformance.mjs"
[[ -f "$R$ENTRY" ]] || die "the installed package has no $ENTRY"

# ---- 2. node and the shared libraries of node and of every native module installed -----------
mapfile -t addons < <(find "$R/app/node_modules" -name '*.node' -type f)
SHIP="$STAGE/node-and-libraries.tsv"   # "source<TAB>destination" lines, kept outside the rootfs
{
  printf '%s\t%s\n' "$NODE_REAL" /usr/local/bin/node
  rootfs_library_pairs "$NODE_REAL" "${addons[@]}"
} >"$SHIP"
rootfs_copy "$R" <"$SHIP"
rootfs_etc "$R" /tmp
# the vendor project's package.json and the locks npm wrote record where the tarball came from (a
# temp path, new on every build): not part of the content, and kept they made every build's hash new
rm -f "$R/app/package.json" "$R/app/package-lock.json" "$R/app/node_modules/.package-lock.json"

# The reports go to /reports (mount a host directory there); the run needs no repository.
# Root by default so that a host directory docker creates for the mount is writable; pass
# --user "$(id -u):$(id -g)" to own the reports (the directories are world-writable).
CHANGES=(
  "WORKDIR /work"
  "ENV HOME=/tmp"
  "ENV CONFORMANCE_REPORT_DIR=/reports"
  "ENV NODE_ENV=production"
  "ENTRYPOINT [\"/usr/local/bin/node\",\"$ENTRY\"]"
  'CMD ["--help"]'
)

# ---- 3. content hash; skip the import when unchanged -----------------------------------------
HASH="$( {
  echo "v$BUILD_SCRIPT_VERSION"
  printf '%s\n' "${CHANGES[@]}"
  (cd "$R" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
  (cd "$R" && find . -type l -printf '%p -> %l\n' | sort)
} | sha256sum | cut -c1-64)"
log "content hash $HASH"
rootfs_reuse_image "$IMAGE" "$HASH" && exit 0

# ---- 4. import ------------------------------------------------------------------------------
rootfs_import "$R" "$IMAGE" "$HASH" rflps-conformance "rflps conformance suite ($HASH)" "${CHANGES[@]}"
