// Package orchestratortest builds the shared operations on the real test Neo4j and Redis that
// `make test` starts, for every package whose tests drive operations or a whole server.
package orchestratortest

import (
	"cmp"
	"log/slog"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
)

// Options choose the queue and what the service is built with; zero values are the defaults.
type Options struct {
	RedisDB    int    // the calling package's own Redis database (each package its own)
	RedisURL   string // overrides RedisDB: a Redis of the test's own
	CatalogDir string // "" is the built-in catalog
	AdminUser  string
	// SlackMappedOnly is ZIMMER_SLACK_MAPPED_ONLY.
	SlackMappedOnly bool
	// SlackWorkspaceURL is ZIMMER_SLACK_WORKSPACE_URL.
	SlackWorkspaceURL string
	Observer          orchestrator.Observer
	Log               *slog.Logger // nil discards (graphtest.Logger)
	DataDir           string       // ZIMMER_DATA_DIR; "" is a fresh temporary directory
	// Variables is where readiness looks catalog ${VAR}s up (nothing resolves when zero).
	Variables catalog.Variables
	// Now is the service clock (time.Now when nil); TriggerSettle is how long a needs_input
	// waits before it fires watchers.
	Now           func() time.Time
	TriggerSettle time.Duration
	// Host is the machine the health cleanup signals processes on, and FleetScope the text a
	// session's custom_metadata must mention for the fleet-wide health actions to reach it. Both
	// default to a value of this service's own, so those actions never reach another test's
	// sessions (nor, by default, any).
	Host, FleetScope string
	// OAuth configures the MCP servers' OAuth flow (off when its SecretKey is blank).
	OAuth orchestrator.OAuthConfig
	// Quota is the spot gate's quota source (none when nil); TokenBudgets has it read the
	// token ledger instead.
	Quota        orchestrator.QuotaSource
	TokenBudgets map[string]orchestrator.TokenBudget
}

// Env is a service with the store and queue under it.
type Env struct {
	Ops   *orchestrator.Service
	Store *graph.Store
	Queue *tasks.Queue
	// DataDir is where the service reads transcripts: transcript.Path(DataDir, id).
	DataDir string
	// FleetScope is the text a session's custom_metadata must mention for the fleet-wide
	// actions (health actions, refresh_all) to reach it.
	FleetScope string
}

// New builds the service; the queue is closed when the test ends.
func New(t testing.TB, o Options) Env {
	t.Helper()
	store := graphtest.Store(t)
	url := o.RedisURL
	if url == "" {
		url = graphtest.RedisURL(o.RedisDB)
	}
	queue, err := tasks.OpenQueue(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Close() })
	cat, err := catalog.Load(o.CatalogDir)
	if err != nil {
		t.Fatal(err)
	}
	log := o.Log
	if log == nil {
		log = graphtest.Logger()
	}
	dir := o.DataDir
	if dir == "" {
		dir = t.TempDir()
	}
	fleet := cmp.Or(o.FleetScope, graphtest.Unique(t, "fleet"))
	ops := orchestrator.New(orchestrator.Deps{Store: store, Queue: queue, Catalog: cat, Log: log,
		Observer: o.Observer, AdminUser: o.AdminUser, SlackMappedOnly: o.SlackMappedOnly, SlackWorkspaceURL: o.SlackWorkspaceURL, DataDir: dir, Variables: o.Variables,
		Now: o.Now, TriggerSettle: o.TriggerSettle, CatalogDir: o.CatalogDir,
		Host: cmp.Or(o.Host, graphtest.Unique(t, "host")), FleetScope: fleet, OAuth: o.OAuth,
		Quota: o.Quota, TokenBudgets: o.TokenBudgets})
	return Env{Ops: ops, Store: store, Queue: queue, DataDir: dir, FleetScope: fleet}
}
