#!/usr/bin/env bash
# devtools/chromium.sh: make sure Debian's chromium is installed, for the web UI's browser tests
# (handlers/browser_test.go drives /usr/bin/chromium headless). Idempotent and quiet when it is
# already there; installs it as root, otherwise says what to install.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ -x /usr/bin/chromium ]] && exit 0
[[ "$(id -u)" == "0" ]] ||
  die "the browser tests need Debian's chromium at /usr/bin/chromium: install it (apt-get install chromium) and run make test again"
command -v apt-get >/dev/null 2>&1 ||
  die "the browser tests need chromium at /usr/bin/chromium and apt-get is not available: install it by hand"
say "installing Debian's chromium package for the browser tests (first run only)…"
log=/tmp/chromium-apt-install.log
rc=0
{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } >"$log" 2>&1 || rc=$?
if (( rc != 0 )) || [[ ! -x /usr/bin/chromium ]]; then
  tail -n 30 "$log" >&2 || true
  die "apt-get install chromium failed (rc $rc; full log in $log)"
fi
