#!/usr/bin/env bash
# devtools/bench.sh (make bench): start a Neo4j of the benchmark's own (port 37687, data under
# .zimmer/bench-<sessions>/ so each fleet size is built once and reused) and a Redis for the
# session-runner load check (port 36379), then run cmd/zimmer-bench with the given flags, e.g.
# `make bench BENCH_ARGS=-sessions=1000000`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_go
cd "$ROOT"

sessions=100000
for arg in "$@"; do
  case "$arg" in -sessions=*|--sessions=*) sessions="${arg#*=}" ;; esac
done
BENCH_DIR="${ZIMMER_BENCH_DIR:-$ROOT/.zimmer/bench-$sessions}"
mkdir -p -m 700 "$BENCH_DIR"
# The bench stores run with auth on too; their passwords are generated once into bench.env.
ensure_secrets "$BENCH_DIR/bench.env" BENCH_NEO4J_PASSWORD BENCH_REDIS_PASSWORD
load_env "$BENCH_DIR/bench.env"
port="${ZIMMER_BENCH_NEO4J_PORT:-37687}"
export NEO4J_HOME_DIR="$BENCH_DIR/neo4j" NEO4J_BOLT_PORT="$port"
# The heap starts at its full size, as docker-compose.yml runs Neo4j (and Neo4j advises): a heap
# grown under load pauses the measurements it grows in.
export NEO4J_HEAP="${NEO4J_HEAP:-2g}" NEO4J_PAGECACHE_MB="${NEO4J_PAGECACHE_MB:-1024}"
export NEO4J_HEAP_INITIAL="${NEO4J_HEAP_INITIAL:-$NEO4J_HEAP}"
export NEO4J_USER=neo4j NEO4J_PASSWORD="$BENCH_NEO4J_PASSWORD" REDIS_PASSWORD="$BENCH_REDIS_PASSWORD"
"$DEVTOOLS/neo4j.sh" start
redis_port="${ZIMMER_BENCH_REDIS_PORT:-36379}"
REDIS_DIR="$BENCH_DIR/redis" REDIS_PORT="$redis_port" "$DEVTOOLS/redis.sh" start
trap '"$DEVTOOLS/neo4j.sh" stop >/dev/null; REDIS_DIR="$BENCH_DIR/redis" REDIS_PORT="$redis_port" "$DEVTOOLS/redis.sh" stop >/dev/null' EXIT
export BENCH_NEO4J_URI="bolt://127.0.0.1:$port" BENCH_NEO4J_USER=neo4j
export BENCH_REDIS_URL="redis://:$BENCH_REDIS_PASSWORD@127.0.0.1:$redis_port/0"
go run ./cmd/zimmer-bench "$@"
