package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// costCensusTTL is how old the spend figures may grow before a scrape asks for fresh ones.
const costCensusTTL = time.Minute

// costCensus is the last 24 hours' spend at list price in dollars, by model family and by agent
// root.
type costCensus struct {
	byModel, byRoot map[string]float64
}

// Costs is the spend gauges' collector. A scrape only reads the last census: a stale one starts
// a fresh read in the background, never more than one at a time, so a scrape never waits on the
// ledger. Before the first read has finished the gauges have no series.
type Costs struct {
	census          func(context.Context) (map[string]float64, map[string]float64, error)
	byModel, byRoot *prometheus.Desc

	mu       sync.Mutex
	at       time.Time
	inFlight bool
	last     *costCensus
}

// RegisterCosts exports the last 24 hours' spend at list price by model family and by agent
// root, computed by census off the scrape path. census bounds the label sets (the price list's
// families and the catalog's roots, each plus "other") and names every label, spent or not.
func (m *Metrics) RegisterCosts(census func(context.Context) (byModel, byAgentRoot map[string]float64, err error)) *Costs {
	c := &Costs{census: census,
		byModel: prometheus.NewDesc("zimmer_spend_24h_by_model_dollars", "Spend at list price over the last 24 hours, by model family (\"other\": a model without a rate).", []string{"model"}, nil),
		byRoot:  prometheus.NewDesc("zimmer_spend_24h_by_agent_root_dollars", "Spend at list price over the last 24 hours, by agent root (\"other\": a root not in the catalog).", []string{"agent_root"}, nil)}
	m.Registry.MustRegister(c)
	return c
}

// Refresh reads the census now and keeps it for the scrapes; a failed read keeps the last one.
func (c *Costs) Refresh(ctx context.Context) error {
	byModel, byRoot, err := c.census(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at, c.inFlight = time.Now(), false
	if err != nil {
		return err
	}
	c.last = &costCensus{byModel: byModel, byRoot: byRoot}
	return nil
}

func (c *Costs) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.byModel
	ch <- c.byRoot
}

func (c *Costs) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	if time.Since(c.at) > costCensusTTL && !c.inFlight {
		c.inFlight = true
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = c.Refresh(ctx) // a failed read shows as stale figures, retried on a later scrape
		}()
	}
	last := c.last
	c.mu.Unlock()
	if last == nil {
		return
	}
	for model, v := range last.byModel {
		ch <- prometheus.MustNewConstMetric(c.byModel, prometheus.GaugeValue, v, model)
	}
	for root, v := range last.byRoot {
		ch <- prometheus.MustNewConstMetric(c.byRoot, prometheus.GaugeValue, v, root)
	}
}
