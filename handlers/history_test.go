package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs"
	"github.com/zimmerhq/zimmer/metrics"
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

// TestVerifyNamesTheRecordEditedInNeo4j: GET …/human_messages/verify answers intact for a chain
// as Zimmer wrote it, and names the record whose content was changed directly in the database.
func TestVerifyNamesTheRecordEditedInNeo4j(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.create(t, map[string]any{})
	path := "/api/v1/sessions/" + id(s) + "/human_messages/verify"
	if r := e.do(t, "GET", path, nil); r.status != http.StatusOK || r.body["intact"] != true || r.body["records"] != float64(0) {
		t.Fatalf("a session with no records: %d %s", r.status, r.raw)
	}
	for _, c := range []string{"Ship it on Tuesday.", "Use the blue button.", "Then tell Julie."} {
		e.say(t, s, c, time.Now())
	}
	r := e.do(t, "GET", path, nil)
	if r.body["intact"] != true || r.body["records"] != float64(3) || r.body["first_broken_link"] != nil {
		t.Fatalf("a chain as Zimmer wrote it: %s", r.raw)
	}
	msgs, err := e.store.HumanMessages(context.Background(), []int64{int64(s["id"].(float64))})
	if err != nil || len(msgs) != 3 {
		t.Fatalf("records: %v %v", msgs, err)
	}
	edited := msgs[1].ID
	graphtest.Cypher(t, "MATCH (h:HumanMessage {id: $id}) SET h.content = 'Use the red button.'", map[string]any{"id": edited})
	r = e.do(t, "GET", path, nil)
	link, _ := r.body["first_broken_link"].(map[string]any)
	if r.status != http.StatusOK || r.body["intact"] != false || link == nil || link["record_id"] != float64(edited) ||
		!strings.Contains(link["message"].(string), fmt.Sprintf("human-message record #%d (session #%s, link 2): its content no longer matches its digest", edited, id(s))) {
		t.Fatalf("after editing record #%d in Neo4j: %d %s", edited, r.status, r.raw)
	}
	if r := e.do(t, "GET", "/api/v1/sessions/999999999999/human_messages/verify", nil); r.status != http.StatusNotFound {
		t.Fatalf("an unknown session: %d", r.status)
	}
}

// TestThePeriodicCheckRaisesTheBreaksMetric: the chain check the worker runs every quarter hour
// finds a record deleted directly in the database, counts the broken chain in the breaks gauge
// and logs the link where it breaks.
func TestThePeriodicCheckRaisesTheBreaksMetric(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.create(t, map[string]any{})
	e.say(t, s, "one", time.Now())
	e.say(t, s, "two", time.Now())
	msgs, _ := e.store.HumanMessages(context.Background(), []int64{int64(s["id"].(float64))})
	graphtest.Cypher(t, "MATCH (h:HumanMessage {id: $id}) DETACH DELETE h", map[string]any{"id": msgs[1].ID})
	log, rec := graphtest.NewLogRecorder()
	m := metrics.New().RegisterProvenance()
	if err := jobs.CheckChains(context.Background(), e.ops, m, log); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(m.ChainBreaks); got < 1 {
		t.Fatalf("breaks gauge %v after a record was deleted", got)
	}
	want := fmt.Sprintf("session_id=%s record_id=%d link=1", id(s), msgs[0].ID)
	if logged := rec.Take(); !strings.Contains(logged, want) || !strings.Contains(logged, "a record after this one is missing") {
		t.Fatalf("the check's log does not name the break (%s):\n%s", want, logged)
	}
}
