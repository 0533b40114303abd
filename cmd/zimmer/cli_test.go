package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
)

// TestTheClientCommandsDriveALiveServe runs `zimmer serve` on the test stores and the client
// commands against it over HTTP, as a terminal would (the same cli entry point main calls).
func TestTheClientCommandsDriveALiveServe(t *testing.T) {
	o := graphtest.Neo4jOptions()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	const key = "cli-e2e-test-key-0123456789"
	env := map[string]string{"NEO4J_URI": o.URI, "NEO4J_USER": o.User, "NEO4J_PASSWORD": o.Password,
		"REDIS_URL": graphtest.RedisURL(13), "API_KEYS": key, "ZIMMER_HTTP_ADDR": addr, "ZIMMER_DATA_DIR": t.TempDir()}
	_, stop := startServe(t, env)
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("serve: %v", err)
		}
	})

	// The URL and key come from .zimmer/dev.env here, as after `make up`.
	dataDir := t.TempDir()
	devEnv := fmt.Sprintf("API_KEYS=%s,another-key\nZIMMER_HTTP_ADDR=%s\n", key, addr)
	if err := os.WriteFile(filepath.Join(dataDir, "dev.env"), []byte(devEnv), 0o600); err != nil {
		t.Fatal(err)
	}
	cliEnv := map[string]string{"ZIMMER_DATA_DIR": dataDir}
	zimmer := func(t *testing.T, wantCode int, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := cli(context.Background(), args, func(k string) string { return cliEnv[k] }, &out, &errOut); code != wantCode {
			t.Fatalf("zimmer %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, wantCode, out.String(), errOut.String())
		}
		return out.String() + errOut.String()
	}
	title := graphtest.Unique(t, "cli parent")
	var created struct{ Session struct{ ID int64 } }
	if err := json.Unmarshal([]byte(zimmer(t, 0, "sessions", "new", "--title", title, "--git-root", "file:///tmp/repo", "--json")), &created); err != nil || created.Session.ID == 0 {
		t.Fatalf("sessions new --json: %v", err)
	}
	parent := fmt.Sprint(created.Session.ID)
	childTable := zimmer(t, 0, "sessions", "new", "--title", "cli child", "--git-root", "file:///tmp/repo", "--parent", parent)
	m := regexp.MustCompile(`(?m)^id\s+(\d+)$`).FindStringSubmatch(childTable)
	if m == nil || !strings.Contains(childTable, "parent    "+parent) {
		t.Fatalf("sessions new (table):\n%s", childTable)
	}
	child := m[1]

	if list := zimmer(t, 0, "sessions"); !strings.Contains(list, "ID  ") || !strings.Contains(list, title) || !strings.Contains(list, "cli child") {
		t.Fatalf("sessions list:\n%s", list)
	}
	if show := zimmer(t, 0, "sessions", "show", child); !strings.Contains(show, "cli child") || !strings.Contains(show, "waiting") {
		t.Fatalf("sessions show:\n%s", show)
	}
	tree := zimmer(t, 0, "tree", child)
	if !strings.Contains(tree, "#"+parent+" "+title) || !strings.Contains(tree, "\n  #"+child+" cli child [waiting]  ←") {
		t.Fatalf("tree: want the child indented under its parent and marked:\n%s", tree)
	}
	if fu := zimmer(t, 0, "sessions", "follow-up", child, "carry on"); !strings.Contains(fu, "Follow-up prompt sent") {
		t.Fatalf("sessions follow-up:\n%s", fu)
	}
	if ar := zimmer(t, 0, "sessions", "archive", child, "--force"); !strings.Contains(ar, "Session moved to trash: #"+child) {
		t.Fatalf("sessions archive:\n%s", ar)
	}
	if h := zimmer(t, 0, "health"); !strings.Contains(h, "STATUS") || !strings.Contains(h, "queue recovery mode") {
		t.Fatalf("health:\n%s", h)
	}
	var report map[string]any
	if err := json.Unmarshal([]byte(zimmer(t, 0, "health", "--json")), &report); err != nil || report["health_report"] == nil {
		t.Fatalf("health --json: %v", err)
	}
	if miss := zimmer(t, 1, "sessions", "show", "9000000001"); !strings.Contains(miss, "the API answered 404") {
		t.Fatalf("unknown session: %s", miss)
	}
	cliEnv["ZIMMER_API_KEY"] = "wrong-key-0123456789abcdef"
	if denied := zimmer(t, 1, "sessions"); !strings.Contains(denied, "the API answered 401: Invalid or missing API key") {
		t.Fatalf("wrong key: %s", denied)
	}
}
