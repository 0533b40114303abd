#!/usr/bin/env bash
# devtools/down.sh (make down): stop zimmer serve and worker, Neo4j and Redis. Data is kept.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DATA="${ZIMMER_DATA_DIR:-$ROOT/.zimmer}"
[[ -d "$DATA" ]] || { say "nothing to stop ($DATA does not exist)"; exit 0; }
DATA="$(cd "$DATA" && pwd)"
dev_env "$DATA"
stop_pid "zimmer worker" "$DATA/run/worker.pid"
stop_pid "zimmer serve" "$DATA/run/serve.pid"
redis_target "$REDIS_URL"
NEO4J_HOME_DIR="$DATA/neo4j" NEO4J_BOLT_PORT="${NEO4J_URI##*:}" "$DEVTOOLS/neo4j.sh" stop
REDIS_DIR="$DATA/redis" "$DEVTOOLS/redis.sh" stop
say "everything stopped; data kept in $DATA"
