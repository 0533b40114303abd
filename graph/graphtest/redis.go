package graphtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Redis is a redis-server of one test's own, so stopping it disturbs nobody. Like every Redis
// Zimmer runs it requires a password (from a config file, never argv); its data survives Stop
// and Start (append-only file, synced on every write), as a production Redis's does.
type Redis struct {
	URL  string // redis://:password@127.0.0.1:port/0
	t    testing.TB
	port int
	conf string
	cmd  *exec.Cmd
}

// StartRedis starts a Redis of the test's own, stopped when the test ends.
func StartRedis(t testing.TB, password string) *Redis {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "redis.conf")
	text := fmt.Sprintf("requirepass %q\ndir %q\nappendonly yes\nappendfsync always\nsave \"\"\n", password, dir)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &Redis{URL: fmt.Sprintf("redis://:%s@127.0.0.1:%d/0", password, port), t: t, port: port, conf: conf}
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// Start runs the server (again) and waits until it accepts connections.
func (r *Redis) Start() {
	r.t.Helper()
	r.cmd = exec.Command("redis-server", r.conf, "--port", fmt.Sprint(r.port), "--bind", "127.0.0.1")
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("start redis-server (installed by `make test`): %v", err)
	}
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.port)); err == nil {
			c.Close()
			return
		}
		if i > 100 {
			r.t.Fatal("redis-server did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop shuts the server down (SIGTERM: it writes its data first); a stopped one is left alone.
func (r *Redis) Stop() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Signal(os.Interrupt)
	_ = r.cmd.Wait()
	r.cmd = nil
}
