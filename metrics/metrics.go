// Package metrics owns Zimmer's Prometheus registry and the instruments every process exports.
// Labels never carry a session id: cardinality stays bounded by routes, statements and outcomes.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is one process's registry and instruments.
type Metrics struct {
	Registry         *prometheus.Registry
	HTTPRequests     *prometheus.CounterVec
	HTTPDuration     *prometheus.HistogramVec
	Neo4jStatements  *prometheus.HistogramVec
	SessionsCreated  *prometheus.CounterVec
	SessionsArchived *prometheus.CounterVec
	UncleEdges       *prometheus.CounterVec
	WalkNodes        prometheus.Histogram
	WalkTruncations  prometheus.Counter
	HumanMessages    *prometheus.CounterVec
	MCPCalls         *prometheus.CounterVec
	MCPDuration      *prometheus.HistogramVec
	Credentials      *prometheus.CounterVec // see provenance.go
	Notifications    *Notifications
	TriggerFires     *prometheus.CounterVec // metrics/triggers.go
	WakeUps          *prometheus.CounterVec
	HealthActions    *prometheus.CounterVec // metrics/ops.go
}

// New registers the Go and process collectors and Zimmer's own instruments.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		Registry: reg,
		HTTPRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zimmer_http_requests_total",
			Help: "HTTP requests by method, route template and status code.",
		}, []string{"method", "route", "status"}),
		HTTPDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "zimmer_http_request_duration_seconds",
			Help:    "HTTP request latency by method and route template.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method", "route"}),
		Neo4jStatements: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "zimmer_neo4j_statement_duration_seconds",
			Help:    "Neo4j statement latency by statement name and outcome (ok or error).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"statement", "outcome"}),
		SessionsCreated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zimmer_sessions_created_total",
			Help: "Sessions created, by genesis; replays of an idempotency key are counted as replayed.",
		}, []string{"genesis", "result"}),
		SessionsArchived: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zimmer_sessions_archived_total",
			Help: "Sessions archived; forced=true when queued messages were discarded.",
		}, []string{"forced"}),
	}
	m.Credentials = credentials(reg)
	m.HealthActions = healthActions(reg)
	m.UncleEdges = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zimmer_uncle_edge_outcomes_total",
		Help: "RecordUncleEdge decisions by outcome (created, inverted, already_senior, would_create_cycle, self, no_actor_declared, error).",
	}, []string{"outcome"})
	m.WalkNodes = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "zimmer_hierarchy_walk_nodes",
		Help:    "Sessions in each hierarchy walk.",
		Buckets: []float64{1, 2, 3, 5, 10, 20, 50, 100, 151},
	})
	m.WalkTruncations = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "zimmer_hierarchy_walk_truncations_total",
		Help: "Hierarchy walks cut by MAX_DEPTH (8) or MAX_NODES (150).",
	})
	m.HumanMessages = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zimmer_human_messages_total",
		Help: "Human messages recorded at a capture boundary, by channel (web_ui, slack).",
	}, []string{"channel"})
	m.MCPCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zimmer_mcp_tool_calls_total",
		Help: "MCP tools/call requests by tool and outcome (ok, tool_error: an isError result, protocol_error: a JSON-RPC error such as an unknown tool).",
	}, []string{"tool", "outcome"})
	m.MCPDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "zimmer_mcp_tool_call_duration_seconds",
		Help:    "MCP tool latency by tool, argument validation included.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"tool"})
	reg.MustRegister(m.HTTPRequests, m.HTTPDuration, m.Neo4jStatements, m.SessionsCreated, m.SessionsArchived,
		m.UncleEdges, m.WalkNodes, m.WalkTruncations, m.HumanMessages, m.MCPCalls, m.MCPDuration)
	m.Notifications = newNotifications(reg)
	m.registerTriggers()
	return m
}

// ObserveStatement records one Neo4j statement; it makes Metrics a graph.Observer.
func (m *Metrics) ObserveStatement(name string, d time.Duration, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.Neo4jStatements.WithLabelValues(name, outcome).Observe(d.Seconds())
}

// ObserveUncleEdge counts one RecordUncleEdge decision.
func (m *Metrics) ObserveUncleEdge(outcome string) { m.UncleEdges.WithLabelValues(outcome).Inc() }

// ObserveWalk records one hierarchy walk's size and whether it was truncated.
func (m *Metrics) ObserveWalk(nodes int, truncated bool) {
	m.WalkNodes.Observe(float64(nodes))
	if truncated {
		m.WalkTruncations.Inc()
	}
}

// ObserveHumanMessage counts one human message recorded at a capture boundary.
func (m *Metrics) ObserveHumanMessage(channel string) { m.HumanMessages.WithLabelValues(channel).Inc() }

// ObserveMCPCall records one tools/call; a protocol error (answered before any tool ran) adds
// no latency sample.
func (m *Metrics) ObserveMCPCall(tool, outcome string, d time.Duration) {
	m.MCPCalls.WithLabelValues(tool, outcome).Inc()
	if outcome != "protocol_error" {
		m.MCPDuration.WithLabelValues(tool).Observe(d.Seconds())
	}
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}
