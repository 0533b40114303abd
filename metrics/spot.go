package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
)

// RegisterSpot exports the spot gate's gauges, read from the graph at most every ten seconds:
// sessions the gate holds at their first start, by reason (a handful of fixed values), and
// the spot queue's length. A failed read exports nothing for that scrape.
func (m *Metrics) RegisterSpot(census func(context.Context) (map[string]int, int, error)) {
	read := func(ctx context.Context) (spotCensus, error) {
		held, queued, err := census(ctx)
		return spotCensus{held, queued}, err
	}
	m.Registry.MustRegister(&spotCollector{census: &cached[spotCensus]{ttl: censusTTL, read: read},
		held:   prometheus.NewDesc("zimmer_spot_sessions_held", "Sessions the spot gate holds at their first start, by reason.", []string{"reason"}, nil),
		queued: prometheus.NewDesc("zimmer_spot_queue_length", "Sessions parked in the spot queue, waiting for the spot scheduler.", nil, nil)})
}

type spotCensus struct {
	byWhy   map[string]int
	waiting int
}

type spotCollector struct {
	census       *cached[spotCensus]
	held, queued *prometheus.Desc
}

func (c *spotCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.held
	ch <- c.queued
}

func (c *spotCollector) Collect(ch chan<- prometheus.Metric) {
	census, err := c.census.get()
	if err != nil {
		return
	}
	for _, why := range []string{"at_utilization_limit", "fleet_at_cap"} {
		ch <- prometheus.MustNewConstMetric(c.held, prometheus.GaugeValue, float64(census.byWhy[why]), why)
	}
	ch <- prometheus.MustNewConstMetric(c.queued, prometheus.GaugeValue, float64(census.waiting))
}
