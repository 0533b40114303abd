package orchestrator_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
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
