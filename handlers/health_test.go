package handlers_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startRedis runs a throwaway redis-server of this test's own, so stopping it disturbs nobody.
// Like every Redis Zimmer runs, it requires a password (from a config file, never argv); the
// returned URL carries it.
func startRedis(t *testing.T, password string) (url string, stop func()) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	conf := filepath.Join(t.TempDir(), "redis.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("requirepass %q\n", password)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("redis-server", conf, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server (installed by `make test`): %v", err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	t.Cleanup(stop)
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		if i > 100 {
			t.Fatal("redis-server did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Sprintf("redis://:%s@127.0.0.1:%d/0", password, port), stop
}

func TestDeepHealthIs503NamingRedisWhenRedisStops(t *testing.T) {
	t.Parallel()
	const password = "deep-health-redis-pw"
	url, stop := startRedis(t, password)
	e := setupWithRedis(t, url)
	if r := e.do(t, "GET", "/up/deep", nil); r.status != http.StatusOK || r.body["status"] != "ok" {
		t.Fatalf("with Redis up: %d %s", r.status, r.raw)
	}
	stop()
	r := e.do(t, "GET", "/up/deep", nil)
	if r.status != http.StatusServiceUnavailable || fmt.Sprint(r.body["failed"]) != "[redis]" {
		t.Fatalf("with Redis stopped: want 503 failed=[redis], got %d %s", r.status, r.raw)
	}
	if checks := r.body["checks"].(map[string]any); checks["neo4j"] != "ok" {
		t.Fatalf("neo4j still answers: %v", checks)
	}
	if strings.Contains(r.raw, password) {
		t.Fatalf("/up/deep echoes the Redis password: %s", r.raw)
	}
	if r := e.do(t, "GET", "/up", nil); r.status != http.StatusOK {
		t.Fatalf("liveness does not depend on Redis: %d", r.status)
	}
}
