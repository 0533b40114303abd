package metrics

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The operations' own counts (orchestrator.Observer): creations and archives on every surface
// (REST, MCP, web, fork, triggers), counted where they happen rather than per transport.

// ObserveSessionCreated counts one create; result is created or replayed.
func (m *Metrics) ObserveSessionCreated(genesis, result string) {
	m.SessionsCreated.WithLabelValues(genesis, result).Inc()
}

// ObserveArchive counts one archive; forced means queued messages were discarded.
func (m *Metrics) ObserveArchive(forced bool) {
	m.SessionsArchived.WithLabelValues(strconv.FormatBool(forced)).Inc()
}

// storeProbeTTL is how long one probe of the stores answers scrapes: Prometheus scraping every
// few seconds costs at most one ping of each store this often.
const storeProbeTTL = 10 * time.Second

// storeUp exports zimmer_store_up{store}: 1 when the store answered its last ping.
type storeUp struct {
	desc  *prometheus.Desc
	state *cached[map[string]error]
}

// RegisterStoreProbe exports whether each store the probe names (neo4j, redis) answers.
func (m *Metrics) RegisterStoreProbe(probe func(context.Context) map[string]error) {
	m.Registry.MustRegister(&storeUp{
		state: &cached[map[string]error]{ttl: storeProbeTTL, read: func(ctx context.Context) (map[string]error, error) { return probe(ctx), nil }},
		desc:  prometheus.NewDesc("zimmer_store_up", "1 when the store answered this process's last ping (cached 10 s).", []string{"store"}, nil)})
}

func (s *storeUp) Describe(ch chan<- *prometheus.Desc) { ch <- s.desc }

func (s *storeUp) Collect(ch chan<- prometheus.Metric) {
	state, _ := s.state.get()
	for name, err := range state {
		ch <- prometheus.MustNewConstMetric(s.desc, prometheus.GaugeValue, boolValue(err == nil), name)
	}
}
