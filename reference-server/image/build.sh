#!/usr/bin/env bash
# Registry-free build of the reference-server image (the equivalent of reference-server/Dockerfile,
# used by CI where no container registry is reachable).
#
# It makes a minimal root filesystem from the HOST's node binary and the shared libraries it needs
# (found with ldd), the esbuild bundle of the server and its native runtime modules
# (better-sqlite3 + bindings + file-uri-to-path), then `docker import`s it.
#
# Usage:   bash reference-server/image/build.sh
# Env:     IMAGE=rflps-reference:local   image name:tag to produce
#          ENTRY=reference-server/src/main.ts   server entry to bundle (override for testing)
#          NODE_BIN=/usr/bin/node        node binary to ship (resolved through symlinks)
#          FORCE=1                       rebuild even when an image with the same source hash exists
# The image is labelled rflps.source-hash=<sha256 of every file shipped + the image config>;
# when the image already carries that hash, the import is skipped.
set -Eeuo pipefail

die() { echo "build.sh: ERROR: $*" >&2; exit 1; }
log() { echo "build.sh: $*"; }
trap 'rc=$?; echo "build.sh: ERROR: failed at line $LINENO: $BASH_COMMAND (exit $rc)" >&2; exit $rc' ERR

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
cd "$ROOT"

IMAGE="${IMAGE:-rflps-reference:local}"
DEFAULT_ENTRY="reference-server/src/main.ts"
ENTRY="${ENTRY:-$DEFAULT_ENTRY}"
NODE_BIN="${NODE_BIN:-/usr/bin/node}"
OUT="dist/reference-server.mjs"
NATIVE_MODULES=(better-sqlite3 bindings file-uri-to-path)
HASH_LABEL="rflps.source-hash"

# ---- preflight --------------------------------------------------------------------------------
command -v docker >/dev/null || die "docker CLI not found (run scripts/ci/ensure-docker.sh first)"
docker info >/dev/null 2>&1 || die "cannot reach the Docker daemon (run scripts/ci/ensure-docker.sh first)"
command -v ldd >/dev/null || die "ldd not found"
[[ -f "$ENTRY" ]] || die "server entry '$ENTRY' does not exist (set ENTRY=/path/to/main.ts to override)"
NODE_REAL="$(readlink -f "$NODE_BIN")" || die "cannot resolve $NODE_BIN"
[[ -x "$NODE_REAL" ]] || die "node binary '$NODE_BIN' not found or not executable"
# The node_modules holding the runtime modules: the repository's, or (when this recipe runs from
# the installed npm package) the one the package was installed into. NMP is its parent directory.
NMP="$(node -e 'const p=require("path");try{console.log(p.dirname(p.dirname(p.dirname(require.resolve("better-sqlite3/package.json")))))}catch{console.log(process.cwd())}')"
for m in "${NATIVE_MODULES[@]}"; do
  [[ -f "$NMP/node_modules/$m/package.json" ]] || die "node_modules/$m missing: run 'npm ci' first"
done
ADDON="node_modules/better-sqlite3/build/Release/better_sqlite3.node"
[[ -f "$NMP/$ADDON" ]] || die "$ADDON missing: better-sqlite3 native build absent (npm ci / npm rebuild better-sqlite3)"

MANIFEST="$(mktemp)"
STAGE=""
BUNDLE_TMP=""
cleanup() { rm -f "$MANIFEST"; [[ -n "$STAGE" ]] && rm -rf "$STAGE"; [[ -n "$BUNDLE_TMP" ]] && rm -rf "$BUNDLE_TMP"; return 0; }
trap cleanup EXIT
if [[ "$ENTRY" != "$DEFAULT_ENTRY" || "$ROOT" == */node_modules/* ]]; then
  # a test entry must not overwrite the real dist/ bundle that bin/reference-server.mjs may run,
  # and the installed package must not write into node_modules
  BUNDLE_TMP="$(mktemp -d)"
  OUT="$BUNDLE_TMP/reference-server.mjs"
fi

# ---- 1. bundle --------------------------------------------------------------------------------
log "bundling $ENTRY -> $OUT"
mkdir -p "$(dirname "$OUT")"
# The banner gives the ESM bundle a real `require`, so bundled CJS deps (and the external
# better-sqlite3) can be required.
ESBUILD=(npx --no-install esbuild)
[[ -x "$NMP/node_modules/.bin/esbuild" ]] && ESBUILD=("$NMP/node_modules/.bin/esbuild")   # same thing, without npm's chatter
"${ESBUILD[@]}" "$ENTRY" --bundle --platform=node --format=esm --target=node20 \
  --external:better-sqlite3 --outfile="$OUT" --log-level=warning \
  "--banner:js=import { createRequire as __rflpsCreateRequire } from 'node:module'; const require = __rflpsCreateRequire(import.meta.url);" \
  || die "esbuild bundle of $ENTRY failed"

# ---- 2. list what goes into the rootfs: "source<TAB>destination" ------------------------------
add() { printf '%s\t%s\n' "$1" "$2" >>"$MANIFEST"; }

add "$NODE_REAL" /usr/local/bin/node
# Shared libraries (and the dynamic loader) of node and of the native addon, placed at the path
# ldd reports, with the content of the resolved file.
libs="$( { ldd "$NODE_REAL"; ldd "$NMP/$ADDON"; } | awk '
  /=> not found/ { print "MISSING " $1; next }
  $2 == "=>" && $3 ~ /^\// { print $3; next }
  $1 ~ /^\// { print $1 }' | sort -u)"
if grep -q '^MISSING' <<<"$libs"; then die "unresolved shared libraries: $(grep '^MISSING' <<<"$libs" | tr '\n' ' ')"; fi
[[ -n "$libs" ]] || die "ldd found no libraries for $NODE_REAL (statically linked? unexpected)"
while read -r lib; do
  real="$(readlink -f "$lib")" || die "cannot resolve $lib"
  add "$real" "$lib"
done <<<"$libs"
add "$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")" /app/dist/reference-server.mjs
# Native runtime modules, pruned to what is loaded at run time (package.json, lib/, the addon).
while IFS= read -r f; do add "$NMP/$f" "/app/$f"; done < <(cd "$NMP" &&
  { find node_modules/better-sqlite3 -maxdepth 1 -type f \( -name package.json -o -name LICENSE \)
    find node_modules/better-sqlite3/lib -type f
    echo "$ADDON"
    find node_modules/bindings node_modules/file-uri-to-path -type f \
      \( -name '*.js' -o -name package.json -o -name LICENSE \) -not -path '*/test/*'
  } | sort)
# Runtime data the server may read (e.g. spec/openapi.yaml for request validation).
if [[ -d spec ]]; then
  while IFS= read -r f; do add "$ROOT/$f" "/app/$f"; done < <(find spec -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) | sort)
fi

CHANGES=(
  "WORKDIR /app"
  "ENV NODE_ENV=production"
  "USER 1000:1000"
  "EXPOSE 8080"
  'CMD ["/usr/local/bin/node","/app/dist/reference-server.mjs","--port","8080","--host","0.0.0.0","--db","/tmp/reference.db"]'
  "HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD [\"/usr/local/bin/node\",\"-e\",\"fetch('http://127.0.0.1:8080/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))\"]"
)
BUILD_SCRIPT_VERSION=1   # bump when the rootfs layout below changes

# ---- 3. content hash; skip when unchanged -----------------------------------------------------
HASH="$( {
  echo "v$BUILD_SCRIPT_VERSION"
  printf '%s\n' "${CHANGES[@]}"
  while IFS=$'\t' read -r src dst; do
    printf '%s %s\n' "$dst" "$(sha256sum <"$src" | cut -d' ' -f1)"
  done < <(sort -t$'\t' -k2 "$MANIFEST")
} | sha256sum | cut -c1-64)"
log "source hash $HASH"

if [[ "${FORCE:-0}" != 1 ]]; then
  current="$(docker image inspect --format "{{ index .Config.Labels \"$HASH_LABEL\" }}" "$IMAGE" 2>/dev/null || true)"
  if [[ "$current" == "$HASH" ]]; then
    log "image $IMAGE is up to date (same $HASH_LABEL); skipping rebuild"
    exit 0
  fi
  other="$(docker images -q --filter "label=$HASH_LABEL=$HASH" | head -n1)"
  if [[ -n "$other" ]]; then
    docker tag "$other" "$IMAGE" || die "docker tag $other $IMAGE failed"
    log "image with the same $HASH_LABEL exists ($other); tagged it $IMAGE, skipping rebuild"
    exit 0
  fi
fi

# ---- 4. stage the rootfs ----------------------------------------------------------------------
STAGE="$(mktemp -d /tmp/rflps-rootfs.XXXXXX)"
R="$STAGE/rootfs"
mkdir -p "$R"/{tmp,etc,app,dev,proc,sys,usr/local/bin}
chmod 1777 "$R/tmp"
while IFS=$'\t' read -r src dst; do
  mkdir -p "$R$(dirname "$dst")"
  cp -L --preserve=mode "$src" "$R$dst" || die "copy $src -> $dst failed"
done <"$MANIFEST"
cat >"$R/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/usr/sbin/nologin
node:x:1000:1000:node:/tmp:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$R/etc/group" <<'EOF'
root:x:0:
node:x:1000:
nogroup:x:65534:
EOF
printf 'hosts: files dns\n' >"$R/etc/nsswitch.conf"
mkdir -p "$R/root"
touch "$R/etc/hosts" "$R/etc/resolv.conf"   # docker bind-mounts these

# Sanity check before importing: the staged node starts with only the staged libraries.
if ! "$R/lib64/ld-linux-x86-64.so.2" --library-path "$R/lib/x86_64-linux-gnu:$R/usr/lib/x86_64-linux-gnu" \
     "$R/usr/local/bin/node" -e 'process.exit(0)' 2>/dev/null; then
  log "warning: could not sanity-run the staged node outside the container (continuing)"
fi

# ---- 5. import ------------------------------------------------------------------------------
change_args=()
for c in "${CHANGES[@]}" "LABEL $HASH_LABEL=$HASH" "LABEL org.opencontainers.image.title=rflps-reference"; do
  change_args+=(--change "$c")
done
old_id="$(docker image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)"
log "importing $(du -sh "$R" | cut -f1) rootfs as $IMAGE"
tar -C "$R" --numeric-owner --owner=0 --group=0 -cf - . \
  | docker import "${change_args[@]}" --message "rflps reference server ($HASH)" - "$IMAGE" >/dev/null \
  || die "docker import failed"

got="$(docker image inspect --format "{{ index .Config.Labels \"$HASH_LABEL\" }}" "$IMAGE")" \
  || die "image $IMAGE not found after import"
[[ "$got" == "$HASH" ]] || die "image $IMAGE has $HASH_LABEL='$got', expected $HASH"
new_id="$(docker image inspect --format '{{.Id}}' "$IMAGE")"
if [[ -n "$old_id" && "$old_id" != "$new_id" ]]; then
  # the previous build is now untagged: drop it (ignored if a container still uses it or it has other tags)
  docker rmi "$old_id" >/dev/null 2>&1 && log "removed previous image ${old_id:7:12}" || true
fi
log "built $IMAGE ($(docker image inspect --format '{{.Size}}' "$IMAGE" | numfmt --to=iec), $HASH_LABEL=$HASH)"
