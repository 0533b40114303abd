#!/usr/bin/env bash
# devtools/test.sh (make test): start a Neo4j and a Redis of the tests' own on test ports (never
# the dev ones) unless they already run, install Debian's chromium for the browser tests when it
# is missing, check formatting, vet and staticcheck, then run every test. Services this script
# started are stopped at the end unless ZIMMER_KEEP_TEST_SERVICES=1.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_go
cd "$ROOT"

TEST_DIR="${ZIMMER_TEST_DIR:-$ROOT/.zimmer/test}"
mkdir -p "$TEST_DIR"
NEO4J_PORT="${ZIMMER_TEST_NEO4J_PORT:-17687}"
REDIS_PORT="${ZIMMER_TEST_REDIS_PORT:-16379}"
export NEO4J_HOME_DIR="$TEST_DIR/neo4j" NEO4J_BOLT_PORT="$NEO4J_PORT" NEO4J_HEAP="${NEO4J_HEAP:-1g}" NEO4J_PAGECACHE_MB="${NEO4J_PAGECACHE_MB:-512}"
export REDIS_DIR="$TEST_DIR/redis"
started=()
cleanup() {
  [[ "${ZIMMER_KEEP_TEST_SERVICES:-0}" == 1 ]] && return 0
  for svc in "${started[@]}"; do "$DEVTOOLS/$svc.sh" stop >/dev/null || true; done
}
trap cleanup EXIT

REDIS_PORT="$REDIS_PORT" "$DEVTOOLS/redis.sh" status >/dev/null 2>&1 || { REDIS_PORT="$REDIS_PORT" "$DEVTOOLS/redis.sh" start; started+=(redis); }
"$DEVTOOLS/neo4j.sh" status >/dev/null 2>&1 || { "$DEVTOOLS/neo4j.sh" start; started+=(neo4j); }
"$DEVTOOLS/chromium.sh"

export ZIMMER_TEST_NEO4J_URI="bolt://127.0.0.1:$NEO4J_PORT"
export ZIMMER_TEST_REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
export ZIMMER_TEST_REDIS_DIR="$REDIS_DIR" ZIMMER_TEST_REDIS_PORT="$REDIS_PORT"

say "gofmt"
unformatted="$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.zimmer/*'))"
[[ -z "$unformatted" ]] || die "gofmt would change: $unformatted (run gofmt -w)"
say "go vet"
go vet ./...
say "staticcheck"
go tool staticcheck ./...
say "zimmer migrate (once, before packages test in parallel)"
NEO4J_URI="$ZIMMER_TEST_NEO4J_URI" go run ./cmd/zimmer migrate
say "go test"
go test -count=1 -timeout 15m "$@" ./...
