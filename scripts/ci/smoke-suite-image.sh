#!/usr/bin/env bash
# CI smoke test of the suite's container image (conformance/image/build.sh): build it, start the
# reference server as a local process with provider states on a free port, run the image against
# it with --network host (core profile), and check the exit code and the four reports.
set -Eeuo pipefail
cd "$(dirname "$0")/../.."

IMAGE="${SUITE_IMAGE:-rflps-conformance:ci}"
die() { echo "smoke-suite-image: ERROR: $*" >&2; exit 1; }
log() { echo "smoke-suite-image: $*"; }

t0=$(date +%s)
IMAGE="$IMAGE" bash conformance/image/build.sh
log "image built in $(( $(date +%s) - t0 )) s"

work="$(mktemp -d /tmp/rflps-suite-smoke.XXXXXX)"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
  return 0
}
trap cleanup EXIT

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
node reference-server/bin/reference-server.mjs --port "$port" --host 127.0.0.1 --db "$work/reference.db" \
  --provider-states --log-level warn >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; die "the reference server exited"; }
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$port/health" >/dev/null || die "the reference server never became healthy on port $port"
log "reference server (pid $server_pid) on port $port"

mkdir -m 0777 "$work/reports"
set +e
docker run --rm --network host -v "$work/reports:/reports" "$IMAGE" \
  run --base-url "http://127.0.0.1:$port" --profile core --target-label "reference (suite image smoke)"
code=$?
set -e
[[ $code -eq 0 ]] || die "the suite image exited with $code"
for f in report.html results.json junit.xml badge.svg; do
  [[ -s "$work/reports/$f" ]] || die "the suite image did not write $f"
done
node -e '
  const r = require(process.argv[1]);
  if (r.verdict !== "pass" || r.profile !== "core" || !(r.counts.passed > 100)) {
    console.error("unexpected results.json:", r.verdict, r.profile, JSON.stringify(r.counts));
    process.exit(1);
  }
  console.log(`smoke-suite-image: results.json: ${r.counts.passed} requirements passed, verdict ${r.verdict}`);
' "$work/reports/results.json"
log "passed in $(( $(date +%s) - t0 )) s"
