// Command zimmer is the orchestrator's one binary: `serve` runs the HTTP API, `worker` runs the
// job lanes, `migrate` applies the graph schema, `verify` checks the human-message hash chains;
// `sessions`, `tree` and `health` are a terminal's client of a running serve.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/config"
	"github.com/zimmerhq/zimmer/githubapi"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/handlers/web"
	"github.com/zimmerhq/zimmer/jobs"
	"github.com/zimmerhq/zimmer/jobs/notify"
	"github.com/zimmerhq/zimmer/jobs/runner"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
)

const usage = `usage: zimmer <command>

commands:
  serve     run the HTTP API (REST, health, metrics); applies the schema first
  worker    run the background job lanes
  migrate   apply the graph schema (constraints, indexes, id sequences) and exit
  verify    recompute every session's human-message hash chain; name each broken link and
            exit 1 if any

Configuration comes from the environment; see README.md.

` + clientUsage

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if clientCommands[os.Args[1]] {
		code := cli(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if err := run(ctx, os.Args[1], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zimmer:", err)
		os.Exit(1)
	}
}

// run executes one subcommand until ctx is cancelled.
func run(ctx context.Context, cmd string, getenv func(string) string, stderr io.Writer) error {
	switch cmd {
	case "serve", "worker", "migrate", "verify":
	case "-h", "--help", "help":
		fmt.Fprintln(stderr, usage)
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", cmd, usage)
	}
	tuneGC(cmd, getenv)
	cfg, err := config.Load(getenv, cmd == "serve")
	if err != nil {
		return err
	}
	log := newLogger(cfg, stderr).With("process", cmd)
	m := metrics.New()
	store, err := graph.Open(ctx, graph.Options{URI: cfg.Neo4jURI, User: cfg.Neo4jUser, Password: cfg.Neo4jPassword,
		Logger: log, Observer: m}, 60*time.Second)
	if err != nil {
		return err
	}
	defer store.Close(context.Background())
	switch cmd {
	case "migrate":
		n, err := store.Migrate(ctx)
		if err == nil {
			log.Info("schema applied", "statements", n)
		}
		return err
	case "verify":
		return verify(ctx, store, log, stderr)
	case "serve":
		return serve(ctx, cfg, log, m, store)
	default:
		return work(ctx, cfg, log, m, store)
	}
}

// tuneGC runs the long-running commands, serve and worker, at the service collector target.
func tuneGC(cmd string, getenv func(string) string) {
	if cmd == "serve" || cmd == "worker" {
		config.TuneGC(getenv)
	}
}

func serve(ctx context.Context, cfg config.Config, log *slog.Logger, m *metrics.Metrics, store *graph.Store) error {
	if _, err := store.Migrate(ctx); err != nil {
		return err
	}
	cat, err := liveCatalog(ctx, cfg, log)
	if err != nil {
		return err
	}
	queue, err := tasks.OpenQueue(cfg.RedisURL)
	if err != nil {
		return err
	}
	defer queue.Close()
	ops := orchestrator.New(orchestrator.Deps{Store: store, Queue: queue, Catalog: cat, Log: log, Observer: m,
		AdminUser: cfg.AdminUser, SlackMappedOnly: cfg.SlackMappedOnly, SlackWorkspaceURL: cfg.SlackWorkspaceURL, DataDir: cfg.DataDir, Variables: mcpVariables(cfg),
		OAuth: orchestrator.OAuthConfig{SecretKey: cfg.SecretKey, PublicURL: cfg.PublicURL},
		Quota: spotQuota(cfg), TokenBudgets: tokenBudgets(cfg), CatalogDir: cfg.CatalogDir, FleetScope: cfg.FleetScope})
	m.RegisterStoreProbe(ops.Health)
	engine := handlers.New(handlers.Deps{Ops: ops, Metrics: m, Log: log, APIKeys: cfg.APIKeys,
		Web:                web.Config{User: cfg.WebUser, Password: cfg.WebPassword, PublicURL: cfg.PublicURL, Stop: ctx.Done()},
		SlackSigningSecret: cfg.SlackSigningSecret})
	if !cfg.WebEnabled() {
		log.Warn("web UI off: set ZIMMER_WEB_USER and ZIMMER_WEB_PASSWORD to serve it")
	}
	log.Info("serving", "addr", cfg.HTTPAddr, "public_url", config.RedactURL(cfg.PublicURL), "neo4j", config.RedactURL(cfg.Neo4jURI),
		"redis", config.RedactURL(cfg.RedisURL))
	return listen(ctx, cfg, log, handlers.NewServer(cfg.HTTPAddr, engine))
}

func work(ctx context.Context, cfg config.Config, log *slog.Logger, m *metrics.Metrics, store *graph.Store) error {
	queue, err := tasks.OpenQueue(cfg.RedisURL)
	if err != nil {
		return err
	}
	defer queue.Close()
	if err := queue.Ping(ctx); err != nil {
		return fmt.Errorf("%w (start Redis with `make up`, or set REDIS_URL)", err)
	}
	cat, err := liveCatalog(ctx, cfg, log)
	if err != nil {
		return err
	}
	ops := orchestrator.New(orchestrator.Deps{Store: store, Queue: queue, Catalog: cat, Log: log, Observer: m, AdminUser: cfg.AdminUser,
		DataDir: cfg.DataDir, Variables: mcpVariables(cfg), OAuth: orchestrator.OAuthConfig{SecretKey: cfg.SecretKey, PublicURL: cfg.PublicURL},
		Quota: spotQuota(cfg), TokenBudgets: tokenBudgets(cfg), CatalogDir: cfg.CatalogDir, FleetScope: cfg.FleetScope})
	// The backlog is one queue for the whole graph: a scoped worker leaves it to the others.
	backlogEvery := tasks.BacklogEvery
	if cfg.FleetScope != "" {
		backlogEvery = 0
	}
	// The injected MCP entries carry each session's own token: the fleet's keys stay here.
	r, err := runner.New(ops, queue, log, runner.Options{DataDir: cfg.DataDir, PublicURL: cfg.PublicURL,
		MCPVariables: cfg.MCPVariables, SecretsFile: cfg.SecretsFile,
		Bins: map[string]string{catalog.RuntimeClaude: cfg.ClaudeBin, catalog.RuntimeCodex: cfg.CodexBin, catalog.RuntimePi: cfg.PiBin},
		Runs: m.RegisterRuns(), WorkspaceBudget: cfg.WorkspaceBudget, BacklogEvery: backlogEvery, SweepScope: cfg.FleetScope})
	if err != nil {
		return err
	}
	w := jobs.NewWorker(queue, log, cfg.ShutdownGrace)
	w.CountSlots(m.RegisterLanes())
	r.Register(w)
	jobs.RegisterChainCheck(w, ops, m.RegisterProvenance(), log)
	notify.New(ops, log, notify.Options{WebhookURL: cfg.PushWebhookURL, PublicURL: cfg.PublicURL, Metrics: m.Notifications}).Register(w)
	jobs.RegisterTriggers(w, ops, jobs.TriggerOptions{GitHub: githubapi.New(cfg.GitHubAPIURL, cfg.GitHubToken), Scope: cfg.FleetScope})
	jobs.RegisterQueueRecoveryCheck(w, queue, jobs.RecoveryCheckEvery)
	jobs.RegisterLedgerBackfill(w, ops)
	m.RegisterLaneDepths(queue.LaneDepths)
	m.RegisterStoreProbe(ops.Health)
	m.RegisterSpot(ops.SpotCensus)
	m.RegisterFleet(ops.SessionCensus, ops.QueueRecoveryOn)
	m.RegisterCosts(ops.CostCensus)
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	mux.HandleFunc("/up", func(rw http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(rw, `{"status":"ok"}`) })
	srv := handlers.NewServer(cfg.WorkerAddr, mux)
	errc := make(chan error, 1)
	go func() { errc <- listen(ctx, cfg, log, srv) }()
	log.Info("worker running", "metrics_addr", cfg.WorkerAddr, "data_dir", cfg.DataDir, "public_url", config.RedactURL(cfg.PublicURL),
		"push_webhook", cfg.PushWebhookURL != "")
	return errors.Join(w.Run(ctx), <-errc)
}

// verify checks every human-message chain in the graph and prints each session's first broken
// link (ids and the reason, never content).
func verify(ctx context.Context, store *graph.Store, log *slog.Logger, out io.Writer) error {
	breaks, err := orchestrator.New(orchestrator.Deps{Store: store, Log: log}).VerifyAllHumanMessages(ctx)
	if err != nil {
		return err
	}
	for _, b := range breaks {
		fmt.Fprintln(out, "broken:", b.Error())
	}
	if len(breaks) > 0 {
		return fmt.Errorf("%d session(s) have a broken human-message chain", len(breaks))
	}
	fmt.Fprintln(out, "every human-message chain recomputes")
	return nil
}

// catalogPoll is how often a catalog folder's files are checked for changes.
const catalogPoll = 5 * time.Second

// liveCatalog loads ZIMMER_CATALOG_DIR (a bad catalog stops the process) and reloads it while
// ctx lasts whenever its files change.
func liveCatalog(ctx context.Context, cfg config.Config, log *slog.Logger) (*catalog.Live, error) {
	cat, err := catalog.NewLive(cfg.CatalogDir, log)
	if err != nil {
		return nil, err
	}
	go cat.Watch(ctx, catalogPoll)
	return cat, nil
}

func mcpVariables(cfg config.Config) catalog.Variables {
	return catalog.Variables{SecretsFile: cfg.SecretsFile, Env: os.LookupEnv, Allowed: cfg.MCPVariables}
}

// listen serves until ctx ends, then drains in-flight requests within the grace period.
func listen(ctx context.Context, cfg config.Config, log *slog.Logger, srv *http.Server) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return fmt.Errorf("listen on %s: %w", srv.Addr, err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "addr", srv.Addr)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// spotQuota is the hand-set utilization the spot gate reads (ZIMMER_SPOT_UTILIZATION), if any.
func spotQuota(cfg config.Config) orchestrator.QuotaSource {
	if cfg.SpotUtilization == nil {
		return nil
	}
	q := orchestrator.StaticQuota{}
	for runtime, r := range cfg.SpotUtilization {
		q[runtime] = orchestrator.QuotaReading{FiveHourPct: r[0], WeeklyPct: r[1], Source: "manual (ZIMMER_SPOT_UTILIZATION)"}
	}
	return q
}

// tokenBudgets are the pools the spot gate reads off the token ledger (ZIMMER_SPOT_TOKEN_BUDGETS).
func tokenBudgets(cfg config.Config) map[string]orchestrator.TokenBudget {
	out := map[string]orchestrator.TokenBudget{}
	for runtime, b := range cfg.SpotTokenBudgets {
		out[runtime] = orchestrator.TokenBudget{FiveHour: b[0], Weekly: b[1]}
	}
	return out
}
