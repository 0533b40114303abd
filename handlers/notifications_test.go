package handlers_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
)

// mine is the active notifications about one session, as GET /notifications lists them.
func (e *env) mine(t *testing.T, sessionID, query string) []map[string]any {
	t.Helper()
	r := e.do(t, "GET", "/api/v1/notifications?per_page=100"+query, nil)
	if r.status != http.StatusOK {
		t.Fatalf("list: %d %s", r.status, r.raw)
	}
	var out []map[string]any
	for _, raw := range r.body["notifications"].([]any) {
		n := raw.(map[string]any)
		if fmt.Sprint(n["session_id"]) == sessionID {
			out = append(out, n)
		}
	}
	return out
}

func TestANotificationIsPushedListedReadAndDismissedOverREST(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	e := setup(t)
	s := e.create(t, map[string]any{"title": "Parser rewrite"})
	r := e.do(t, "POST", "/api/v1/notifications/push", map[string]any{"session_id": s["slug"], "message": "Needs the staging key"})
	if r.status != http.StatusOK || r.body["success"] != true || r.body["message"] != "Push notification queued" || fmt.Sprint(r.body["session_id"]) != id(s) {
		t.Fatalf("push by slug: %d %s", r.status, r.raw)
	}
	list := e.mine(t, id(s), "")
	if len(list) != 1 {
		t.Fatalf("want the pushed notification listed once, got %v", list)
	}
	n := list[0]
	keys := []string{"id", "session_id", "notification_type", "read", "stale", "created_at", "updated_at", "session"}
	for _, k := range keys {
		if _, ok := n[k]; !ok {
			t.Errorf("a listed notification lacks %q: %v", k, n)
		}
	}
	about := n["session"].(map[string]any)
	if n["notification_type"] != "custom_message" || n["read"] != false || n["stale"] != false ||
		fmt.Sprint(about["id"]) != id(s) || about["slug"] != s["slug"] || about["title"] != "Parser rewrite" || about["status"] != s["status"] {
		t.Fatalf("listed %v", n)
	}
	nid := fmt.Sprint(int64(n["id"].(float64)))
	path := "/api/v1/notifications/" + nid

	if r := e.do(t, "GET", path, nil); r.status != http.StatusOK || fmt.Sprint(r.body["notification"].(map[string]any)["id"]) != fmt.Sprint(n["id"]) {
		t.Fatalf("show: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "GET", "/api/v1/notifications/badge", nil); r.status != http.StatusOK || r.body["pending_count"].(float64) < 1 {
		t.Fatalf("badge: %d %s", r.status, r.raw)
	}
	r = e.do(t, "DELETE", path+"/dismiss", nil)
	if r.status != http.StatusUnprocessableEntity || r.body["error"] != "Cannot dismiss" || r.body["message"] != "Cannot dismiss unread notification" {
		t.Fatalf("dismissing an unread notification: %d %s", r.status, r.raw)
	}
	r = e.do(t, "PATCH", path+"/mark_read", nil)
	if r.status != http.StatusOK || r.body["notification"].(map[string]any)["read"] != true {
		t.Fatalf("mark_read: %d %s", r.status, r.raw)
	}
	if got := e.mine(t, id(s), "&status=unread"); len(got) != 0 {
		t.Fatalf("status=unread lists a read notification: %v", got)
	}
	if got := e.mine(t, id(s), "&status=read"); len(got) != 1 {
		t.Fatalf("status=read must list it: %v", got)
	}
	if r := e.do(t, "DELETE", path+"/dismiss", nil); r.status != http.StatusNoContent {
		t.Fatalf("dismissing a read notification: %d %s", r.status, r.raw)
	}
	for _, c := range []struct{ method, path string }{{"GET", path}, {"PATCH", path + "/mark_read"}, {"DELETE", path + "/dismiss"}, {"GET", "/api/v1/notifications/not-an-id"}} {
		r := e.do(t, c.method, c.path, nil)
		if r.status != http.StatusNotFound || r.body["error"] != "Not Found" {
			t.Errorf("%s %s of a missing notification: %d %s", c.method, c.path, r.status, r.raw)
		}
	}
	if r := e.do(t, "GET", path, nil); r.body["message"] != "Notification not found: "+nid {
		t.Errorf("a missing notification is named: %s", r.raw)
	}
}

func TestPushRefusesWhatItCannotSend(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	e := setup(t)
	s := e.create(t, map[string]any{})
	tests := []struct {
		name    string
		body    map[string]any
		status  int
		label   string
		message string
	}{
		{"no session", map[string]any{"message": "hi"}, 422, "Missing parameter", "session_id is required"},
		{"no message", map[string]any{"session_id": s["id"]}, 422, "Missing parameter", "message is required"},
		{"a blank message", map[string]any{"session_id": s["id"], "message": "  "}, 422, "Missing parameter", "message is required"},
		{"an unknown id", map[string]any{"session_id": 987654321987, "message": "hi"}, 404, "Not Found", "Session not found"},
		{"an unknown slug", map[string]any{"session_id": "no-such-session-slug", "message": "hi"}, 404, "Not Found", "Session not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, "POST", "/api/v1/notifications/push", tt.body)
			if r.status != tt.status || r.body["error"] != tt.label || r.body["message"] != tt.message {
				t.Fatalf("got %d %s", r.status, r.raw)
			}
		})
	}
	if got := e.mine(t, id(s), ""); len(got) != 0 {
		t.Fatalf("a refused push records nothing: %v", got)
	}
}

func TestMarkAllReadAndDismissAllReadReportCounts(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	e := setup(t)
	s := e.create(t, map[string]any{})
	for _, m := range []string{"a", "b"} {
		if r := e.do(t, "POST", "/api/v1/notifications/push", map[string]any{"session_id": s["id"], "message": m}); r.status != http.StatusOK {
			t.Fatalf("push: %d %s", r.status, r.raw)
		}
	}
	r := e.do(t, "PATCH", "/api/v1/notifications/mark_all_read", nil)
	if r.status != http.StatusOK || r.body["marked_count"].(float64) < 2 || fmt.Sprintf("%T", r.body["pending_count"]) != "float64" {
		t.Fatalf("mark_all_read: %d %s", r.status, r.raw)
	}
	for _, n := range e.mine(t, id(s), "") {
		if n["read"] != true {
			t.Fatalf("still unread after mark_all_read: %v", n)
		}
	}
	r = e.do(t, "DELETE", "/api/v1/notifications/dismiss_all_read", nil)
	if r.status != http.StatusOK || r.body["dismissed_count"].(float64) < 2 || fmt.Sprintf("%T", r.body["pending_count"]) != "float64" {
		t.Fatalf("dismiss_all_read: %d %s", r.status, r.raw)
	}
	if got := e.mine(t, id(s), ""); len(got) != 0 {
		t.Fatalf("read notifications remain after dismiss_all_read: %v", got)
	}
}
