package metrics

import (
	"context"
	"strconv"
	"sync"
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
	probe func(context.Context) map[string]error

	mu    sync.Mutex
	at    time.Time
	state map[string]error
}

// RegisterStoreProbe exports whether each store the probe names (neo4j, redis) answers.
func (m *Metrics) RegisterStoreProbe(probe func(context.Context) map[string]error) {
	m.Registry.MustRegister(&storeUp{probe: probe,
		desc: prometheus.NewDesc("zimmer_store_up", "1 when the store answered this process's last ping (cached 10 s).", []string{"store"}, nil)})
}

func (s *storeUp) Describe(ch chan<- *prometheus.Desc) { ch <- s.desc }

func (s *storeUp) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	if time.Since(s.at) > storeProbeTTL {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		s.state, s.at = s.probe(ctx), time.Now()
		cancel()
	}
	state := s.state
	s.mu.Unlock()
	for name, err := range state {
		up := 0.0
		if err == nil {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(s.desc, prometheus.GaugeValue, up, name)
	}
}
