#!/usr/bin/env bash
# devtools/redis.sh: start, stop and check a local Redis (Debian's redis-server)
# for dev and tests. Installs the package when missing and running as root.
#
#   devtools/redis.sh start     start daemonized on 127.0.0.1, wait for PONG
#   devtools/redis.sh stop      SHUTDOWN NOSAVE (kill the pid as a fallback)
#   devtools/redis.sh status    exit 0 if running and answering PING
#   devtools/redis.sh restart
#
# Env:
#   REDIS_DIR            required; data, redis.pid, redis.log and redis.conf live here
#   REDIS_PASSWORD       required: Redis runs with requirepass (written to redis.conf, mode
#                        0600, never on a command line; redis-cli gets it via REDISCLI_AUTH)
#   REDIS_PORT           default 6379 (listens on 127.0.0.1 only)
#   REDIS_PERSIST        1 = appendonly yes (default: no persistence at all)
#   REDIS_START_TIMEOUT  seconds, default 20
#   REDIS_STOP_TIMEOUT   seconds, default 20
set -euo pipefail

SELF=redis.sh
source "$(dirname "${BASH_SOURCE[0]}")/proc.sh"

setup_env() {
  [[ -n "${REDIS_DIR:-}" ]] || die "REDIS_DIR is required (the Redis data dir, e.g. /tmp/zimmer-redis)"
  if [[ -n "${REDIS_PASSWORD:-}" ]]; then export REDISCLI_AUTH="$REDIS_PASSWORD"; fi
  mkdir -p -m 700 "$REDIS_DIR"
  chmod 700 "$REDIS_DIR"
  DIR="$(cd "$REDIS_DIR" && pwd -P)"
  PORT="${REDIS_PORT:-6379}"
  [[ "$PORT" =~ ^[0-9]+$ ]] || die "REDIS_PORT must be a number, got '$PORT'"
  PID_FILE="$DIR/redis.pid"
  LOG_FILE="$DIR/redis.log"
  CONF_FILE="$DIR/redis.conf"
  START_TIMEOUT="${REDIS_START_TIMEOUT:-20}"
  STOP_TIMEOUT="${REDIS_STOP_TIMEOUT:-20}"
}

ensure_installed() {
  if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
    return 0
  fi
  if [[ "$(id -u)" != "0" ]]; then
    die "redis-server is missing: install Debian's redis-server package (apt-get install redis-server)"
  fi
  command -v apt-get >/dev/null 2>&1 ||
    die "redis-server is missing and apt-get is not available: install redis-server (and redis-cli) by hand"
  log "installing Debian's redis-server package (first run only)…"
  # Keep the package's init script from starting a system Redis on 6379:
  # a policy-rc.d that denies every service start, for the duration of the install.
  local policy=/usr/sbin/policy-rc.d created_policy=0
  if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    created_policy=1
  fi
  local rc=0
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server; } \
    >/tmp/redis-apt-install.log 2>&1 || rc=$?
  if (( created_policy )); then rm -f "$policy"; fi
  if (( rc != 0 )); then
    tail -n 30 /tmp/redis-apt-install.log >&2 || true
    die "apt-get install redis-server failed (rc $rc; full log in /tmp/redis-apt-install.log)"
  fi
  # Belt and braces: if a system service got started anyway (systemd host), stop it.
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    systemctl stop redis-server >/dev/null 2>&1 || true
    systemctl disable redis-server >/dev/null 2>&1 || true
  elif [[ -s /run/redis/redis-server.pid ]] && kill -0 "$(cat /run/redis/redis-server.pid)" 2>/dev/null; then
    service redis-server stop >/dev/null 2>&1 || true
  fi
  command -v redis-server >/dev/null 2>&1 || die "redis-server still not on PATH after install"
  log "installed $(redis-server --version | cut -d ' ' -f 1-3)"
}

# Prints the pid of the redis-server started for this REDIS_DIR, if it is running.
running_pid() {
  local pid
  pid="$(recorded_pid)" || return 1
  grep -q 'redis' "/proc/$pid/cmdline" 2>/dev/null || return 1
  echo "$pid"
}

ping_ok() {
  [[ "$(timeout 2 redis-cli --no-auth-warning -h 127.0.0.1 -p "$PORT" ping 2>/dev/null || true)" == "PONG" ]]
}

# open_without_password: the server answers PING with no password (started before auth was on).
open_without_password() {
  [[ "$(env -u REDISCLI_AUTH timeout 2 redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null || true)" == "PONG" ]]
}


cmd_start() {
  setup_env
  [[ -n "${REDIS_PASSWORD:-}" ]] || die "REDIS_PASSWORD is required: Redis runs with a password (make up and make test generate one)"
  [[ "$REDIS_PASSWORD" =~ ^[A-Za-z0-9._~-]+$ ]] || die "REDIS_PASSWORD may hold only letters, digits and . _ ~ - (it goes into REDIS_URL unescaped)"
  ensure_installed
  local pid t0
  t0=$(now_ms)
  if pid="$(running_pid)" && open_without_password; then
    # -x: the password comes from stdin, so it never shows in the process list.
    printf '%s' "$REDIS_PASSWORD" | timeout 5 redis-cli -h 127.0.0.1 -p "$PORT" -x config set requirepass >/dev/null
    log "turned on the password of the running Redis (pid $pid)"
  fi
  if pid="$(running_pid)"; then
    ping_ok || die "the Redis of $DIR (pid $pid) refuses REDIS_PASSWORD: it runs with another password; stop it first"
    log "already running (pid $pid, 127.0.0.1:$PORT, dir $DIR)"
    return 0
  fi
  if port_open "$PORT"; then
    die "port $PORT on 127.0.0.1 is already in use by another process (not the Redis of $DIR); set REDIS_PORT or stop that process"
  fi
  rm -f "$PID_FILE"

  local appendonly=no
  if [[ "${REDIS_PERSIST:-0}" == "1" ]]; then appendonly=yes; fi
  (umask 077; printf 'requirepass "%s"\n' "$REDIS_PASSWORD" >"$CONF_FILE")
  (umask 077; redis-server "$CONF_FILE" \
    --port "$PORT" \
    --bind 127.0.0.1 \
    --daemonize yes \
    --dir "$DIR" \
    --pidfile "$PID_FILE" \
    --logfile "$LOG_FILE" \
    --save "" \
    --appendonly "$appendonly" \
    </dev/null >/dev/null 2>&1) || {
      tail -n 20 "$LOG_FILE" >&2 2>/dev/null || true
      die "redis-server failed to start (log: $LOG_FILE)"
    }

  local deadline=$(( $(date +%s) + START_TIMEOUT ))
  until ping_ok; do
    if (( $(date +%s) >= deadline )); then
      err "Redis not answering PING on 127.0.0.1:$PORT after ${START_TIMEOUT}s; last lines of $LOG_FILE:"
      tail -n 20 "$LOG_FILE" >&2 2>/dev/null || true
      exit 1
    fi
    sleep 0.1
  done
  pid="$(running_pid || echo '?')"
  log "ready in $(elapsed "$t0"): 127.0.0.1:$PORT (pid $pid, dir $DIR, appendonly $appendonly)"
}

cmd_stop() {
  setup_env
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PID_FILE"
    log "not running (dir $DIR)"
    return 0
  fi
  if command -v redis-cli >/dev/null 2>&1; then
    timeout 5 redis-cli --no-auth-warning -h 127.0.0.1 -p "$PORT" shutdown nosave >/dev/null 2>&1 || true
  fi
  local deadline=$(( $(date +%s) + STOP_TIMEOUT )) _
  # Give SHUTDOWN a moment, then fall back to SIGTERM (also a clean shutdown).
  for _ in $(seq 1 30); do pid_alive "$pid" || break; sleep 0.1; done
  if pid_alive "$pid"; then kill -TERM "$pid" 2>/dev/null || true; fi
  while pid_alive "$pid"; do
    if (( $(date +%s) >= deadline )); then
      err "WARNING: redis (pid $pid) did not exit within ${STOP_TIMEOUT}s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
      break
    fi
    sleep 0.1
  done
  rm -f "$PID_FILE"
  log "stopped (pid $pid)"
}

cmd_status() {
  setup_env
  local pid
  if pid="$(running_pid)" && command -v redis-cli >/dev/null 2>&1 && ping_ok; then
    log "running (pid $pid, 127.0.0.1:$PORT, dir $DIR)"
    return 0
  fi
  log "not running (dir $DIR, port $PORT)"
  return 1
}

dispatch "$@"
