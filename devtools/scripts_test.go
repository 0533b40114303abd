package devtools_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bash runs script with lib.sh sourced, in an environment holding only PATH, HOME and env, and
// returns the NAME=value lines it prints.
func bash(t *testing.T, script string, env ...string) map[string]string {
	t.Helper()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", `source "$LIB"; `+script)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LIB=" + mustAbs(t, "lib.sh")}, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	vars := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && !strings.Contains(k, " ") {
			vars[k] = v
		}
	}
	return vars
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

const printDevEnv = `dev_env "$DATA" >/dev/null
for v in API_KEYS NEO4J_USER NEO4J_PASSWORD REDIS_PASSWORD REDIS_URL; do printf '%s=%s\n' "$v" "${!v}"; done`

// make up and make down read their settings through dev_env.
func TestDevEnvGeneratesPrivateSecretsOnce(t *testing.T) {
	data := filepath.Join(t.TempDir(), "zimmer")
	first := bash(t, printDevEnv, "DATA="+data)
	for _, v := range []string{"API_KEYS", "NEO4J_PASSWORD", "REDIS_PASSWORD"} {
		if len(first[v]) < 32 {
			t.Errorf("%s=%q: want a generated secret", v, first[v])
		}
	}
	if first["NEO4J_USER"] != "neo4j" || first["REDIS_URL"] != "redis://:"+first["REDIS_PASSWORD"]+"@127.0.0.1:6379/0" {
		t.Errorf("NEO4J_USER=%q REDIS_URL=%q: want neo4j and a URL carrying the Redis password", first["NEO4J_USER"], first["REDIS_URL"])
	}
	for path, want := range map[string]os.FileMode{data: 0o700, filepath.Join(data, "logs"): 0o700, filepath.Join(data, "dev.env"): 0o600} {
		if got := mode(t, path); got != want {
			t.Errorf("%s has mode %o, want %o", path, got, want)
		}
	}
	again := bash(t, printDevEnv, "DATA="+data)
	for _, v := range []string{"API_KEYS", "NEO4J_PASSWORD", "REDIS_PASSWORD"} {
		if again[v] != first[v] {
			t.Errorf("%s changed on the second start: the stores would refuse the new value", v)
		}
	}
}

func TestDevEnvLetsTheEnvironmentWinOverTheFile(t *testing.T) {
	data := t.TempDir()
	file := filepath.Join(data, "dev.env")
	if err := os.WriteFile(file, []byte("# mine\nAPI_KEYS=from-the-file-0123456789\nNEO4J_PASSWORD='quoted-in-the-file'\nREDIS_PASSWORD=fromthefile\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := bash(t, printDevEnv, "DATA="+data, "API_KEYS=from-the-environment-0123")
	if got["API_KEYS"] != "from-the-environment-0123" {
		t.Errorf("API_KEYS=%q: `API_KEYS=… make up` must win over dev.env", got["API_KEYS"])
	}
	if got["NEO4J_PASSWORD"] != "quoted-in-the-file" || got["REDIS_URL"] != "redis://:fromthefile@127.0.0.1:6379/0" {
		t.Errorf("NEO4J_PASSWORD=%q REDIS_URL=%q: what the environment does not set comes from dev.env", got["NEO4J_PASSWORD"], got["REDIS_URL"])
	}
	if m := mode(t, file); m != 0o600 {
		t.Errorf("dev.env has mode %o, want 600", m)
	}
}

// redis.sh starts every dev and test Redis: with a password, kept out of the process list.
func TestRedisScriptRequiresThePassword(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	dir := filepath.Join(t.TempDir(), "redis")
	const password = "redis-script-test-pw"
	env := []string{"REDIS_DIR=" + dir, "REDIS_PORT=" + port, "REDIS_PASSWORD=" + password}
	t.Cleanup(func() { bash(t, `bash "$(dirname "$LIB")/redis.sh" stop >/dev/null`, env...) })
	got := bash(t, `bash "$(dirname "$LIB")/redis.sh" start >/dev/null
pid="$(cat "$REDIS_DIR/redis.pid")"
printf 'cmdline=%s\n' "$(tr '\0' ' ' </proc/$pid/cmdline)"
printf 'without=%s\n' "$(env -u REDISCLI_AUTH redis-cli -p "$REDIS_PORT" ping 2>&1 | tr -d '\n')"
printf 'with=%s\n' "$(REDISCLI_AUTH="$REDIS_PASSWORD" redis-cli -p "$REDIS_PORT" ping 2>&1 | tr -d '\n')"`, env...)
	if !strings.Contains(got["without"], "NOAUTH") || got["with"] != "PONG" {
		t.Errorf("PING without the password: %q, with it: %q; want NOAUTH and PONG", got["without"], got["with"])
	}
	if strings.Contains(got["cmdline"], password) {
		t.Errorf("the password shows in the process list: %s", got["cmdline"])
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "redis.conf"): 0o600, filepath.Join(dir, "redis.log"): 0o600} {
		if m := mode(t, path); m != want {
			t.Errorf("%s has mode %o, want %o", path, m, want)
		}
	}
}
