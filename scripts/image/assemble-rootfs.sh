# shellcheck shell=bash
# The rootfs assembly both registry-free image builds share (reference-server/image/build.sh and
# conformance/image/build.sh): a minimal root filesystem made from the HOST's node binary and the
# shared libraries it and the native modules need (found with ldd), imported with `docker import`.
# Keeping it in one place keeps the two images alike (same /etc files, same library layout, same
# import and reuse rules).
#
# Sourced, not run: the caller sets `set -Eeuo pipefail` and defines `die MESSAGE` (exits) and
# `log MESSAGE` (prefixed with its own name). Shipped in the npm package (package.json `files`), as
# the reference server's build.sh also runs from an installed package.

ROOTFS_HASH_LABEL="rflps.source-hash"

# rootfs_preflight NODE_BIN: the docker CLI and daemon answer, ldd exists, and NODE_BIN resolves
# to an executable; sets NODE_REAL to the resolved node binary.
rootfs_preflight() {
  command -v docker >/dev/null || die "docker CLI not found (run scripts/ci/ensure-docker.sh first)"
  docker info >/dev/null 2>&1 || die "cannot reach the Docker daemon (run scripts/ci/ensure-docker.sh first)"
  command -v ldd >/dev/null || die "ldd not found"
  NODE_REAL="$(readlink -f "$1")" || die "cannot resolve $1"
  [[ -x "$NODE_REAL" ]] || die "node binary '$1' not found or not executable"
}

# rootfs_library_pairs ELF...: "resolved-file<TAB>path" for every shared library (and the dynamic
# loader) the given binaries and native addons load, at the path ldd reports, with the content of
# the file it resolves to. Dies when a library cannot be resolved.
rootfs_library_pairs() {
  local libs lib real
  libs="$(for f in "$@"; do ldd "$f"; done | awk '
    /=> not found/ { print "MISSING " $1; next }
    $2 == "=>" && $3 ~ /^\// { print $3; next }
    $1 ~ /^\// { print $1 }' | sort -u)"
  if grep -q '^MISSING' <<<"$libs"; then die "unresolved shared libraries: $(grep '^MISSING' <<<"$libs" | tr '\n' ' ')"; fi
  [[ -n "$libs" ]] || die "ldd found no libraries for $* (statically linked? unexpected)"
  while read -r lib; do
    real="$(readlink -f "$lib")" || die "cannot resolve $lib"
    printf '%s\t%s\n' "$real" "$lib"
  done <<<"$libs"
}

# rootfs_copy ROOTFS < pairs: copies each "source<TAB>destination" line's source to ROOTFS/destination
# (symlinks followed, mode kept).
rootfs_copy() {
  local src dst
  while IFS=$'\t' read -r src dst; do
    mkdir -p "$1$(dirname "$dst")"
    cp -L --preserve=mode "$src" "$1$dst" || die "copy $src -> $dst failed"
  done
}

# rootfs_etc ROOTFS ROOT_HOME: the users (root with home ROOT_HOME, node 1000:1000, nobody), their
# groups, name lookup through files then DNS, and the empty hosts and resolv.conf docker bind-mounts.
rootfs_etc() {
  local r="$1"
  mkdir -p "$r/etc" "$r$2"
  cat >"$r/etc/passwd" <<PASSWD
root:x:0:0:root:$2:/usr/sbin/nologin
node:x:1000:1000:node:/tmp:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
PASSWD
  cat >"$r/etc/group" <<'GROUP'
root:x:0:
node:x:1000:
nogroup:x:65534:
GROUP
  printf 'hosts: files dns\n' >"$r/etc/nsswitch.conf"
  touch "$r/etc/hosts" "$r/etc/resolv.conf"
}

# rootfs_reuse_image IMAGE HASH: true when IMAGE already carries HASH in its source-hash label, or
# when another image does (then it is tagged IMAGE). FORCE=1 never reuses.
rootfs_reuse_image() {
  local current other
  [[ "${FORCE:-0}" != 1 ]] || return 1
  current="$(docker image inspect --format "{{ index .Config.Labels \"$ROOTFS_HASH_LABEL\" }}" "$1" 2>/dev/null || true)"
  if [[ "$current" == "$2" ]]; then
    log "image $1 is up to date (same $ROOTFS_HASH_LABEL); skipping the import"
    return 0
  fi
  other="$(docker images -q --filter "label=$ROOTFS_HASH_LABEL=$2" | head -n1)"
  if [[ -n "$other" ]]; then
    docker tag "$other" "$1" || die "docker tag $other $1 failed"
    log "image with the same $ROOTFS_HASH_LABEL exists ($other); tagged it $1, skipping the import"
    return 0
  fi
  return 1
}

# rootfs_import ROOTFS IMAGE HASH TITLE MESSAGE CHANGE...: imports ROOTFS (owned by root, numeric
# IDs) as IMAGE with the Dockerfile CHANGEs, the source-hash and title labels and the commit
# MESSAGE; checks the label arrived; removes the image IMAGE named before, now untagged.
rootfs_import() {
  local r="$1" image="$2" hash="$3" title="$4" message="$5" old_id new_id got c
  shift 5
  local change_args=()
  for c in "$@" "LABEL $ROOTFS_HASH_LABEL=$hash" "LABEL org.opencontainers.image.title=$title"; do
    change_args+=(--change "$c")
  done
  old_id="$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
  log "importing $(du -sh "$r" | cut -f1) rootfs as $image"
  tar -C "$r" --numeric-owner --owner=0 --group=0 -cf - . \
    | docker import "${change_args[@]}" --message "$message" - "$image" >/dev/null \
    || die "docker import failed"
  got="$(docker image inspect --format "{{ index .Config.Labels \"$ROOTFS_HASH_LABEL\" }}" "$image")" \
    || die "image $image not found after import"
  [[ "$got" == "$hash" ]] || die "image $image has $ROOTFS_HASH_LABEL='$got', expected $hash"
  new_id="$(docker image inspect --format '{{.Id}}' "$image")"
  if [[ -n "$old_id" && "$old_id" != "$new_id" ]]; then
    # the previous build is now untagged: drop it (ignored if a container still uses it or it has other tags)
    docker rmi "$old_id" >/dev/null 2>&1 && log "removed previous image ${old_id:7:12}" || true
  fi
  log "built $image ($(docker image inspect --format '{{.Size}}' "$image" | numfmt --to=iec), $ROOTFS_HASH_LABEL=$hash)"
}
