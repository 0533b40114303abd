# devtools/lib.sh: shared helpers for up.sh, down.sh and test.sh (sourced, not run).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEVTOOLS="$ROOT/devtools"

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# need_go fails with a clear message when the Go toolchain is missing.
need_go() {
  command -v go >/dev/null 2>&1 || die "Go is not installed: install Go 1.26 or newer (see README.md)"
  command -v java >/dev/null 2>&1 || die "Java is not installed: install a Java 17 JDK (Debian: openjdk-17-jdk-headless)"
  command -v mvn >/dev/null 2>&1 || die "Maven is not installed: install Debian's maven package"
}

# pid_alive PIDFILE: true when the file names a live process.
pid_alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

# stop_pid NAME PIDFILE: SIGTERM, wait up to 30 s, then SIGKILL.
stop_pid() {
  local name="$1" file="$2" pid
  if ! pid_alive "$file"; then rm -f "$file"; return 0; fi
  pid="$(cat "$file")"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    printf 'warning: %s (pid %s) did not stop in 30 s; killing it\n' "$name" "$pid" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
  say "$name stopped"
}
