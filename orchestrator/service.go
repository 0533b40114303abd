package orchestrator

import (
	"cmp"
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/roster"
)

// Queue is the part of the job queue the operations use.
type Queue interface {
	EnqueueRunSession(ctx context.Context, p tasks.RunSession, taskID string) (string, error)
	EnqueueDrainMessages(ctx context.Context, sessionID int64) error
	TaskQueued(ctx context.Context, lane, taskID string) (bool, error)
	Ping(ctx context.Context) error
}

// Observer receives the lineage and human-message measurements; metrics implement it.
type Observer interface {
	ObserveUncleEdge(outcome string)
	ObserveWalk(nodes int, truncated bool)
	// ObserveHumanMessage counts one human message recorded at a capture boundary.
	ObserveHumanMessage(channel string)
}

type nopObserver struct{}

func (nopObserver) ObserveUncleEdge(string)    {}
func (nopObserver) ObserveWalk(int, bool)      {}
func (nopObserver) ObserveHumanMessage(string) {}

// Deps are the service's collaborators; Now and Observer may be nil. AdminUser is the roster
// key the web UI speaks for (ZIMMER_ADMIN_USER); blank means the default, tadasant.
// SlackMappedOnly refuses Slack messages from senders the roster does not map
// (ZIMMER_SLACK_MAPPED_ONLY).
type Deps struct {
	Store     *graph.Store
	Queue     Queue
	Catalog   catalog.Source // a *catalog.Catalog, or a *catalog.Live that reloads
	Log       *slog.Logger
	Now       func() time.Time
	Observer  Observer
	AdminUser string

	SlackMappedOnly bool
	// SlackWorkspaceURL (ZIMMER_SLACK_WORKSPACE_URL) is where Slack permalinks point; "" records none.
	SlackWorkspaceURL string
	// DataDir is ZIMMER_DATA_DIR: transcripts are read and written only at the paths derived
	// from it and a session's id. "" means ./.zimmer.
	DataDir string
	// Variables is where the readiness checks look catalog ${VAR}s up, the same chain a prepare
	// resolves them from (the secrets file, then the environment, under the allow-list).
	Variables catalog.Variables
}

// Service runs the shared operations. It is safe for concurrent use.
type Service struct {
	store   *graph.Store
	queue   Queue
	catalog catalog.Source
	vars    catalog.Variables
	log     *slog.Logger
	now     func() time.Time
	obs     Observer
	admin   string

	slackMappedOnly bool
	slackWorkspace  string
	dataDir         string
}

// New builds the service.
func New(d Deps) *Service {
	s := &Service{store: d.Store, queue: d.Queue, catalog: d.Catalog, vars: d.Variables, log: d.Log, now: d.Now, obs: d.Observer,
		admin: roster.AdminKey(d.AdminUser), slackMappedOnly: d.SlackMappedOnly, slackWorkspace: d.SlackWorkspaceURL, dataDir: cmp.Or(d.DataDir, ".zimmer")}
	if abs, err := filepath.Abs(s.dataDir); err == nil {
		s.dataDir = abs
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.obs == nil {
		s.obs = nopObserver{}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s
}

// Catalog is the catalog as it is now. An operation takes it once and reads that snapshot
// throughout; the next call may see a reloaded one.
func (s *Service) Catalog() *catalog.Catalog { return s.catalog.Current() }

// Health pings every dependency with a short deadline and returns each one's error (nil when it
// answered), keyed by name: neo4j, redis.
func (s *Service) Health(ctx context.Context) map[string]error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	out := map[string]error{}
	done := make(chan struct{}, 2)
	var neo, red error
	go func() { neo = s.store.Ping(ctx); done <- struct{}{} }()
	go func() { red = s.queue.Ping(ctx); done <- struct{}{} }()
	<-done
	<-done
	out["neo4j"], out["redis"] = neo, red
	return out
}
