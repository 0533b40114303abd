package orchestrator_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// counts records what the operations report to their observer.
type counts struct {
	mu       sync.Mutex
	created  map[string]int // "genesis/result"
	archived map[bool]int
	health   map[string]int // "action/outcome"
}

func (c *counts) ObserveHealthAction(action, outcome string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.health[action+"/"+outcome]++
}

func (c *counts) ObserveUncleEdge(string)    {}
func (c *counts) ObserveWalk(int, bool)      {}
func (c *counts) ObserveHumanMessage(string) {}
func (c *counts) ObserveSessionCreated(genesis, result string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.created[genesis+"/"+result]++
}
func (c *counts) ObserveArchive(forced bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.archived[forced]++
}

// Creations and archives are counted where they happen, whatever surface asked: a fork (which
// no transport counted before) and a replayed create included.
func TestCreationsAndArchivesAreCountedByTheOperations(t *testing.T) {
	t.Parallel()
	c := &counts{created: map[string]int{}, archived: map[bool]int{}}
	env := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB, Observer: c})
	ctx := context.Background()
	key := graphtest.Unique(t, "observe")
	params := orchestrator.CreateParams{AgentRoot: &generalAgent, IdempotencyKey: &key, Genesis: session.GenesisAPI}
	first, err := env.Ops.Create(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Ops.Create(ctx, params); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(env.DataDir, "transcripts"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(transcript.Path(env.DataDir, first.Session.ID), []byte("{\"type\":\"system\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	zero := 0
	if _, err := env.Ops.Fork(ctx, first.Session.ID, &zero); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Ops.CreateMessage(ctx, first.Session.ID, orchestrator.MessageParams{Content: "queued"}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Ops.Archive(ctx, first.Session.ID, orchestrator.ArchiveParams{Force: true}); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	created, replayed := 0, 0
	for k, n := range c.created {
		if strings.HasSuffix(k, "/created") {
			created += n
		} else {
			replayed += n
		}
	}
	if created != 2 || c.created[string(session.GenesisAPI)+"/replayed"] != 1 || replayed != 1 || c.archived[true] != 1 {
		t.Fatalf("created %v (want the create and the fork, and one replay), archived %v (want one forced)", c.created, c.archived)
	}
}

// Health actions are counted by outcome where they run, so REST and MCP add up: one that ran,
// one inside the caller's cooldown, one refused for a wrong expected_count, and one Redis could
// not throttle.
func TestHealthActionsAreCountedByOutcome(t *testing.T) {
	c := &counts{health: map[string]int{}}
	env := newHealthEnv(t, orchestratortest.Options{Observer: c})
	ctx := context.Background()
	key := graphtest.Unique(t, "health-key")
	if _, err := env.Ops.ArchiveOld(asCaller(key), 365); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Ops.ArchiveOld(asCaller(key), 365); err == nil {
		t.Fatal("a second archive_old within the cooldown ran")
	}
	if _, err := env.Ops.DiscardQueuedJobs(ctx, tasks.JobScope{Type: tasks.TypeStatusSummary}, 5); err == nil {
		t.Fatal("a discard expecting 5 of an empty scope ran")
	}
	if _, err := env.Ops.EnterQueueRecovery(ctx, "counted", 0, "tester"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := env.Ops.ExitQueueRecovery(ctx); err != nil {
		t.Fatal(err)
	}
	env.redis.Stop()
	if _, err := env.Ops.CleanupProcesses(asCaller(key)); err == nil {
		t.Fatal("cleanup ran with Redis stopped")
	}
	want := map[string]int{"archive_old/ok": 1, "archive_old/rate_limited": 1, "discard_queued_jobs/refused": 1,
		"enter_queue_recovery_mode/ok": 1, "exit_queue_recovery_mode/ok": 1, "cleanup_processes/unavailable": 1}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !maps.Equal(c.health, want) {
		t.Fatalf("counted %v; want %v", c.health, want)
	}
}
