package queries

import _ "embed" // the statements below are embedded strings

// Notifications: records per session, read / stale / dismiss, the badge and delivery outcomes;
// and the spot scheduler's read of parked sessions.

// CreateNotification records a notification once per key.
//
//go:embed create_notification.cypher
var CreateNotification string

// GetNotification reads one notification.
//
//go:embed get_notification.cypher
var GetNotification string

// ListNotifications pages through active notifications.
//
//go:embed list_notifications.cypher
var ListNotifications string

// NotificationBadge counts pending notifications.
//
//go:embed notification_badge.cypher
var NotificationBadge string

// MarkNotificationRead marks one notification read.
//
//go:embed mark_notification_read.cypher
var MarkNotificationRead string

// MarkAllNotificationsRead marks every pending notification read.
//
//go:embed mark_all_notifications_read.cypher
var MarkAllNotificationsRead string

// DeleteNotification deletes one notification.
//
//go:embed delete_notification.cypher
var DeleteNotification string

// DismissReadNotifications deletes every active read notification.
//
//go:embed dismiss_read_notifications.cypher
var DismissReadNotifications string

// MarkSessionNotificationsStale marks a session's notifications stale.
//
//go:embed mark_session_notifications_stale.cypher
var MarkSessionNotificationsStale string

// DeleteSessionNotifications deletes an archived session's notifications.
//
//go:embed delete_session_notifications.cypher
var DeleteSessionNotifications string

// SetNotificationDelivery records a delivery outcome.
//
//go:embed set_notification_delivery.cypher
var SetNotificationDelivery string

// SpotParkedSessions finds sessions parked in the spot queue.
//
//go:embed spot_parked_sessions.cypher
var SpotParkedSessions string
