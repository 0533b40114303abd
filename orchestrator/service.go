package orchestrator

import (
	"cmp"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
)

// Queue is the part of the job queue the operations use.
type Queue interface {
	EnqueueRunSession(ctx context.Context, p tasks.RunSession, taskID string) (string, error)
	EnqueueDrainMessages(ctx context.Context, sessionID int64) error
	EnqueueFireTrigger(ctx context.Context, p tasks.FireTrigger) error
	EnqueueSessionEvent(ctx context.Context, p tasks.SessionEvent, delay time.Duration) error
	EnqueueSessionEffects(ctx context.Context, sessionID int64, batch string) error
	EnqueueCleanupClone(ctx context.Context, p tasks.CleanupClone, taskID string) error
	EnqueueNeedsInputPush(ctx context.Context, sessionID int64, batch string) error
	EnqueueNotificationDelivery(ctx context.Context, notificationID int64) error
	EnqueueInference(ctx context.Context, typ string, sessionID int64) error
	TaskQueued(ctx context.Context, lane, taskID string) (bool, error)
	Ping(ctx context.Context) error

	// The health report and actions (orchestrator/health.go, health_actions.go).
	Health() ([]tasks.LaneHealth, error)
	Latency(ctx context.Context) (time.Duration, error)
	Recovery(ctx context.Context, now time.Time) (tasks.RecoveryStatus, error)
	EnterRecovery(ctx context.Context, now time.Time, ttl time.Duration, reason, by string) (tasks.RecoveryStatus, error)
	ExitRecovery(ctx context.Context, now time.Time) (tasks.RecoveryStatus, bool, error)
	TakeCooldown(ctx context.Context, action, caller string, period time.Duration) (bool, time.Duration, error)
	ReleaseCooldown(ctx context.Context, action, caller string) error
	MatchQueued(sc tasks.JobScope) (tasks.JobMatch, error)
	DiscardQueued(sc tasks.JobScope, expected int) (tasks.JobResult, error)
	RescheduleQueued(ctx context.Context, sc tasks.JobScope, expected int, at time.Time) (tasks.JobResult, error)
	// EnqueueLedgerBackfill queues the next slice of a token-ledger sweep (orchestrator/costs_backfill.go).
	EnqueueLedgerBackfill(ctx context.Context, run, cursor int64) error
	// The agent CLIs' status cache (orchestrator/clis.go).
	EnqueueCLIRefresh(ctx context.Context) error
	CLIStatuses(ctx context.Context) (map[string]tasks.CLIStatus, error)
	ClearCLIStatuses(ctx context.Context) error
}

// Observer receives the lineage and human-message measurements; metrics implement it.
type Observer interface {
	ObserveUncleEdge(outcome string)
	ObserveWalk(nodes int, truncated bool)
	// ObserveHumanMessage counts one human message recorded at a capture boundary.
	ObserveHumanMessage(channel string)
	// ObserveSessionCreated counts one create on any surface (result: created, replayed).
	ObserveSessionCreated(genesis, result string)
	// ObserveArchive counts one archive; forced means queued messages were discarded.
	ObserveArchive(forced bool)
}

type nopObserver struct{}

func (nopObserver) ObserveUncleEdge(string)              {}
func (nopObserver) ObserveWalk(int, bool)                {}
func (nopObserver) ObserveHumanMessage(string)           {}
func (nopObserver) ObserveSessionCreated(string, string) {}
func (nopObserver) ObserveArchive(bool)                  {}

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
	// TriggerSettle is how long a needs_input waits before it fires watchers, so a turn
	// boundary the session leaves at once is not taken for a rest (DefaultTriggerSettle).
	TriggerSettle time.Duration
	// Host is this machine as the runner records it beside an agent's pid (os.Hostname when
	// blank): the health cleanup signals processes recorded on it only.
	Host string
	// CatalogDir is ZIMMER_CATALOG_DIR, where a prices.json replaces the built-in price list;
	// "" is the built-in list.
	CatalogDir string
	// FleetScope narrows the health actions that act on the whole fleet (archive_old,
	// retry_sessions' recent failures, cleanup_processes) to sessions whose custom_metadata
	// mentions it, for a graph shared by independent tests; blank is every session.
	FleetScope string
	// OAuth configures the MCP servers' OAuth flow (ZIMMER_SECRET_KEY; blank turns it off).
	OAuth OAuthConfig
	// Quota is where the spot gate reads the runtime account pools' utilization; nil has no
	// reading (the gate is open on utilization, the ceiling still applies) unless TokenBudgets
	// name pools to read off the token ledger.
	Quota        QuotaSource
	TokenBudgets map[string]TokenBudget
}

// DefaultTriggerSettle outlasts the drain's delay: a session resting on a queued message is
// running again before its watchers look.
const DefaultTriggerSettle = tasks.DrainDelay + 5*time.Second

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
	settle          time.Duration
	host            string
	fleetScope      string
	quota           QuotaSource
	catalogDir      string
	effects         map[session.Effect]effectHandler // effectHandlers; a test may record instead
	oauth           *oauthFlow
}

// New builds the service.
func New(d Deps) *Service {
	s := &Service{store: d.Store, queue: d.Queue, catalog: d.Catalog, vars: d.Variables, log: d.Log, now: d.Now, obs: d.Observer,
		admin: roster.AdminKey(d.AdminUser), slackMappedOnly: d.SlackMappedOnly, slackWorkspace: d.SlackWorkspaceURL, dataDir: cmp.Or(d.DataDir, ".zimmer"),
		effects: effectHandlers, host: d.Host, fleetScope: d.FleetScope, quota: d.Quota, catalogDir: d.CatalogDir}
	if s.host == "" {
		s.host, _ = os.Hostname()
	}
	if s.quota == nil && len(d.TokenBudgets) > 0 {
		s.quota = &ledgerQuota{s: s, budgets: d.TokenBudgets}
	}
	if abs, err := filepath.Abs(s.dataDir); err == nil {
		s.dataDir = abs
	}
	s.settle = cmp.Or(d.TriggerSettle, DefaultTriggerSettle)
	if s.now == nil {
		s.now = time.Now
	}
	if s.obs == nil {
		s.obs = nopObserver{}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	var err error
	if s.oauth, err = newOAuthFlow(d.OAuth); err != nil {
		s.log.Error("OAuth for MCP servers is off", "err", err)
	}
	if s.OAuthEnabled() {
		s.vars.Credentials = s
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
