package metrics

import "github.com/prometheus/client_golang/prometheus"

// Notifications are the notification instruments: records by type, and webhook deliveries by
// type and outcome.
type Notifications struct {
	Created    *prometheus.CounterVec
	Deliveries *prometheus.CounterVec
}

// Delivery outcomes (the outcome label).
const (
	DeliveryDelivered     = "delivered"      // the webhook answered 2xx
	DeliveryRetried       = "retried"        // an attempt failed; it is tried again after a back-off
	DeliveryFailed        = "failed"         // the last attempt failed; the notification stays undelivered
	DeliverySkipped       = "skipped"        // stale, dismissed or deleted before it went out
	DeliveryNotConfigured = "not_configured" // no ZIMMER_PUSH_WEBHOOK_URL: recorded, not sent
)

func newNotifications(reg *prometheus.Registry) *Notifications {
	n := &Notifications{
		Created: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zimmer_notifications_total",
			Help: "Notifications recorded, by type (needs_input, session_failed, custom_message, …).",
		}, []string{"type"}),
		Deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zimmer_notification_deliveries_total",
			Help: "Push-webhook delivery attempts by notification type and outcome (delivered, retried, failed, skipped, not_configured).",
		}, []string{"type", "outcome"}),
	}
	reg.MustRegister(n.Created, n.Deliveries)
	return n
}

// ObserveNotification counts one notification recorded; it makes Metrics an
// orchestrator.NotificationObserver.
func (m *Metrics) ObserveNotification(notificationType string) {
	m.Notifications.Created.WithLabelValues(notificationType).Inc()
}

// ObserveDelivery counts one delivery attempt's outcome.
func (n *Notifications) ObserveDelivery(notificationType, outcome string) {
	if n != nil {
		n.Deliveries.WithLabelValues(notificationType, outcome).Inc()
	}
}
