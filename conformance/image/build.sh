#!/usr/bin/env bash
# Registry-free build of the suite's container image: the packed package (npm pack), installed
# the way a vendor installs it (from the npm cache: pack-install.ts), plus the HOST's node binary
# and the shared libraries it and the installed native modules need (found with ldd), imported
# with `docker import` (the same recipe as reference-server/image/build.sh).
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

IMAGE="${IMAGE:-rflps-conformance:local}"
NODE_BIN="${NODE_BIN:-/usr/bin/node}"
HASH_LABEL="rflps.source-hash"
PKG="$(node -p 'require("./package.json").name')"
BUILD_SCRIPT_VERSION=1   # bump when the rootfs layout below changes

command -v docker >/dev/null || die "docker CLI not found (run scripts/ci/ensure-docker.sh first)"
docker info >/dev/null 2>&1 || die "cannot reach the Docker daemon (run scripts/ci/ensure-docker.sh first)"
command -v ldd >/dev/null || die "ldd not found"
NODE_REAL="$(readlink -f "$NODE_BIN")" || die "cannot resolve $NODE_BIN"
[[ -x "$NODE_REAL" ]] || die "node binary '$NODE_BIN' not found or not executable"
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
cp -L --preserve=mode "$NODE_REAL" "$R/usr/local/bin/node"
libs="$( { ldd "$NODE_REAL"; find "$R/app/node_modules" -name '*.node' -type f -exec ldd {} \; ; } | awk '
  /=> not found/ { print "MISSING " $1; next }
  $2 == "=>" && $3 ~ /^\// { print $3; next }
  $1 ~ /^\// { print $1 }' | sort -u)"
if grep -q '^MISSING' <<<"$libs"; then die "unresolved shared libraries: $(grep '^MISSING' <<<"$libs" | tr '\n' ' ')"; fi
while read -r lib; do
  mkdir -p "$R$(dirname "$lib")"
  cp -L --preserve=mode "$(readlink -f "$lib")" "$R$lib"
done <<<"$libs"
cat >"$R/etc/passwd" <<'EOF'
root:x:0:0:root:/tmp:/usr/sbin/nologin
node:x:1000:1000:node:/tmp:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$R/etc/group" <<'EOF'
root:x:0:
node:x:1000:
nogroup:x:65534:
EOF
printf 'hosts: files dns\n' >"$R/etc/nsswitch.conf"
touch "$R/etc/hosts" "$R/etc/resolv.conf"   # docker bind-mounts these
# the lock npm wrote records where the tarball came from (a temp path): not part of the content
rm -f "$R/app/package-lock.json" "$R/app/node_modules/.package-lock.json"

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
if [[ "${FORCE:-0}" != 1 ]]; then
  current="$(docker image inspect --format "{{ index .Config.Labels \"$HASH_LABEL\" }}" "$IMAGE" 2>/dev/null || true)"
  if [[ "$current" == "$HASH" ]]; then
    log "image $IMAGE is up to date (same $HASH_LABEL); skipping the import"
    exit 0
  fi
fi

# ---- 4. import ------------------------------------------------------------------------------
change_args=()
for c in "${CHANGES[@]}" "LABEL $HASH_LABEL=$HASH" "LABEL org.opencontainers.image.title=rflps-conformance"; do
  change_args+=(--change "$c")
done
old_id="$(docker image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)"
log "importing $(du -sh "$R" | cut -f1) rootfs as $IMAGE"
tar -C "$R" --numeric-owner --owner=0 --group=0 -cf - . \
  | docker import "${change_args[@]}" --message "rflps conformance suite ($HASH)" - "$IMAGE" >/dev/null \
  || die "docker import failed"
new_id="$(docker image inspect --format '{{.Id}}' "$IMAGE")" || die "image $IMAGE not found after import"
if [[ -n "$old_id" && "$old_id" != "$new_id" ]]; then
  docker rmi "$old_id" >/dev/null 2>&1 && log "removed previous image ${old_id:7:12}" || true
fi
log "built $IMAGE ($(docker image inspect --format '{{.Size}}' "$IMAGE" | numfmt --to=iec))"
