#!/usr/bin/env bash
# devtools/up.sh (make up): start Redis, Neo4j, `zimmer serve` and `zimmer worker` on loopback,
# wait until the service is healthy, then print the URL, the API key and the log locations.
# Neo4j runs with auth on and Redis with a password; both passwords and the API key are generated
# into .zimmer/dev.env (0600) on first start. Variables set in the environment win over dev.env.
# Idempotent: what already runs is left running; zimmer is restarted only when its binary changed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_go

DATA="${ZIMMER_DATA_DIR:-$ROOT/.zimmer}"
mkdir -p "$DATA"
DATA="$(cd "$DATA" && pwd)"
dev_env "$DATA"
export ZIMMER_DATA_DIR="$DATA"
export ZIMMER_HTTP_ADDR="${ZIMMER_HTTP_ADDR:-127.0.0.1:8080}"

redis_target "$REDIS_URL"
[[ -n $REDIS_PASSWORD ]] || die "REDIS_URL carries no password: use redis://:<password>@host:port/db (the dev Redis requires one)"
REDIS_DIR="$DATA/redis" REDIS_PERSIST=1 "$DEVTOOLS/redis.sh" start
NEO4J_PORT="${NEO4J_URI##*:}"
NEO4J_HOME_DIR="$DATA/neo4j" NEO4J_BOLT_PORT="$NEO4J_PORT" "$DEVTOOLS/neo4j.sh" start
chmod 600 "$DATA"/logs/*.log 2>/dev/null || true # logs written before they were private

umask 077 # what zimmer writes (logs, transcripts, workspaces) is the operator's alone
say "building zimmer"
(cd "$ROOT" && go build -o "$DATA/bin/zimmer.new" ./cmd/zimmer)
changed=1
if [[ -f "$DATA/bin/zimmer" ]] && cmp -s "$DATA/bin/zimmer" "$DATA/bin/zimmer.new"; then changed=0; fi

for proc in serve worker; do
  pidfile="$DATA/run/$proc.pid"
  if pid_alive "$pidfile" && [[ $changed == 0 ]]; then
    say "zimmer $proc already running (pid $(cat "$pidfile"))"
    continue
  fi
  stop_pid "zimmer $proc" "$pidfile"
done
mv -f "$DATA/bin/zimmer.new" "$DATA/bin/zimmer"
for proc in serve worker; do
  pidfile="$DATA/run/$proc.pid"
  pid_alive "$pidfile" && continue
  nohup setsid "$DATA/bin/zimmer" "$proc" >>"$DATA/logs/$proc.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  say "started zimmer $proc (pid $!)"
done

URL="http://$ZIMMER_HTTP_ADDR"
say "waiting for $URL/up/deep"
for i in $(seq 1 120); do
  if curl -fsS "$URL/up/deep" >/dev/null 2>&1; then break; fi
  pid_alive "$DATA/run/serve.pid" || { tail -n 30 "$DATA/logs/serve.log" >&2; die "zimmer serve exited; its log is above"; }
  [[ $i == 120 ]] && { tail -n 30 "$DATA/logs/serve.log" >&2; die "zimmer did not become healthy in 60 s"; }
  sleep 0.5
done

KEY="${API_KEYS%%,*}"
cat <<MSG

Zimmer is up.
  URL       $URL   (health: $URL/up/deep, metrics: $URL/metrics)
  API key   $KEY   (from API_KEYS; generated into $ENV_FILE)
  Stores    Neo4j $NEO4J_URI (user $NEO4J_USER), Redis on port $REDIS_PORT;
            their passwords are in $ENV_FILE
  Logs      $DATA/logs/serve.log, $DATA/logs/worker.log,
            $DATA/neo4j/neo4j.log, $DATA/redis/redis.log
  Try       curl -s -H "X-API-Key: $KEY" $URL/api/v1/sessions
  Stop      make down
MSG
