package orchestratortest

import (
	"context"
	"testing"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// NotificationsAbout lists the active notifications about one session, newest first: the
// inbox is shared by every test, so a test looks only at its own session's.
func NotificationsAbout(t testing.TB, ops *orchestrator.Service, sessionID int64) []*session.Notification {
	t.Helper()
	list, _, err := ops.Notifications(context.Background(), orchestrator.NotificationListParams{PerPage: orchestrator.MaxPerPage})
	if err != nil {
		t.Fatal(err)
	}
	var out []*session.Notification
	for _, n := range list {
		if n.SessionID == sessionID {
			out = append(out, n)
		}
	}
	return out
}
