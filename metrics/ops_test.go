package metrics_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zimmerhq/zimmer/metrics"
)

// The fleet gauges read the stores at most once per ten seconds however often Prometheus
// scrapes, and a failed read exports nothing rather than a zero that looks like an empty fleet.
func TestTheFleetGaugesReadTheStoresOncePerInterval(t *testing.T) {
	m := metrics.New()
	var reads atomic.Int32
	m.RegisterFleet(func(context.Context) (map[string]int64, error) {
		reads.Add(1)
		return map[string]int64{"running": 3, "failed": 1}, nil
	}, func(context.Context) (bool, error) { return false, errors.New("redis is down") })
	want := `
# HELP zimmer_sessions Sessions in each status (read at most every 10 s).
# TYPE zimmer_sessions gauge
zimmer_sessions{status="failed"} 1
zimmer_sessions{status="running"} 3
`
	for range 5 {
		if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want), "zimmer_sessions", "zimmer_queue_recovery_mode"); err != nil {
			t.Fatal(err)
		}
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("five scrapes read the sessions %d times; want once", n)
	}
}

// A worker exports each lane it serves with its concurrency, and the tasks it runs there now.
func TestLaneSlotsCountWhatAWorkerRuns(t *testing.T) {
	m := metrics.New()
	l := m.RegisterLanes()
	l.Serving("agents", 8)
	doneA := l.Begin("agents")
	doneB := l.Begin("agents")
	doneA()
	if got := testutil.ToFloat64(l.InFlight.WithLabelValues("agents")); got != 1 {
		t.Fatalf("in flight %v; want 1", got)
	}
	doneB()
	if got, c := testutil.ToFloat64(l.InFlight.WithLabelValues("agents")), testutil.ToFloat64(l.Concurrency.WithLabelValues("agents")); got != 0 || c != 8 {
		t.Fatalf("in flight %v, concurrency %v; want 0 and 8", got, c)
	}
	var none *metrics.Lanes
	none.Serving("agents", 1)
	none.Begin("agents")()
}
