#!/usr/bin/env bash
# Make sure Debian's Chromium is installed at /usr/bin/chromium: the report.html browser test
# (conformance/test/report-html.browser.test.ts) drives it through playwright-core.
# Idempotent: exits 0 at once when it is there. Otherwise (as root, or with passwordless sudo):
#   apt-get update && apt-get install -y chromium
# Without Chromium, set CONFORMANCE_SKIP_BROWSER=1 to skip that test (visibly).
set -euo pipefail
BIN="${CONFORMANCE_CHROMIUM:-/usr/bin/chromium}"
if [[ -x "$BIN" ]]; then
  echo "ensure-chromium: $("$BIN" --version 2>/dev/null || echo "$BIN") is installed"
  exit 0
fi
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=(sudo -n); else
    echo "ensure-chromium: ERROR: $BIN is missing and this user cannot install packages; run as root: apt-get update && apt-get install -y chromium" >&2
    exit 1
  fi
fi
echo "ensure-chromium: installing Debian's chromium"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq chromium
"$BIN" --version
