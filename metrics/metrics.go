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
	Registry        *prometheus.Registry
	HTTPRequests    *prometheus.CounterVec
	HTTPDuration    *prometheus.HistogramVec
	Neo4jStatements *prometheus.HistogramVec
	SessionsCreated *prometheus.CounterVec
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
	}
	reg.MustRegister(m.HTTPRequests, m.HTTPDuration, m.Neo4jStatements, m.SessionsCreated)
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

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}
