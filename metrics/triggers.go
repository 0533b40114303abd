package metrics

import "github.com/prometheus/client_golang/prometheus"

// registerTriggers adds the trigger and wake-up instruments. Labels are bounded: condition
// types (or manual for an invoke), fire outcomes, wake kinds.
func (m *Metrics) registerTriggers() {
	m.TriggerFires = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zimmer_trigger_fires_total",
		Help: "Trigger fires by condition type (manual for an invoke) and outcome (spawned, burst_notice, suppressed, delivered, queued, dropped, skipped, failed).",
	}, []string{"condition_type", "outcome"})
	m.WakeUps = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zimmer_wake_ups_total",
		Help: "Wake-ups by kind (at_time, on_state) and stage (armed, fired).",
	}, []string{"kind", "stage"})
	m.Registry.MustRegister(m.TriggerFires, m.WakeUps)
}

// ObserveTriggerFire counts one fire.
func (m *Metrics) ObserveTriggerFire(conditionType, outcome string) {
	m.TriggerFires.WithLabelValues(conditionType, outcome).Inc()
}

// ObserveWakeArmed counts one wake armed.
func (m *Metrics) ObserveWakeArmed(kind string) { m.WakeUps.WithLabelValues(kind, "armed").Inc() }

// ObserveWakeFired counts one wake that woke its session.
func (m *Metrics) ObserveWakeFired(kind string) { m.WakeUps.WithLabelValues(kind, "fired").Inc() }
