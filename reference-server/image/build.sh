#!/usr/bin/env bash
# Registry-free build of the reference-server image (the equivalent of reference-server/Dockerfile,
# used by CI where no container registry is reachable).
#
# It makes a minimal root filesystem from the HOST's node binary and the shared libraries it needs
# (found with ldd), the esbuild bundle of the server and its native runtime modules
# (better-sqlite3 + bindings + file-uri-to-path), then `docker import`s it. The rootfs assembly
# shared with the suite's image (conformance/image/build.sh) is scripts/image/assemble-rootfs.sh.
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
# shellcheck source=../../scripts/image/assemble-rootfs.sh
source "$ROOT/scripts/image/assemble-rootfs.sh"

IMAGE="${IMAGE:-rflps-reference:local}"
DEFAULT_ENTRY="reference-server/src/main.ts"
ENTRY="${ENTRY:-$DEFAULT_ENTRY}"
NODE_BIN="${NODE_BIN:-/usr/bin/node}"
OUT="dist/reference-server.mjs"
NATIVE_MODULES=(better-sqlite3 bindings file-uri-to-path)

# ---- preflight --------------------------------------------------------------------------------
rootfs_preflight "$NODE_BIN"
[[ -f "$ENTRY" ]] || die "server entry '$ENTRY' does not exist (set ENTRY=/path/to/main.ts to override)"
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
# Shared libraries (and the dynamic loader) of node and of the native addon.
rootfs_library_pairs "$NODE_REAL" "$NMP/$ADDON" >>"$MANIFEST"
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

rootfs_reuse_image "$IMAGE" "$HASH" && exit 0

# ---- 4. stage the rootfs ----------------------------------------------------------------------
STAGE="$(mktemp -d /tmp/rflps-rootfs.XXXXXX)"
R="$STAGE/rootfs"
mkdir -p "$R"/{tmp,etc,app,dev,proc,sys,usr/local/bin}
chmod 1777 "$R/tmp"
rootfs_copy "$R" <"$MANIFEST"
rootfs_etc "$R" /root

# Sanity check before importing: the staged node starts with only the staged libraries.
if ! "$R/lib64/ld-linux-x86-64.so.2" --library-path "$R/lib/x86_64-linux-gnu:$R/usr/lib/x86_64-linux-gnu" \
     "$R/usr/local/bin/node" -e 'process.exit(0)' 2>/dev/null; then
  log "warning: could not sanity-run the staged node outside the container (continuing)"
fi

# ---- 5. import ------------------------------------------------------------------------------
rootfs_import "$R" "$IMAGE" "$HASH" rflps-reference "rflps reference server ($HASH)" "${CHANGES[@]}"
