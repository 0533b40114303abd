// Command zimmer-bench builds a synthetic fleet in a Neo4j of its own and measures the lineage
// operations against the performance targets: the hierarchy read behind GET /sessions/:id, an
// uncle-edge write with its exact cycle check, and the worst-case cycle check; then many
// concurrent writers, after which an independent check proves the graph is still acyclic.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zimmerhq/zimmer/config"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/lineage"
)

type options struct {
	sessions, samples, writers, acts int
	uri                              string
	seed                             uint64
	pairSeed                         uint64 // the uncle-edge writes' pairs; new each run
	mcpClients, httpClients          int
	mcpDuration                      time.Duration
	warmup                           time.Duration // reads before the timed ones
	runs                             int           // sessions in the runner load check (0 skips it)
	redis                            string        // the runner load check's Redis
}

func main() {
	// The measured service code runs in this process too (the store, the MCP surface), so it runs
	// with the collector target zimmer serve runs with.
	config.TuneGC(os.Getenv)
	var o options
	flag.IntVar(&o.sessions, "sessions", 100_000, "fleet size (1000000 is the size the latency targets are set for)")
	flag.IntVar(&o.samples, "samples", 2000, "timed samples per measurement")
	flag.IntVar(&o.writers, "writers", 16, "concurrent writers in the acyclicity run")
	flag.IntVar(&o.acts, "acts", 10_000, "uncle-edge acts in the acyclicity run")
	flag.StringVar(&o.uri, "neo4j", envOr("BENCH_NEO4J_URI", "bolt://127.0.0.1:37687"), "the benchmark's Neo4j")
	flag.Uint64Var(&o.seed, "seed", 7, "fleet shape seed")
	// The fleet is kept between runs, so pairs drawn from a fixed seed would find every edge
	// already written by the last run and time only the answer "already senior".
	flag.Uint64Var(&o.pairSeed, "pair-seed", 0, "seed of the uncle-edge writes' random pairs (0: a new one each run, printed)")
	flag.IntVar(&o.mcpClients, "mcp-clients", 16, "concurrent clients in the MCP tools/list run")
	flag.IntVar(&o.httpClients, "http-clients", 16, "concurrent clients in the GET /api/v1/sessions/:id run")
	flag.DurationVar(&o.mcpDuration, "mcp-duration", 5*time.Second, "length of each many-client run (MCP tools/list, GET /api/v1/sessions/:id)")
	flag.DurationVar(&o.warmup, "warmup", 20*time.Second, "random reads before the timed measurements, as a running service has had them (Neo4j compiles a statement's hot code over its first thousands of runs)")
	flag.IntVar(&o.runs, "runner-sessions", 100, "fake-agent sessions through one worker in the runner load check (0 skips it)")
	flag.StringVar(&o.redis, "redis", envOr("BENCH_REDIS_URL", "redis://127.0.0.1:36379/0"), "the runner load check's Redis, redis://:password@host:port/db (emptied first)")
	flag.Parse()
	if o.pairSeed == 0 {
		o.pairSeed = uint64(time.Now().UnixNano())
	}
	if err := run(context.Background(), o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "zimmer-bench:", err)
		os.Exit(1)
	}
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

func run(ctx context.Context, o options, out io.Writer) error {
	stats := &statementStats{d: map[string][]time.Duration{}}
	// Credentials from the environment only, never flags (argv shows in the process list).
	store, err := graph.Open(ctx, graph.Options{URI: o.uri, User: os.Getenv("BENCH_NEO4J_USER"), Password: os.Getenv("BENCH_NEO4J_PASSWORD"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Observer: stats}, 60*time.Second)
	if err != nil {
		return err
	}
	defer store.Close(ctx)
	if _, err := store.Migrate(ctx); err != nil {
		return err
	}
	f := shape(o.sessions, o.seed)
	if _, err := store.GetSession(ctx, int64(o.sessions)); errors.Is(err, graph.ErrNotFound) {
		if err := f.load(ctx, store); err != nil {
			return err
		}
	} else if err != nil {
		return err
	} else {
		fmt.Fprintf(out, "fleet of %d sessions already loaded\n", o.sessions)
	}
	fmt.Fprintf(out, "\nfleet: %s\n\n", f.forget())
	fmt.Fprintf(out, "%-58s %8s %8s %8s %8s\n", "measurement", "n", "p50", "p99", "max")
	r := rand.New(rand.NewPCG(o.seed, 99))
	random := func() int64 { return 1 + r.Int64N(int64(o.sessions)) }
	// The targets are for a running service: the first reads after Neo4j starts are shown, and
	// then reads warm the page cache, the query plans and the JVM's compiled code before anything
	// else is timed.
	report(out, "hierarchy read, random session, first reads after start", time1(o.samples/2, func() error {
		return hierarchyRead(ctx, store, random())
	}))
	warmed, took := warm(o.warmup, func() error { return hierarchyRead(ctx, store, random()) })
	fmt.Fprintf(out, "  (then %d reads in %s to warm up; what follows is a running service)\n", warmed, took.Round(time.Second))
	stats.reset()
	report(out, "hierarchy read (GET /sessions/:id), random session", time1(o.samples, func() error {
		return hierarchyRead(ctx, store, random())
	}))
	report(out, "hierarchy read, child of a wide router (150-node cap)", time1(o.samples, func() error {
		return hierarchyRead(ctx, store, f.wideChild(r))
	}))
	pairs := rand.New(rand.NewPCG(o.pairSeed, 99))
	written := map[graph.UncleResult]int{}
	made := &runEdges{}
	defer made.forget(ctx, store, o.writers, out)
	// The write path warms up as the reads did: its first writes after start are shown, then
	// random pairs are written for half the warm-up.
	write := func() error {
		a, b := f.uncle(pairs)
		res, err := store.RecordUncleEdge(ctx, a, b, "bench")
		written[res]++
		made.add(res, a, b)
		return err
	}
	report(out, "uncle-edge write, random pair, first writes after start", time1(o.samples/2, write))
	warmed, took = warm(o.warmup/2, write)
	fmt.Fprintf(out, "  (then %d writes in %s to warm up)\n", warmed, took.Round(time.Second))
	clear(written)
	report(out, "uncle-edge write with exact cycle check, random pair", time1(o.samples, write))
	fmt.Fprintf(out, "  (pairs seed %d; outcomes %v)\n", o.pairSeed, written)
	report(out, "worst-case cycle check: wide router → hot session", worstCase(ctx, store, f, o.samples/4))
	if err := costRollup(ctx, store, f, o.samples, out); err != nil {
		return err
	}
	stats.print(out, "\nper statement (all measurements above):", "  ")
	if err := restOverHTTP(ctx, store, stats, o, f, out); err != nil {
		return err
	}
	if err := mcpOverHTTP(ctx, store, o, out, random); err != nil {
		return err
	}
	if err := concurrent(ctx, store, o, f, made, out); err != nil {
		return err
	}
	return runnerLoad(ctx, store, o, out)
}

// statementStats collects per-statement latency, to show where a measurement's time goes.
type statementStats struct {
	mu sync.Mutex
	d  map[string][]time.Duration
}

func (s *statementStats) ObserveStatement(name string, d time.Duration, _ error) {
	s.mu.Lock()
	s.d[name] = append(s.d[name], d)
	s.mu.Unlock()
}

func (s *statementStats) reset() {
	s.mu.Lock()
	s.d = map[string][]time.Duration{}
	s.mu.Unlock()
}

// print writes each statement's timings since the last reset under heading, indented by indent.
func (s *statementStats) print(out io.Writer, heading, indent string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(out, "%s\n", heading)
	names := slices.Sorted(maps.Keys(s.d))
	for _, n := range names {
		report(out, indent+n, s.d[n])
	}
}

// hierarchyRead is the read behind GET /sessions/:id: the session and its hierarchy.
func hierarchyRead(ctx context.Context, store *graph.Store, id int64) error {
	_, _, err := store.SessionHierarchy(ctx, id)
	return err
}

// worstCase times writes whose reachability search must exhaust both a wide router's whole
// subtree and the hot session's many seniors before concluding there is no path; each new edge
// is removed again (untimed) so every sample does the full search.
func worstCase(ctx context.Context, store *graph.Store, f *fleet, n int) []time.Duration {
	var ds []time.Duration
	for i := range n {
		w := f.wide[i%len(f.wide)]
		start := time.Now()
		res, err := store.RecordUncleEdge(ctx, w, f.hot, "bench")
		ds = append(ds, time.Since(start))
		if err != nil {
			fmt.Fprintln(os.Stderr, "worst case:", err)
			return ds
		}
		if res != graph.UncleCreated {
			fmt.Fprintf(os.Stderr, "worst case: #%d → #%d was %s, not created: a path links them, so this is not the search it means to time (the fleet was changed outside the bench; build it again)\n", w, f.hot, res)
			return nil
		}
		if _, _, err := store.RemoveUncleEdge(ctx, w, f.hot, "bench", "bench"); err != nil {
			fmt.Fprintln(os.Stderr, "worst case cleanup:", err)
			return ds
		}
	}
	return ds
}

// concurrent runs many writers over random pairs, then proves acyclicity independently.
func concurrent(ctx context.Context, store *graph.Store, o options, f *fleet, made *runEdges, out io.Writer) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[graph.UncleResult]int{}
	var all []time.Duration
	start := time.Now()
	for w := range o.writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(o.pairSeed, uint64(w)))
			for range o.acts / o.writers {
				a, b := f.uncle(r)
				t0 := time.Now()
				res, err := store.RecordUncleEdge(ctx, a, b, "bench")
				d := time.Since(t0)
				made.add(res, a, b)
				mu.Lock()
				if err != nil {
					outcomes["error"]++
				} else {
					outcomes[res]++
				}
				all = append(all, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	report(out, fmt.Sprintf("uncle-edge write under %d concurrent writers", o.writers), all)
	fmt.Fprintf(out, "\n%d acts in %s (%.0f writes/s), outcomes %v\n", len(all), elapsed.Round(time.Millisecond),
		float64(len(all))/elapsed.Seconds(), outcomes)
	edges, err := store.LineageEdges(ctx)
	if err != nil {
		return err
	}
	if n := lineage.Unordered(edges); n != 0 {
		return fmt.Errorf("CYCLE: %d sessions cannot be ordered after the concurrent run", n)
	}
	fmt.Fprintf(out, "independent check (Kahn over all %d lineage edges): acyclic\n", len(edges))
	if outcomes["error"] > 0 {
		return fmt.Errorf("%d writes failed", outcomes["error"])
	}
	return nil
}

// warm calls fn for d, or until it fails; it returns the calls made and the time they took.
func warm(d time.Duration, fn func() error) (int, time.Duration) {
	start := time.Now()
	n := 0
	for time.Since(start) < d {
		if err := fn(); err != nil {
			fmt.Fprintln(os.Stderr, "warm-up:", err)
			break
		}
		n++
	}
	return n, time.Since(start)
}

// runEdges are the uncle edges a run created. They are removed when it ends, so every run
// measures the fleet as it was built: kept, the 10,000 or so random edges of each run had grown
// its uncle edges five-fold over a day of runs, and with them every hierarchy a read walks.
type runEdges struct {
	mu    sync.Mutex
	pairs [][2]int64
}

func (e *runEdges) add(res graph.UncleResult, senior, junior int64) {
	if res != graph.UncleCreated {
		return
	}
	e.mu.Lock()
	e.pairs = append(e.pairs, [2]int64{senior, junior})
	e.mu.Unlock()
}

// forget removes the run's edges with the given number of workers. They become former edges,
// which no walk and no cycle check reads. (An inversion's replaced edge is not put back: a run
// makes one or two.)
func (e *runEdges) forget(ctx context.Context, store *graph.Store, workers int, out io.Writer) {
	start := time.Now()
	var wg sync.WaitGroup
	var failed atomic.Int64
	next := make(chan [2]int64)
	for range workers {
		wg.Go(func() {
			for p := range next {
				if _, _, err := store.RemoveUncleEdge(ctx, p[0], p[1], "bench", "bench"); err != nil && !errors.Is(err, graph.ErrNotFound) {
					failed.Add(1)
				}
			}
		})
	}
	for _, p := range e.pairs {
		next <- p
	}
	close(next)
	wg.Wait()
	fmt.Fprintf(out, "\nremoved the %d uncle edges this run wrote in %s, so the next run measures the fleet as built",
		len(e.pairs), time.Since(start).Round(time.Second))
	if n := failed.Load(); n > 0 {
		fmt.Fprintf(out, " (%d removals failed)", n)
	}
	fmt.Fprintln(out)
}

func time1(n int, fn func() error) []time.Duration {
	ds := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := fn(); err != nil {
			fmt.Fprintln(os.Stderr, "sample failed:", err)
			continue
		}
		ds = append(ds, time.Since(start))
	}
	return ds
}

func report(out io.Writer, name string, ds []time.Duration) {
	if len(ds) == 0 {
		fmt.Fprintf(out, "%-58s %8d %8s %8s %8s\n", name, 0, "-", "-", "-")
		return
	}
	slices.Sort(ds)
	q := func(p float64) string {
		return fmt.Sprintf("%.2fms", float64(ds[min(len(ds)-1, int(p*float64(len(ds))))].Microseconds())/1000)
	}
	fmt.Fprintf(out, "%-58s %8d %8s %8s %8s\n", name, len(ds), q(0.50), q(0.99), q(1))
}
