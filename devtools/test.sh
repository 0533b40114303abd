#!/usr/bin/env bash
# devtools/test.sh (make test): start a Neo4j and a Redis of the tests' own on test ports (never
# the dev ones) unless they already run, install Debian's chromium (the browser tests),
# prometheus (promtool, the alert rules' check) and the real Claude Code and Codex CLIs from npm
# (devtools/agent-clis.sh: the test that they accept Zimmer's configs) when missing, check formatting, vet and staticcheck, then run every test. Services this script
# started are stopped at the end unless ZIMMER_KEEP_TEST_SERVICES=1.
# Like `make up`, the test stores run with auth on: their passwords are generated on first start
# into $TEST_DIR/test.env (0600), which also lists every ZIMMER_TEST_* variable the tests read;
# `set -a; . .zimmer/test/test.env; set +a` before running `go test` on a package by hand.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_go
cd "$ROOT"

TEST_DIR="${ZIMMER_TEST_DIR:-$ROOT/.zimmer/test}"
mkdir -p "$TEST_DIR"
chmod 700 "$TEST_DIR"
[[ -n ${ZIMMER_TEST_DIR:-} ]] || chmod 700 "$ROOT/.zimmer"
NEO4J_PORT="${ZIMMER_TEST_NEO4J_PORT:-17687}"
REDIS_PORT="${ZIMMER_TEST_REDIS_PORT:-16379}"
TEST_ENV="$TEST_DIR/test.env"
ensure_secrets "$TEST_ENV" ZIMMER_TEST_NEO4J_PASSWORD ZIMMER_TEST_REDIS_PASSWORD
# Only the passwords come from the file: the ports and URLs below are this run's.
ZIMMER_TEST_NEO4J_PASSWORD="$(sed -n 's/^ZIMMER_TEST_NEO4J_PASSWORD=//p' "$TEST_ENV")"
ZIMMER_TEST_REDIS_PASSWORD="$(sed -n 's/^ZIMMER_TEST_REDIS_PASSWORD=//p' "$TEST_ENV")"
export NEO4J_HOME_DIR="$TEST_DIR/neo4j" NEO4J_BOLT_PORT="$NEO4J_PORT" NEO4J_HEAP="${NEO4J_HEAP:-1g}" NEO4J_PAGECACHE_MB="${NEO4J_PAGECACHE_MB:-512}"
export NEO4J_PASSWORD="$ZIMMER_TEST_NEO4J_PASSWORD"
export REDIS_DIR="$TEST_DIR/redis" REDIS_PASSWORD="$ZIMMER_TEST_REDIS_PASSWORD"
started=()
cleanup() {
  [[ "${ZIMMER_KEEP_TEST_SERVICES:-0}" == 1 ]] && return 0
  for svc in "${started[@]}"; do "$DEVTOOLS/$svc.sh" stop >/dev/null || true; done
}
trap cleanup EXIT

# start is idempotent; it also turns auth on for services started by an older checkout.
REDIS_PORT="$REDIS_PORT" "$DEVTOOLS/redis.sh" status >/dev/null 2>&1 || started+=(redis)
REDIS_PORT="$REDIS_PORT" "$DEVTOOLS/redis.sh" start
"$DEVTOOLS/neo4j.sh" status >/dev/null 2>&1 || started+=(neo4j)
"$DEVTOOLS/neo4j.sh" start
"$DEVTOOLS/debian-tool.sh" /usr/bin/chromium chromium "the browser tests"
"$DEVTOOLS/debian-tool.sh" /usr/bin/promtool prometheus "the alerting rules' check"
ZIMMER_TEST_AGENT_CLIS="$("$DEVTOOLS/agent-clis.sh")"

export ZIMMER_TEST_NEO4J_URI="bolt://127.0.0.1:$NEO4J_PORT" ZIMMER_TEST_NEO4J_USER=neo4j ZIMMER_TEST_NEO4J_PASSWORD
export ZIMMER_TEST_REDIS_URL="redis://:$ZIMMER_TEST_REDIS_PASSWORD@127.0.0.1:$REDIS_PORT"
export ZIMMER_TEST_REDIS_DIR="$REDIS_DIR" ZIMMER_TEST_REDIS_PORT="$REDIS_PORT" ZIMMER_TEST_REDIS_PASSWORD ZIMMER_TEST_AGENT_CLIS
test_env() {
  local v
  printf '# Written by make test: the test stores of this checkout (passwords generated once).\n'
  for v in ZIMMER_TEST_NEO4J_URI ZIMMER_TEST_NEO4J_USER ZIMMER_TEST_NEO4J_PASSWORD ZIMMER_TEST_REDIS_URL \
    ZIMMER_TEST_REDIS_PASSWORD ZIMMER_TEST_REDIS_DIR ZIMMER_TEST_REDIS_PORT ZIMMER_TEST_AGENT_CLIS; do
    printf '%s=%s\n' "$v" "${!v}"
  done
}
(umask 077; test_env >"$TEST_ENV.new")
mv -f "$TEST_ENV.new" "$TEST_ENV"

say "gofmt"
unformatted="$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.zimmer/*'))"
[[ -z "$unformatted" ]] || die "gofmt would change: $unformatted (run gofmt -w)"
say "go vet"
go vet ./...
say "staticcheck"
go tool staticcheck ./...
say "zimmer migrate (once, before the packages test)"
NEO4J_URI="$ZIMMER_TEST_NEO4J_URI" NEO4J_USER=neo4j go run ./cmd/zimmer migrate
say "go test"
# One package at a time (-p 1): every package shares this one Neo4j, and some records are
# deployment-wide by design (the notification inbox's mark-all-read and dismiss-all-read, the
# spot policy, the route sweep that calls every route). Two packages running at once let one
# package's test read or dismiss another's records; that failed CI twice. Serial packages also
# keep the timing-sensitive tests off a machine that Neo4j already loads. Tests within a package
# that opt into t.Parallel still run together; graphtest.Exclusive guards the shared records.
go test -p 1 -count=1 -timeout 15m "$@" ./...
# The fuzz targets, each for a bounded number of inputs (a count, not a duration: Go 1.26's fuzz
# coordinator can report its own -fuzztime deadline as a failure on a loaded machine,
# golang/go#75804), after every package has run: then a target is the
# only writer on the test database, which its whole-graph census relies on (one worker for the
# same reason). No minimizing: every input costs real store round trips, and a failing input is
# kept as found. Their seed corpora (testdata/fuzz/) already ran above as ordinary tests.
if [[ $# -eq 0 ]]; then
  for target in handlers:FuzzRESTWrites handlers:FuzzSlackEvents handlers/mcp:FuzzToolsCall; do
    say "fuzz ${target#*:} (${ZIMMER_FUZZ_EXECS:-200} inputs)"
    # Start from the committed seeds alone: replaying what earlier runs found interesting would
    # grow until it took the whole budget and left no time to mutate.
    rm -rf "$(go env GOCACHE)/fuzz/$(go list "./${target%%:*}")/${target#*:}"
    go test -run '^$' -fuzz "^${target#*:}\$" -fuzztime "${ZIMMER_FUZZ_EXECS:-200}x" -fuzzminimizetime 0 -parallel 1 "./${target%%:*}"
  done
fi
