// Package graphtest connects tests to the real Neo4j and Redis that `make test` starts, and
// builds fixtures through the real store. It never skips: without the services it fails and
// says what to run.
package graphtest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

var (
	once     sync.Once
	shared   *graph.Store
	setupErr error
)

// Neo4jURI is the test database's Bolt URI.
func Neo4jURI() string { return env("ZIMMER_TEST_NEO4J_URI", "bolt://127.0.0.1:17687") }

// Neo4jOptions connect to the test database with its credentials: it runs with auth on, like
// every Neo4j `make up` and `make test` start (ZIMMER_TEST_NEO4J_USER, ZIMMER_TEST_NEO4J_PASSWORD,
// both written by `make test` into .zimmer/test/test.env).
func Neo4jOptions() graph.Options {
	return graph.Options{URI: Neo4jURI(), User: env("ZIMMER_TEST_NEO4J_USER", "neo4j"),
		Password: os.Getenv("ZIMMER_TEST_NEO4J_PASSWORD"), Logger: Logger(),
		// Packages run in parallel on one database: each test binary keeps its deployment
		// settings (the spot policy, the genesis classes) on an AppSetting of its own.
		Settings: "test:" + filepath.Base(os.Args[0])}
}

// RedisURL is the test Redis, password included, with a database number of the caller's own,
// so packages that run in parallel never see each other's queues.
func RedisURL(db int) string {
	return fmt.Sprintf("%s/%d", env("ZIMMER_TEST_REDIS_URL", "redis://127.0.0.1:16379"), db)
}

// FlushRedis empties the caller's database of the test Redis, so a test starts from no queued
// tasks.
func FlushRedis(t testing.TB, db int) {
	t.Helper()
	opt, err := redis.ParseURL(RedisURL(db))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	defer c.Close()
	if err := c.FlushDB(context.Background()).Err(); err != nil {
		t.Fatalf("flush Redis db %d: %v", db, err)
	}
}

// RedisPassword is the test Redis's password, for tests that start a Redis of their own or
// prove that Redis refuses a client without it.
func RedisPassword() string { return os.Getenv("ZIMMER_TEST_REDIS_PASSWORD") }

func env(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

// Store returns a store on the test database with the schema applied, shared by the package's
// tests. Tests must use ids of their own and never wipe the database.
func Store(t testing.TB) *graph.Store {
	t.Helper()
	once.Do(func() {
		ctx := context.Background()
		shared, setupErr = graph.Open(ctx, Neo4jOptions(), 20*time.Second)
		if setupErr == nil {
			_, setupErr = shared.Migrate(ctx)
		}
	})
	if setupErr != nil {
		t.Fatalf("test Neo4j at %s is not usable: %v\nrun the tests with `make test`, which starts it (or load .zimmer/test/test.env)", Neo4jURI(), setupErr)
	}
	return shared
}

// Logger discards logs unless ZIMMER_TEST_LOG=1.
func Logger() *slog.Logger {
	if os.Getenv("ZIMMER_TEST_LOG") == "1" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// Unique returns a string unique to this test run, for slugs, keys and titles.
func Unique(t testing.TB, prefix string) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	seq++
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano(), seq)
}

var (
	mu  sync.Mutex
	seq int
)

// Draft is a minimal valid session to create; tests override what they care about.
func Draft() *session.Session {
	now := time.Now().UTC()
	return &session.Session{
		Status: session.StatusWaiting, AgentRuntime: "claude_code", GitRoot: "file:///tmp/repo", Branch: "main",
		ExecutionProvider: session.LocalFilesystem, IsAutonomous: true, HeartbeatInterval: 60,
		AutoCompactWindow: 1_000_000, Genesis: session.GenesisAPI, Visibility: "visible",
		Config: map[string]any{"model": "opus"}, Metadata: map[string]any{}, CustomMetadata: map[string]any{},
		MCPServers: []string{}, CatalogSkills: []string{}, CatalogHooks: []string{}, CatalogPlugins: []string{},
		CreatedAt: now, UpdatedAt: now,
	}
}

// Session creates a session through the real store and fails the test on error.
func Session(t testing.TB, s *graph.Store, edit func(*session.Session)) *session.Session {
	t.Helper()
	d := Draft()
	if edit != nil {
		edit(d)
	}
	out, err := s.CreateSession(context.Background(), d)
	if err != nil {
		t.Fatalf("create session fixture: %v", err)
	}
	return out.Session
}
