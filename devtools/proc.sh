# devtools/proc.sh: process helpers shared by the store scripts (neo4j.sh, redis.sh), which run
# standalone and so do not use lib.sh. Source it after setting SELF (the script's name in messages)
# and PID_FILE (in setup_env).

log() { printf '%s: %s\n' "$SELF" "$*"; }
err() { printf '%s: %s\n' "$SELF" "$*" >&2; }
die() { err "$*"; exit 1; }

now_ms() { date +%s%3N; }
elapsed() { # $1 = start ms
  local d=$(( $(now_ms) - $1 ))
  printf '%d.%01ds' $(( d / 1000 )) $(( (d % 1000) / 100 ))
}

# Alive, zombies excepted: an orphan may linger as a zombie where PID 1 does not
# reap. A zombie thread-group leader whose other threads are still exiting (a
# JVM after SIGKILL) still counts as alive: it holds its files and ports.
pid_alive() {
  local pid="$1" state tasks
  [[ -r "/proc/$pid/stat" ]] || return 1
  state="$(sed -e 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d ' ' -f 1)" || return 1
  [[ -n "$state" ]] || return 1
  if [[ "$state" == "Z" || "$state" == "X" ]]; then
    tasks="$(find "/proc/$pid/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)"
    (( tasks > 1 )) || return 1
  fi
  return 0
}

# Prints the live pid recorded in PID_FILE; the caller still guards against pid reuse.
recorded_pid() {
  local pid
  [[ -f "$PID_FILE" ]] || return 1
  pid="$(tr -dc '0-9' <"$PID_FILE")"
  [[ -n "$pid" ]] || return 1
  pid_alive "$pid" || return 1
  echo "$pid"
}

port_open() { # $1 = port
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# The script's header comment, up to `set -euo`, is its usage text.
usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
}

# dispatch runs the subcommand named by $1 (cmd_<name>), or prints the usage.
dispatch() {
  case "${1:-}" in
    -h | --help | help) usage ;;
    restart) cmd_stop; cmd_start ;;
    *)
      if [[ -n "${1:-}" ]] && declare -F "cmd_$1" >/dev/null; then "cmd_$1"; else usage >&2; exit 2; fi ;;
  esac
}
