#!/usr/bin/env bash
# devtools/neo4j.sh: build, start, stop and check a local Neo4j 5.26 Community
# (embedded, Bolt only, auth on, no TLS) for dev and tests. No Docker needed:
# only Java 17+ and Maven.
#
#   devtools/neo4j.sh build           compile the launcher (cached, see below)
#   devtools/neo4j.sh start           start in the background, wait for readiness
#   devtools/neo4j.sh stop            SIGTERM (clean shutdown), SIGKILL after timeout
#   devtools/neo4j.sh status          exit 0 if running and Bolt answers
#   devtools/neo4j.sh restart
#
# Env (start/stop/status):
#   NEO4J_HOME_DIR        required; data, logs/debug.log, neo4j.pid live here
#   NEO4J_PASSWORD        required by start: the password of user neo4j, (re)set on every
#                         start (the launcher reads it from its environment, never argv)
#   NEO4J_BOLT_PORT       default 7687 (listens on 127.0.0.1 only)
#   NEO4J_HEAP            -Xmx, default 2g
#   NEO4J_HEAP_INITIAL    -Xms, default 512m (capped at NEO4J_HEAP)
#   NEO4J_PAGECACHE_MB    default 1024
#   NEO4J_LOG             default $NEO4J_HOME_DIR/neo4j.log (launcher stdout/stderr;
#                         the previous one is kept as <log>.1)
#   NEO4J_START_TIMEOUT   seconds, default 300 (a first start on a loaded 2-core machine can take minutes)
#   NEO4J_STOP_TIMEOUT    seconds, default 60
#   NEO4J_JAVA_OPTS       extra JVM flags (word-split)
# Env (build):
#   ZIMMER_CACHE_DIR      default $HOME/.cache/zimmer; the launcher is built into
#                         $ZIMMER_CACHE_DIR/neo4j-<version>/{classes,lib} and reused
#                         by every clone until pom.xml or the Java source changes.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LAUNCHER_DIR="$SCRIPT_DIR/neo4j"
POM="$LAUNCHER_DIR/pom.xml"
MAIN_CLASS="dev.zimmer.Neo4jMain"

NEO4J_VERSION="$(sed -n 's:.*<neo4j\.version>\(.*\)</neo4j\.version>.*:\1:p' "$POM" | head -n 1)"
[[ -n "$NEO4J_VERSION" ]] || { echo "neo4j.sh: cannot read <neo4j.version> from $POM" >&2; exit 1; }
CACHE_ROOT="${ZIMMER_CACHE_DIR:-${HOME:-/tmp}/.cache/zimmer}"
BUILD_DIR="$CACHE_ROOT/neo4j-$NEO4J_VERSION"
STAMP_FILE="$BUILD_DIR/.build-hash"

if [[ -n "${JAVA_HOME:-}" && -x "${JAVA_HOME}/bin/java" ]]; then
  JAVA="$JAVA_HOME/bin/java"
else
  JAVA="java"
fi

SELF=neo4j.sh
source "$SCRIPT_DIR/proc.sh"

# ---------------------------------------------------------------- build

source_hash() {
  {
    cat "$POM"
    find "$LAUNCHER_DIR/src" -type f -name '*.java' -print0 | LC_ALL=C sort -z | xargs -0 cat
  } | sha256sum | cut -d ' ' -f 1
}

is_built() {
  [[ -f "$STAMP_FILE" && -d "$BUILD_DIR/classes" && -d "$BUILD_DIR/lib" ]] &&
    [[ "$(cat "$STAMP_FILE")" == "$(source_hash)" ]]
}

cmd_build() {
  if is_built; then
    [[ "${1:-}" == "quiet" ]] || log "launcher for Neo4j $NEO4J_VERSION is up to date in $BUILD_DIR"
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "mvn not found: install Maven (Debian package 'maven') and Java 17+"
  command -v "$JAVA" >/dev/null 2>&1 || die "java not found: install a JDK 17+ (Debian package 'openjdk-17-jdk-headless')"

  mkdir -p "$BUILD_DIR"
  # Serialise concurrent builds (two clones, parallel test runs) of the same version.
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$BUILD_DIR.lock"
    flock 9
    if is_built; then # someone else finished it while we waited
      log "launcher for Neo4j $NEO4J_VERSION is up to date in $BUILD_DIR"
      return 0
    fi
  fi

  local m2="${MAVEN_REPO_LOCAL:-${HOME:-/tmp}/.m2/repository}"
  if [[ ! -d "$m2/org/neo4j/neo4j/$NEO4J_VERSION" ]]; then
    log "resolving Neo4j $NEO4J_VERSION jars (first run only, ~130 MB download)…"
  fi
  log "building launcher into $BUILD_DIR …"
  local t0 tmp hash
  t0=$(now_ms)
  hash="$(source_hash)"
  tmp="$BUILD_DIR/.mvn-target"
  rm -rf "$tmp"
  if ! mvn -q -B --no-transfer-progress -Dstyle.color=never -f "$POM" -Dzimmer.build.dir="$tmp" package \
    >"$BUILD_DIR/build.log" 2>&1; then
    rm -rf "$tmp"
    tail -n 60 "$BUILD_DIR/build.log" >&2 || true
    die "maven build failed (full output in $BUILD_DIR/build.log)"
  fi
  [[ -d "$tmp/classes" && -d "$tmp/lib" ]] || die "maven build produced no classes/ or lib/ in $tmp"
  rm -rf "${BUILD_DIR:?}/classes" "${BUILD_DIR:?}/lib"
  mv "$tmp/classes" "$BUILD_DIR/classes"
  mv "$tmp/lib" "$BUILD_DIR/lib"
  rm -rf "$tmp"
  printf '%s\n' "$hash" >"$STAMP_FILE"
  log "built in $(elapsed "$t0"): $(du -sh "$BUILD_DIR/lib" | cut -f 1) of jars in $BUILD_DIR/lib"
}

# ---------------------------------------------------------------- runtime helpers

setup_env() {
  [[ -n "${NEO4J_HOME_DIR:-}" ]] || die "NEO4J_HOME_DIR is required (the Neo4j data dir, e.g. /tmp/zimmer-neo4j)"
  mkdir -p -m 700 "$NEO4J_HOME_DIR"
  chmod 700 "$NEO4J_HOME_DIR"
  HOME_DIR="$(cd "$NEO4J_HOME_DIR" && pwd -P)"
  PORT="${NEO4J_BOLT_PORT:-7687}"
  [[ "$PORT" =~ ^[0-9]+$ ]] || die "NEO4J_BOLT_PORT must be a number, got '$PORT'"
  PAGECACHE_MB="${NEO4J_PAGECACHE_MB:-1024}"
  [[ "$PAGECACHE_MB" =~ ^[0-9]+$ ]] || die "NEO4J_PAGECACHE_MB must be a number, got '$PAGECACHE_MB'"
  HEAP="${NEO4J_HEAP:-2g}"
  HEAP_INITIAL="${NEO4J_HEAP_INITIAL:-512m}"
  LOG_FILE="${NEO4J_LOG:-$HOME_DIR/neo4j.log}"
  PID_FILE="$HOME_DIR/neo4j.pid"
  START_TIMEOUT="${NEO4J_START_TIMEOUT:-300}"
  STOP_TIMEOUT="${NEO4J_STOP_TIMEOUT:-60}"
}

# Serialise start/stop on one home dir (fd 8; closed for the JVM so it never holds it).
lock_home() {
  if command -v flock >/dev/null 2>&1; then
    exec 8>"$HOME_DIR/.neo4j-sh.lock"
    flock 8
  fi
}

# Size like 512m / 2g / 2048 (bytes are not expected) -> MiB.
size_mb() {
  local s="${1,,}" n
  n="${s%[kmgt]}"
  [[ "$n" =~ ^[0-9]+$ ]] || die "bad JVM memory size '$1' (use e.g. 512m or 2g)"
  case "$s" in
    *k) echo $(( n / 1024 )) ;;
    *g) echo $(( n * 1024 )) ;;
    *t) echo $(( n * 1024 * 1024 )) ;;
    *m) echo "$n" ;;
    *) echo $(( n / 1024 / 1024 )) ;;
  esac
}

# Prints the pid of this home dir's Neo4j if it is running.
running_pid() {
  local pid
  pid="$(recorded_pid)" || return 1
  # Guard against pid reuse: the JVM carries the home dir as a marker property.
  tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "-Dzimmer.neo4j.home=$HOME_DIR" || return 1
  echo "$pid"
}

# Bolt port a running launcher was started with (from its marker property).
pid_port() {
  tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | sed -n 's/^-Dzimmer\.neo4j\.port=//p' | head -n 1
}

# Waits for the NEO4J_READY line that the launcher prints after "RETURN 1" succeeded.
# $3 = "stop" to stop the process on timeout (only when this call started it).
wait_ready() {
  local pid="$1" t0="$2" on_timeout="${3:-}" deadline
  deadline=$(( $(date +%s) + START_TIMEOUT ))
  while :; do
    if grep -q '^NEO4J_READY ' "$LOG_FILE" 2>/dev/null && port_open "$PORT"; then
      return 0
    fi
    if grep -q '^NEO4J_FAILED' "$LOG_FILE" 2>/dev/null; then
      err "Neo4j (pid $pid) failed to start after $(elapsed "$t0"); last 30 lines of $LOG_FILE:"
      tail -n 30 "$LOG_FILE" >&2 || true
      err "(more detail in $HOME_DIR/logs/debug.log); it exits on its own"
      return 1
    fi
    if ! pid_alive "$pid"; then
      err "Neo4j (pid $pid) exited during startup after $(elapsed "$t0"); last 30 lines of $LOG_FILE:"
      tail -n 30 "$LOG_FILE" >&2 || true
      err "(more detail in $HOME_DIR/logs/debug.log)"
      rm -f "$PID_FILE"
      return 1
    fi
    if (( $(date +%s) >= deadline )); then
      err "Neo4j (pid $pid) not ready after ${START_TIMEOUT}s; last 30 lines of $LOG_FILE:"
      tail -n 30 "$LOG_FILE" >&2 || true
      if [[ "$on_timeout" == "stop" ]]; then
        err "(more detail in $HOME_DIR/logs/debug.log); stopping it"
        stop_pid "$pid" || true
        rm -f "$PID_FILE"
      else
        err "(more detail in $HOME_DIR/logs/debug.log)"
      fi
      return 1
    fi
    sleep 0.2
  done
}

# SIGTERM, wait STOP_TIMEOUT, then SIGKILL.
stop_pid() {
  local pid="$1" deadline
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$(( $(date +%s) + STOP_TIMEOUT ))
  while pid_alive "$pid"; do
    if (( $(date +%s) >= deadline )); then
      err "WARNING: Neo4j (pid $pid) did not exit within ${STOP_TIMEOUT}s of SIGTERM; sending SIGKILL (next start will run recovery)"
      kill -KILL "$pid" 2>/dev/null || true
      local _
      for _ in $(seq 1 100); do pid_alive "$pid" || break; sleep 0.1; done
      wait_port_closed
      return 1
    fi
    sleep 0.2
  done
  wait_port_closed
}

# The listening socket goes away with the last thread; give it a few seconds.
wait_port_closed() {
  local _
  for _ in $(seq 1 50); do port_open "$PORT" || return 0; sleep 0.1; done
  err "WARNING: port $PORT still answers after Neo4j exited"
}

# ---------------------------------------------------------------- commands

cmd_start() {
  setup_env
  [[ -n "${NEO4J_PASSWORD:-}" ]] || die "NEO4J_PASSWORD is required: Neo4j runs with auth on (make up and make test generate one)"
  lock_home
  local pid t0
  t0=$(now_ms)

  # A launcher from before auth was always on: restart it so the password applies.
  if pid="$(running_pid)" && ! tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "-Dzimmer.neo4j.auth=on"; then
    log "Neo4j (pid $pid) runs without auth; restarting it with auth on"
    stop_pid "$pid" || true
    rm -f "$PID_FILE"
  fi
  if pid="$(running_pid)"; then
    local running_port
    running_port="$(pid_port "$pid")"
    if [[ -n "$running_port" && "$running_port" != "$PORT" ]]; then
      die "the Neo4j of $HOME_DIR is already running on port $running_port (pid $pid), not $PORT; stop it first"
    fi
    if port_open "$PORT"; then
      log "already running (pid $pid, bolt://127.0.0.1:$PORT, home $HOME_DIR)"
      return 0
    fi
    log "pid $pid is alive but Bolt is not answering yet; waiting for it"
    wait_ready "$pid" "$t0" || exit 1
    log "ready: bolt://127.0.0.1:$PORT (pid $pid)"
    return 0
  fi
  if [[ -f "$PID_FILE" ]]; then
    # Stale pid file: a just-killed JVM may hold the port for a moment longer.
    local _
    for _ in $(seq 1 30); do port_open "$PORT" || break; sleep 0.1; done
    rm -f "$PID_FILE"
  fi

  if port_open "$PORT"; then
    die "port $PORT on 127.0.0.1 is already in use by another process (not the Neo4j of $HOME_DIR); set NEO4J_BOLT_PORT or stop that process"
  fi

  cmd_build quiet
  command -v "$JAVA" >/dev/null 2>&1 || die "java not found: install a JDK 17+"

  local xmx_mb xms_mb
  xmx_mb="$(size_mb "$HEAP")"
  xms_mb="$(size_mb "$HEAP_INITIAL")"
  (( xms_mb <= xmx_mb )) || HEAP_INITIAL="$HEAP"

  local -a jvm=(
    "-Xms$HEAP_INITIAL" "-Xmx$HEAP"
    -XX:+UseG1GC
    -XX:+ExitOnOutOfMemoryError
    -XX:-OmitStackTraceInFastThrow
    -XX:+UnlockExperimentalVMOptions
    -XX:+TrustFinalNonStaticFields
    -XX:+DisableExplicitGC
    -Djdk.nio.maxCachedBufferSize=1024
    -Dio.netty.tryReflectionSetAccessible=true
    -Dlog4j2.disable.jmx=true
    --add-opens=java.base/java.nio=ALL-UNNAMED
    --add-opens=java.base/java.io=ALL-UNNAMED
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens=java.base/java.lang=ALL-UNNAMED
    --add-opens=java.base/java.util=ALL-UNNAMED
    --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
    --enable-native-access=ALL-UNNAMED
    "-Dzimmer.neo4j.home=$HOME_DIR"
    "-Dzimmer.neo4j.port=$PORT"
    -Dzimmer.neo4j.auth=on
  )
  if [[ -n "${NEO4J_JAVA_OPTS:-}" ]]; then
    local -a extra
    read -r -a extra <<<"$NEO4J_JAVA_OPTS"
    jvm+=("${extra[@]}")
  fi

  mkdir -p -m 700 "$(dirname "$LOG_FILE")"
  if [[ -s "$LOG_FILE" ]]; then mv -f "$LOG_FILE" "$LOG_FILE.1"; fi
  (umask 077; : >"$LOG_FILE")

  log "starting Neo4j $NEO4J_VERSION on bolt://127.0.0.1:$PORT (home $HOME_DIR, heap $HEAP_INITIAL..$HEAP, pagecache ${PAGECACHE_MB}MB, log $LOG_FILE)"
  # setsid: own session, so the caller's Ctrl-C / terminal hangup does not reach it;
  # nohup: SIGHUP ignored. Neither forks here, so $! is the JVM's pid.
  NEO4J_HOME_DIR="$HOME_DIR" NEO4J_BOLT_PORT="$PORT" NEO4J_PAGECACHE_MB="$PAGECACHE_MB" NEO4J_PASSWORD="$NEO4J_PASSWORD" \
    nohup setsid "$JAVA" "${jvm[@]}" -cp "$BUILD_DIR/classes:$BUILD_DIR/lib/*" "$MAIN_CLASS" \
    >>"$LOG_FILE" 2>&1 </dev/null 8>&- 9>&- &
  pid=$!
  printf '%s\n' "$pid" >"$PID_FILE"

  wait_ready "$pid" "$t0" stop || exit 1
  log "ready in $(elapsed "$t0"): bolt://127.0.0.1:$PORT (pid $pid)"
}

cmd_stop() {
  setup_env
  lock_home
  local pid t0
  if ! pid="$(running_pid)"; then
    rm -f "$PID_FILE"
    log "not running (home $HOME_DIR)"
    return 0
  fi
  PORT="$(pid_port "$pid")"; PORT="${PORT:-${NEO4J_BOLT_PORT:-7687}}"
  t0=$(now_ms)
  log "stopping Neo4j (pid $pid, port $PORT) …"
  if stop_pid "$pid"; then
    rm -f "$PID_FILE"
    if grep -q '^NEO4J_STOPPED' "$LOG_FILE" 2>/dev/null; then
      log "stopped cleanly in $(elapsed "$t0")"
    else
      log "stopped in $(elapsed "$t0") (no NEO4J_STOPPED line in $LOG_FILE)"
    fi
  else
    rm -f "$PID_FILE"
    err "killed after ${STOP_TIMEOUT}s"
  fi
}

cmd_status() {
  setup_env
  local pid
  if pid="$(running_pid)"; then
    PORT="$(pid_port "$pid")"; PORT="${PORT:-${NEO4J_BOLT_PORT:-7687}}"
    if port_open "$PORT"; then
      log "running (pid $pid, bolt://127.0.0.1:$PORT, home $HOME_DIR)"
      return 0
    fi
    log "process $pid is alive but Bolt on port $PORT is not answering (starting or stuck)"
    return 1
  fi
  log "not running (home $HOME_DIR)"
  return 1
}

dispatch "$@"
