package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/config"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/roster"
)

func TestRunRefusesWhatItCannotStart(t *testing.T) {
	tests := []struct {
		name string
		cmd  string
		env  map[string]string
		want string
	}{
		{"an unknown command", "launch", nil, `unknown command "launch"`},
		{"serve without API keys", "serve", nil, "API_KEYS is empty"},
		{"a malformed Neo4j URI", "migrate", map[string]string{"NEO4J_URI": "nope"}, "NEO4J_URI"},
		{"a malformed Redis URL", "worker", map[string]string{"REDIS_URL": "redis://:hunter2-secret@"}, "REDIS_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(context.Background(), tt.cmd, func(k string) string { return tt.env[k] }, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want an error containing %q, got %v", tt.want, err)
			}
			if strings.Contains(err.Error(), "hunter2-secret") {
				t.Fatalf("the error echoes a password: %v", err)
			}
		})
	}
}

func TestHelpPrintsUsage(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), "help", nil, &out); err != nil || !strings.Contains(out.String(), "serve") {
		t.Fatalf("help: %v %q", err, out.String())
	}
}

func TestMigrateAppliesTheSchemaToARealNeo4j(t *testing.T) {
	o := graphtest.Neo4jOptions()
	env := map[string]string{"NEO4J_URI": o.URI, "NEO4J_USER": o.User, "NEO4J_PASSWORD": o.Password}
	var out bytes.Buffer
	if err := run(context.Background(), "migrate", func(k string) string { return env[k] }, &out); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if !strings.Contains(out.String(), "schema applied") {
		t.Fatalf("migrate logs what it did: %q", out.String())
	}
}

// lockedBuffer is the log of a process running in another goroutine.
// startServe runs `zimmer serve` with env until it logs that it is serving; stop ends it and
// returns what it returned.
func startServe(t *testing.T, env map[string]string) (*lockedBuffer, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := &lockedBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, "serve", func(k string) string { return env[k] }, log) }()
	stop := func() error { cancel(); return <-done }
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(log.String(), "msg=serving") {
		if time.Now().After(deadline) {
			_ = stop()
			t.Fatalf("serve did not start: %s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return log, stop
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestServeLogsItsStoresWithoutTheirPasswords(t *testing.T) {
	o := graphtest.Neo4jOptions()
	redisURL := graphtest.RedisURL(13)
	u, err := url.Parse(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	redisPassword, _ := u.User.Password()
	if redisPassword == "" || o.Password == "" {
		t.Fatal("the test stores carry no passwords: run the tests with `make test` (or load .zimmer/test/test.env)")
	}
	env := map[string]string{"NEO4J_URI": o.URI, "NEO4J_USER": o.User, "NEO4J_PASSWORD": o.Password, "REDIS_URL": redisURL,
		"API_KEYS": "serve-log-test-key-0123456789", "ZIMMER_HTTP_ADDR": "127.0.0.1:0", "ZIMMER_DATA_DIR": t.TempDir()}
	log, stop := startServe(t, env)
	if err := stop(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	for name, secret := range map[string]string{"Redis password": redisPassword, "Neo4j password": o.Password, "API key": env["API_KEYS"]} {
		if strings.Contains(log.String(), secret) {
			t.Errorf("the log shows the %s:\n%s", name, log.String())
		}
	}
	if !strings.Contains(log.String(), "redis://:xxxxx@") {
		t.Errorf("the log names the Redis it uses, password masked:\n%s", log.String())
	}
}

// TestVerifyNamesABrokenChain: `zimmer verify` fails naming the record edited directly in Neo4j.
func TestVerifyNamesABrokenChain(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	s := graphtest.Session(t, store, nil)
	id, err := store.RecordHumanMessage(ctx, roster.Message{SessionID: s.ID, Author: "tadasant", Channel: roster.ChannelWebUI,
		Content: "Ship it on Tuesday.", EntryPoint: "web_ui.follow_up", OccurredAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	graphtest.Cypher(t, "MATCH (h:HumanMessage {id: $id}) SET h.content = 'Ship it on Friday.'", map[string]any{"id": id})
	o := graphtest.Neo4jOptions()
	env := map[string]string{"NEO4J_URI": o.URI, "NEO4J_USER": o.User, "NEO4J_PASSWORD": o.Password}
	var out bytes.Buffer
	err = run(ctx, "verify", func(k string) string { return env[k] }, &out)
	want := fmt.Sprintf("broken: human-message record #%d (session #%d, link 1): its content no longer matches its digest", id, s.ID)
	if err == nil || !strings.Contains(out.String(), want) {
		t.Fatalf("verify: %v\n%s\nwant a line %q", err, out.String(), want)
	}
}

func TestTheServicesCollectLessOftenUnlessGOGCSaysOtherwise(t *testing.T) {
	for _, tc := range []struct {
		name, cmd, gogc string
		want            int
	}{
		{"serve", "serve", "", config.ServiceGCPercent},
		{"worker", "worker", "", config.ServiceGCPercent},
		{"serve with GOGC set", "serve", "50", 100},
		{"migrate, a one-off", "migrate", "", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prev := debug.SetGCPercent(100)
			tuneGC(tc.cmd, func(k string) string {
				if k == "GOGC" {
					return tc.gogc
				}
				return ""
			})
			if got := debug.SetGCPercent(prev); got != tc.want {
				t.Errorf("GC percent %d, want %d", got, tc.want)
			}
		})
	}
}
