package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// asOfNodes is GET /sessions/:id?as_of=… answered: the ids in its hierarchy and how many human
// messages it carries.
func (e *env) asOfNodes(t *testing.T, s map[string]any, at time.Time) string {
	t.Helper()
	r := e.do(t, "GET", "/api/v1/sessions/"+id(s)+"?as_of="+url.QueryEscape(at.Format(time.RFC3339Nano)), nil)
	if r.status != http.StatusOK {
		t.Fatalf("as_of %s: %d %s", at, r.status, r.raw)
	}
	var ids []any
	for _, n := range r.body["session_hierarchy"].(map[string]any)["nodes"].([]any) {
		ids = append(ids, n.(map[string]any)["id"])
	}
	return fmt.Sprint(ids, " ", len(r.body["human_messages"].([]any)), " human message(s)")
}

// TestShowAsOfReturnsTheHierarchyAsItStoodThen: the same session read as of a time before and
// after a remove_uncle shows two different hierarchies, and the human messages said in the
// removed senior's session only while the edge stood.
func TestShowAsOfReturnsTheHierarchyAsItStoodThen(t *testing.T) {
	t.Parallel()
	e := setup(t)
	worker, other := e.create(t, map[string]any{"title": "Do it"}), e.create(t, map[string]any{"title": "Directs it"})
	e.uncleEdge(t, other, worker)
	e.say(t, other, "Ship it on Tuesday.", time.Now())
	tick := func() time.Time {
		time.Sleep(5 * time.Millisecond)
		at := time.Now()
		time.Sleep(5 * time.Millisecond)
		return at
	}
	linked := tick()
	if r := e.do(t, "DELETE", "/api/v1/sessions/"+id(worker)+"/uncle_links/"+id(other), nil); r.status != http.StatusNoContent {
		t.Fatalf("remove: %d %s", r.status, r.raw)
	}
	removed := tick()
	withOther := fmt.Sprintf("[%v %v] 1 human message(s)", worker["id"], other["id"]) // the origin (itself) first, then the other root
	alone := fmt.Sprintf("[%v] 0 human message(s)", worker["id"])
	if got := e.asOfNodes(t, worker, linked); got != withOther {
		t.Errorf("as of before the removal: %s, want %s", got, withOther)
	}
	if got := e.asOfNodes(t, worker, removed); got != alone {
		t.Errorf("as of after the removal: %s, want %s", got, alone)
	}
	if r := e.do(t, "GET", "/api/v1/sessions/"+id(worker), nil); len(r.body["session_hierarchy"].(map[string]any)["nodes"].([]any)) != 1 {
		t.Errorf("now, the removed edge still widens the hierarchy: %s", r.raw)
	}
	for _, c := range []struct {
		asOf    string
		status  int
		message string
	}{
		{"yesterday", http.StatusUnprocessableEntity, `as_of must be an RFC 3339 time such as 2026-01-02T15:04:05Z; "yesterday" is not one.`},
		{"2026-13-01T00:00:00Z", http.StatusUnprocessableEntity, `as_of must be an RFC 3339 time such as 2026-01-02T15:04:05Z; "2026-13-01T00:00:00Z" is not one.`},
		{"2001-01-01T00:00:00Z", http.StatusNotFound, fmt.Sprintf("Session #%s did not exist as of 2001-01-01T00:00:00Z.", id(worker))},
	} {
		r := e.do(t, "GET", "/api/v1/sessions/"+id(worker)+"?as_of="+url.QueryEscape(c.asOf), nil)
		if r.status != c.status || r.body["message"] != c.message {
			t.Errorf("as_of %q: %d %q, want %d %q", c.asOf, r.status, r.body["message"], c.status, c.message)
		}
	}
}
