package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Runs are the session runner's instruments (the worker registers them once).
type Runs struct {
	Started  *prometheus.CounterVec
	Finished *prometheus.CounterVec
	Duration *prometheus.HistogramVec
	Troubles *prometheus.CounterVec // metrics/ops.go
}

// RegisterRuns adds the session runner's instruments to the registry.
func (m *Metrics) RegisterRuns() *Runs {
	r := &Runs{
		Started: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zimmer_session_runs_started_total",
			Help: "Agent turns a worker claimed and started, by runtime.",
		}, []string{"runtime"}),
		Finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zimmer_session_runs_finished_total",
			Help: "Agent turns that ended, by runtime and outcome (needs_input, handed_off, waiting, failed, superseded, handed_back).",
		}, []string{"runtime", "outcome"}),
		Duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "zimmer_session_run_duration_seconds",
			Help:    "Agent turn wall time from claim to end, by runtime and outcome.",
			Buckets: []float64{.1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400},
		}, []string{"runtime", "outcome"}),
	}
	m.Registry.MustRegister(r.Started, r.Finished, r.Duration)
	r.Troubles = troubles(m.Registry)
	return r
}

// LaneDepth is one queue lane as the job queue reports it.
type LaneDepth struct {
	Lane    string
	States  map[string]int // pending, active, scheduled, retry, archived
	Latency time.Duration  // age of the oldest pending task
	Paused  bool
}

// RegisterLaneDepths exports queue depth and latency per lane, read from the queue on every
// scrape (so the numbers are never older than the scrape). A failed read exports nothing and
// counts an error.
func (m *Metrics) RegisterLaneDepths(read func() ([]LaneDepth, error)) {
	m.Registry.MustRegister(&laneCollector{read: read,
		size:    prometheus.NewDesc("zimmer_queue_tasks", "Tasks in a queue lane by state.", []string{"lane", "state"}, nil),
		latency: prometheus.NewDesc("zimmer_queue_latency_seconds", "Age of the oldest pending task in a queue lane.", []string{"lane"}, nil),
		paused:  prometheus.NewDesc("zimmer_queue_paused", "1 when a queue lane is paused.", []string{"lane"}, nil),
		errors:  prometheus.NewCounter(prometheus.CounterOpts{Name: "zimmer_queue_inspect_errors_total", Help: "Scrapes whose queue read failed."}),
	})
}

type laneCollector struct {
	read                  func() ([]LaneDepth, error)
	size, latency, paused *prometheus.Desc
	errors                prometheus.Counter
}

func (c *laneCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.size
	ch <- c.latency
	ch <- c.paused
	c.errors.Describe(ch)
}

func (c *laneCollector) Collect(ch chan<- prometheus.Metric) {
	lanes, err := c.read()
	if err != nil {
		c.errors.Inc()
	}
	c.errors.Collect(ch)
	for _, l := range lanes {
		for state, n := range l.States {
			ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(n), l.Lane, state)
		}
		ch <- prometheus.MustNewConstMetric(c.latency, prometheus.GaugeValue, l.Latency.Seconds(), l.Lane)
		paused := 0.0
		if l.Paused {
			paused = 1
		}
		ch <- prometheus.MustNewConstMetric(c.paused, prometheus.GaugeValue, paused, l.Lane)
	}
}

// RunStarted counts a claimed turn.
func (r *Runs) RunStarted(runtime string) {
	if r != nil {
		r.Started.WithLabelValues(runtime).Inc()
	}
}

// RunFinished counts an ended turn and its wall time.
func (r *Runs) RunFinished(runtime, outcome string, d time.Duration) {
	if r != nil {
		r.Finished.WithLabelValues(runtime, outcome).Inc()
		r.Duration.WithLabelValues(runtime, outcome).Observe(d.Seconds())
	}
}
