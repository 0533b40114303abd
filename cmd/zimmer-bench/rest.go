package main

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/graph"
)

// restOverHTTP measures what a user of GET /api/v1/sessions/:id feels: it builds and starts a
// real `zimmer serve` on the bench fleet, times the endpoint from 1 and from many concurrent
// clients, and prints beside it the same read in process and its statements alone, so the cost
// of HTTP, rendering and the store are each visible.
func restOverHTTP(ctx context.Context, store *graph.Store, stats *statementStats, o options, f *fleet, out io.Writer) error {
	base, key, stop, err := serve(ctx, o)
	if err != nil {
		return err
	}
	defer stop()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.httpClients}}
	get := func(id int64) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/sessions/%d", base, id), nil)
		if err != nil {
			return err
		}
		req.Header.Set("X-API-Key", key)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET session %d: HTTP %d", id, resp.StatusCode)
		}
		return nil
	}
	r := rand.New(rand.NewPCG(o.seed, 5))
	random := func(r *rand.Rand) int64 { return 1 + r.Int64N(int64(o.sessions)) }
	fmt.Fprintf(out, "\nGET /api/v1/sessions/:id over HTTP from a real `zimmer serve` (client on the same machine):\n")
	time1(o.samples/2, func() error { return get(random(r)) })
	report(out, "GET /sessions/:id, random session, 1 client", time1(o.samples, func() error { return get(random(r)) }))
	report(out, "GET /sessions/:id, child of a wide router, 1 client", time1(o.samples, func() error { return get(f.wideChild(r)) }))
	n, elapsed, lat := hammer(o.httpClients, o.mcpDuration, func(r *rand.Rand) error { return get(random(r)) })
	report(out, fmt.Sprintf("GET /sessions/:id, random session, %d clients", o.httpClients), lat)
	fmt.Fprintf(out, "  %d requests in %s: %.0f requests/s\n", n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds())
	stats.reset()
	report(out, "  the read it serves, in process (one transaction)", time1(o.samples, func() error {
		_, err := store.SessionProvenance(ctx, random(r))
		return err
	}))
	stats.print(out, "  its statements alone (driver round trip each):", "    ")
	return nil
}

// serve builds cmd/zimmer and runs `zimmer serve` against the bench's stores on a free loopback
// port, in the bench's environment; it returns the base URL and its API key once /up answers.
func serve(ctx context.Context, o options) (base, key string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "zimmer-bench-serve-")
	if err != nil {
		return "", "", nil, err
	}
	root, err := moduleRoot()
	if err != nil {
		return "", "", nil, err
	}
	bin := filepath.Join(dir, "zimmer")
	build := exec.Command("go", "build", "-o", bin, "./cmd/zimmer")
	build.Dir = root
	if msg, err := build.CombinedOutput(); err != nil {
		return "", "", nil, fmt.Errorf("build zimmer: %v\n%s", err, msg)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", nil, err
	}
	addr := l.Addr().String()
	l.Close()
	key = crand.Text()
	cmd := exec.CommandContext(ctx, bin, "serve")
	cmd.Env = append(os.Environ(), "NEO4J_URI="+o.uri, "REDIS_URL="+o.redis, "API_KEYS="+key,
		"ZIMMER_HTTP_ADDR="+addr, "ZIMMER_DATA_DIR="+filepath.Join(dir, "data"), "ZIMMER_LOG_LEVEL=warn")
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return "", "", nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return "", "", nil, err
	}
	stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		logf.Close()
		os.RemoveAll(dir)
	}
	base = "http://" + addr
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(base + "/up"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base, key, stop, nil
			}
		}
		if time.Now().After(deadline) {
			stop()
			log, _ := os.ReadFile(logf.Name())
			return "", "", nil, fmt.Errorf("zimmer serve did not answer on %s within a minute:\n%s", addr, strings.TrimSpace(string(log)))
		}
	}
}
