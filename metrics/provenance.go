package metrics

import "github.com/prometheus/client_golang/prometheus"

// Provenance is what makes provenance verifiable observable: the periodic check of the
// human-message hash chains.
type Provenance struct {
	ChainBreaks prometheus.Gauge
	ChainChecks *prometheus.CounterVec
}

// RegisterProvenance adds the provenance instruments to the registry.
func (m *Metrics) RegisterProvenance() *Provenance {
	p := &Provenance{
		ChainBreaks: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zimmer_human_message_chain_breaks",
			Help: "Sessions whose human-message hash chain did not recompute at the last check (a record changed or removed in the store); alert on > 0.",
		}),
		ChainChecks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zimmer_human_message_chain_checks_total",
			Help: "Periodic checks of every human-message hash chain, by outcome (intact, broken, error).",
		}, []string{"outcome"}),
	}
	m.Registry.MustRegister(p.ChainBreaks, p.ChainChecks)
	return p
}

// credentials counts authenticated requests by the kind of credential they carried, so an
// operator sees how much of the fleet still calls with the fleet key.
func credentials(reg *prometheus.Registry) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zimmer_authenticated_requests_total",
		Help: "Authenticated REST and MCP requests by surface (rest, mcp) and credential (fleet_key, session_token).",
	}, []string{"surface", "credential"})
	reg.MustRegister(c)
	return c
}
