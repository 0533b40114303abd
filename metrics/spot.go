package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// spotCensusTTL bounds how often a scrape reads the graph for the spot gauges.
const spotCensusTTL = 10 * time.Second

// RegisterSpot exports the spot gate's gauges, read from the graph at most every ten seconds:
// sessions the gate holds at their first start, by reason (a handful of fixed values), and
// the spot queue's length. A failed read exports nothing for that scrape.
func (m *Metrics) RegisterSpot(census func(context.Context) (map[string]int, int, error)) {
	m.Registry.MustRegister(&spotCollector{census: census,
		held:   prometheus.NewDesc("zimmer_spot_sessions_held", "Sessions the spot gate holds at their first start, by reason.", []string{"reason"}, nil),
		queued: prometheus.NewDesc("zimmer_spot_queue_length", "Sessions parked in the spot queue, waiting for the spot scheduler.", nil, nil)})
}

type spotCollector struct {
	census       func(context.Context) (map[string]int, int, error)
	held, queued *prometheus.Desc

	mu      sync.Mutex
	at      time.Time
	ok      bool
	byWhy   map[string]int
	waiting int
}

func (c *spotCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.held
	ch <- c.queued
}

func (c *spotCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	if time.Since(c.at) > spotCensusTTL {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		held, queued, err := c.census(ctx)
		cancel()
		c.at, c.ok, c.byWhy, c.waiting = time.Now(), err == nil, held, queued
	}
	ok, held, queued := c.ok, c.byWhy, c.waiting
	c.mu.Unlock()
	if !ok {
		return
	}
	for _, why := range []string{"at_utilization_limit", "fleet_at_cap"} {
		ch <- prometheus.MustNewConstMetric(c.held, prometheus.GaugeValue, float64(held[why]), why)
	}
	ch <- prometheus.MustNewConstMetric(c.queued, prometheus.GaugeValue, float64(queued))
}
