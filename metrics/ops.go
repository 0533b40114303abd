package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Operations: what an operator watches the fleet by. The fleet-wide gauges (sessions by status,
// queue recovery mode) are read from the stores at most every censusTTL, so a scrape never runs
// a query of its own; the lane gauges and the counters are kept in memory by the code that acts.

// censusTTL bounds how often a scrape reads the stores for a fleet-wide gauge.
const censusTTL = 10 * time.Second

// cached keeps a read's last answer for ttl: Prometheus scraping every few seconds costs at most
// one read per ttl. Scrapes that arrive during a read wait for it (at most 3 s) and share its
// answer rather than each reading a slow store again.
type cached[T any] struct {
	ttl  time.Duration
	read func(context.Context) (T, error)

	mu  sync.Mutex
	at  time.Time
	val T
	err error
}

func (c *cached[T]) get() (T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.at) > c.ttl {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		c.val, c.err = c.read(ctx)
		c.at = time.Now()
		cancel()
	}
	return c.val, c.err
}

// RegisterFleet exports the sessions in each status and whether queue recovery mode is on, each
// read at most every ten seconds; a failed read exports nothing for that scrape (the store-down
// alerts say why).
func (m *Metrics) RegisterFleet(sessions func(context.Context) (map[string]int64, error), recovery func(context.Context) (bool, error)) {
	m.Registry.MustRegister(&fleetCollector{
		sessions:  &cached[map[string]int64]{ttl: censusTTL, read: sessions},
		recovery:  &cached[bool]{ttl: censusTTL, read: recovery},
		byStatus:  prometheus.NewDesc("zimmer_sessions", "Sessions in each status (read at most every 10 s).", []string{"status"}, nil),
		recoverOn: prometheus.NewDesc("zimmer_queue_recovery_mode", "1 while queue recovery mode halts every lane but agents (read at most every 10 s).", nil, nil),
	})
}

type fleetCollector struct {
	sessions            *cached[map[string]int64]
	recovery            *cached[bool]
	byStatus, recoverOn *prometheus.Desc
}

func (c *fleetCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.byStatus
	ch <- c.recoverOn
}

func (c *fleetCollector) Collect(ch chan<- prometheus.Metric) {
	if counts, err := c.sessions.get(); err == nil {
		for status, n := range counts {
			ch <- prometheus.MustNewConstMetric(c.byStatus, prometheus.GaugeValue, float64(n), status)
		}
	}
	if on, err := c.recovery.get(); err == nil {
		ch <- prometheus.MustNewConstMetric(c.recoverOn, prometheus.GaugeValue, boolValue(on))
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Lanes are one worker's lane slots: its configured concurrency and the tasks it executes now,
// per lane. Summed over the workers they are the fleet's capacity and load.
type Lanes struct {
	Concurrency *prometheus.GaugeVec
	InFlight    *prometheus.GaugeVec
}

// RegisterLanes adds the lane-slot gauges.
func (m *Metrics) RegisterLanes() *Lanes {
	l := &Lanes{
		Concurrency: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "zimmer_lane_concurrency",
			Help: "Tasks this worker runs at once on a lane (its configured concurrency).",
		}, []string{"lane"}),
		InFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "zimmer_lane_in_flight",
			Help: "Tasks this worker is executing on a lane now.",
		}, []string{"lane"}),
	}
	m.Registry.MustRegister(l.Concurrency, l.InFlight)
	return l
}

// Serving records a lane this worker serves and its concurrency.
func (l *Lanes) Serving(lane string, concurrency int) {
	if l != nil {
		l.Concurrency.WithLabelValues(lane).Set(float64(concurrency))
		l.InFlight.WithLabelValues(lane).Add(0)
	}
}

// Begin counts a task starting on a lane; the returned func counts it done.
func (l *Lanes) Begin(lane string) (done func()) {
	if l == nil {
		return func() {}
	}
	g := l.InFlight.WithLabelValues(lane)
	g.Inc()
	return g.Dec
}

func healthActions(reg *prometheus.Registry) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zimmer_health_actions_total",
		Help: "Health actions (action_health and the REST health routes) by action and outcome (ok, rate_limited, unavailable, refused, error).",
	}, []string{"action", "outcome"})
	reg.MustRegister(c)
	return c
}

// ObserveHealthAction counts one health action; it makes Metrics an
// orchestrator.HealthActionObserver.
func (m *Metrics) ObserveHealthAction(action, outcome string) {
	m.HealthActions.WithLabelValues(action, outcome).Inc()
}

func troubles(reg *prometheus.Registry) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zimmer_turn_troubles_total",
		Help: "Agent turns that ended in trouble, by runtime, class (rate_limit, overloaded, auth, context, crash) and what the runner did (retry, compact, fail).",
	}, []string{"runtime", "class", "action"})
	reg.MustRegister(c)
	return c
}

// Trouble counts one turn that ended in trouble and what was done about it.
func (r *Runs) Trouble(runtime, class, action string) {
	if r != nil {
		r.Troubles.WithLabelValues(runtime, class, action).Inc()
	}
}
