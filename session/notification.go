package session

import "time"

// Notification types (the original's set): a needs_input push is debounced and opt-in
// (PushNotificationsEnabled), a failure push is not; custom messages come from
// send_push_notification and the REST push route.
const (
	NotifySessionComplete    = "session_complete"
	NotifyNeedsInput         = "needs_input"
	NotifySessionFailed      = "session_failed"
	NotifyCustomMessage      = "custom_message"
	NotifyElicitationPending = "elicitation_pending"
)

// NotificationTypes lists every type.
var NotificationTypes = []string{NotifySessionComplete, NotifyNeedsInput, NotifySessionFailed, NotifyCustomMessage, NotifyElicitationPending}

// Outcomes of a notification's webhook delivery (Notification.Delivery).
const (
	DeliveryPending   = "pending"   // queued, not yet accepted by the webhook
	DeliveryDelivered = "delivered" // the webhook answered 2xx
	DeliveryFailed    = "failed"    // every retry failed
	DeliverySkipped   = "skipped"   // nothing to deliver to (no webhook), or stale before it went out
)

// Notification is one alert to the humans about a session. "Pending" means active (not stale)
// and unread; the badge counts those. A session's notifications go stale when it resumes or is
// unblocked, and are deleted when it is archived.
type Notification struct {
	ID        int64
	SessionID int64
	Type      string
	Message   string // the text of a custom message or elicitation; "" for the others
	Read      bool
	Stale     bool
	Delivery  string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Session is the session it is about as it is now; nil if it is gone.
	Session *Session
}

// Pending reports whether the notification still asks for attention.
func (n *Notification) Pending() bool { return !n.Read && !n.Stale }
