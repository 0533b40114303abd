package metrics_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zimmerhq/zimmer/metrics"
)

// A scrape never reads the ledger itself: the first one starts a census in the background and
// exports nothing yet; later scrapes export the census read, every label included, without
// reading again while it is fresh.
func TestTheSpendGaugesAreReadOffTheScrapePath(t *testing.T) {
	m := metrics.New()
	var reads atomic.Int32
	release := make(chan struct{})
	m.RegisterCosts(func(context.Context) (map[string]float64, map[string]float64, error) {
		<-release // a slow ledger: the scrape must not wait for it
		reads.Add(1)
		return map[string]float64{"opus": 2.5, "other": 0}, map[string]float64{"zimmer": 2.5, "other": 0}, nil
	})
	if n, err := testutil.GatherAndCount(m.Registry, "zimmer_spend_24h_by_model_dollars"); err != nil || n != 0 {
		t.Fatalf("the first scrape, before any census: %d series, %v", n, err)
	}
	close(release)
	deadline := time.Now().Add(30 * time.Second)
	for reads.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	var models, roots int
	for time.Now().Before(deadline) && models == 0 {
		models, _ = testutil.GatherAndCount(m.Registry, "zimmer_spend_24h_by_model_dollars")
		roots, _ = testutil.GatherAndCount(m.Registry, "zimmer_spend_24h_by_agent_root_dollars")
		time.Sleep(10 * time.Millisecond)
	}
	if models != 2 || roots != 2 {
		t.Fatalf("after the census: %d model series, %d root series, want 2 each", models, roots)
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("the census was read %d times, want once while it is fresh", n)
	}
}
