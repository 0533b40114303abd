#!/usr/bin/env bash
# devtools/screenshots.sh: refresh the web UI screenshots under docs/screenshots/ (the session page
# in light and dark mode, the drawn hierarchy of a 40-session tree with uncle edges). They come
# from the browser test that checks what they show, run against the test services:
#   ZIMMER_TEST_NEO4J_PORT=.. ZIMMER_TEST_REDIS_PORT=.. bash devtools/screenshots.sh
# (the services must be up: ZIMMER_KEEP_TEST_SERVICES=1 bash devtools/test.sh -run XXX_NONE starts them).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
env_file="$root/.zimmer/test/test.env"
[[ -f "$env_file" ]] || die "no $env_file: start the test services first (ZIMMER_KEEP_TEST_SERVICES=1 bash devtools/test.sh -run XXX_NONE)"
set -a; source "$env_file"; set +a
mkdir -p "$root/docs/screenshots"
cd "$root"
ZIMMER_SCREENSHOTS_DIR="$root/docs/screenshots" go test -count=1 ./handlers/ -run 'TestThePagesLabelEveryControlShowFocusReadInDarkModeAndDrawAFortySessionTree'
say "screenshots written to docs/screenshots/"
