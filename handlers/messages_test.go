package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
)

// withStatus puts a session in a status directly (no runner exists yet to make it running).
func (e *env) withStatus(t *testing.T, s map[string]any, st session.Status) {
	t.Helper()
	_, err := e.store.UpdateSession(context.Background(), int64(s["id"].(float64)), func(u *session.Session) error {
		u.Status = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sessionIn creates a session and puts it in st.
func (e *env) sessionIn(t *testing.T, st session.Status) (map[string]any, string) {
	t.Helper()
	s := e.create(t, map[string]any{})
	e.withStatus(t, s, st)
	return s, "/api/v1/sessions/" + id(s)
}

func (e *env) enqueue(t *testing.T, path, content string) map[string]any {
	t.Helper()
	r := e.do(t, "POST", path+"/enqueued_messages", map[string]any{"content": content})
	if r.status != http.StatusCreated {
		t.Fatalf("enqueue: %d %s", r.status, r.raw)
	}
	return r.body["enqueued_message"].(map[string]any)
}

// queue is the session's queue as "content@position:status" in position order.
func (e *env) queueOf(t *testing.T, path string) []string {
	t.Helper()
	r := e.do(t, "GET", path+"/enqueued_messages?per_page=100", nil)
	if r.status != http.StatusOK {
		t.Fatalf("list: %d %s", r.status, r.raw)
	}
	var out []string
	for _, m := range r.body["enqueued_messages"].([]any) {
		msg := m.(map[string]any)
		out = append(out, fmt.Sprintf("%s@%v:%s", msg["content"], msg["position"], msg["status"]))
	}
	return out
}

func (e *env) jobQueued(t *testing.T, taskID any) bool {
	t.Helper()
	s, ok := taskID.(string)
	if !ok {
		return false
	}
	queued, err := e.queue.TaskQueued(context.Background(), tasks.LaneAgents, s)
	if err != nil {
		t.Fatal(err)
	}
	return queued
}

func (e *env) timeline(t *testing.T, s map[string]any) string {
	t.Helper()
	logs, err := e.store.Logs(context.Background(), int64(s["id"].(float64)), "", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range logs {
		b.WriteString(l.Content + "\n")
	}
	return b.String()
}

func mid(m map[string]any) string { return fmt.Sprint(int64(m["id"].(float64))) }

func TestFollowUpToAnIdleSessionResumesItAndQueuesItsTurn(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, st := range []session.Status{session.StatusWaiting, session.StatusNeedsInput} {
		t.Run(string(st), func(t *testing.T) {
			_, path := e.sessionIn(t, st)
			r := e.do(t, "POST", path+"/follow_up", map[string]any{"prompt": "  carry on  "})
			if r.status != http.StatusOK || r.body["message"] != "Follow-up prompt sent" {
				t.Fatalf("follow_up: %d %s", r.status, r.raw)
			}
			got := r.session(t)
			if got["status"] != "running" || got["prompt"] != "carry on" {
				t.Fatalf("resumed with the stripped prompt written onto the session: %v %v", got["status"], got["prompt"])
			}
			if got["running_job_id"] == nil || got["running_job_id"] != got["job_id"] || !e.jobQueued(t, got["running_job_id"]) {
				t.Fatalf("the turn's job must be recorded and visible in the agents lane: %v", got["running_job_id"])
			}
			if q := e.queueOf(t, path); len(q) != 0 {
				t.Fatalf("a direct delivery queues nothing: %v", q)
			}
		})
	}
}

func TestTwoFollowUpsToAnIdleSessionQueueTwoDistinctTurns(t *testing.T) {
	t.Parallel()
	e := setup(t)
	_, path := e.sessionIn(t, session.StatusWaiting)
	first := e.do(t, "POST", path+"/follow_up", map[string]any{"prompt": "one"}).session(t)
	e.withStatus(t, first, session.StatusNeedsInput)
	second := e.do(t, "POST", path+"/follow_up", map[string]any{"prompt": "two"}).session(t)
	if first["running_job_id"] == second["running_job_id"] || !e.jobQueued(t, second["running_job_id"]) {
		t.Fatalf("each delivery has its own task id: %v then %v", first["running_job_id"], second["running_job_id"])
	}
}

func TestFollowUpToARunningSessionQueuesItAtTheNextPosition(t *testing.T) {
	t.Parallel()
	e := setup(t)
	_, path := e.sessionIn(t, session.StatusRunning)
	for i, prompt := range []string{"first", "second"} {
		r := e.do(t, "POST", path+"/follow_up", map[string]any{"prompt": prompt})
		if r.status != http.StatusAccepted ||
			r.body["message"] != "Message queued (session is running). It will be delivered when the current turn ends." {
			t.Fatalf("follow_up: %d %s", r.status, r.raw)
		}
		m := r.body["enqueued_message"].(map[string]any)
		if m["position"] != float64(i+1) || m["status"] != "pending" || m["id"] == nil {
			t.Fatalf("queued message %v", m)
		}
		if got := r.session(t); got["status"] != "running" || got["prompt"] != nil {
			t.Fatalf("queuing leaves the session alone: %v %v", got["status"], got["prompt"])
		}
	}
	if q := e.queueOf(t, path); !slices.Equal(q, []string{"first@1:pending", "second@2:pending"}) {
		t.Fatalf("queue %v", q)
	}
}

func TestForceImmediateFollowUpDeliversAheadOfTheQueue(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tests := []struct {
		status     session.Status
		wantMarker bool // a running turn is asked to end
	}{
		{session.StatusRunning, true},
		{session.StatusWaiting, false},
		{session.StatusNeedsInput, false},
	}
	for _, tc := range tests {
		t.Run(string(tc.status), func(t *testing.T) {
			_, path := e.sessionIn(t, tc.status)
			e.enqueue(t, path, "already queued")
			r := e.do(t, "POST", path+"/follow_up", map[string]any{"prompt": "stop and do this", "force_immediate": "true"})
			if r.status != http.StatusOK || r.body["message"] != "Follow-up prompt sent immediately" {
				t.Fatalf("force: %d %s", r.status, r.raw)
			}
			got := r.session(t)
			if got["status"] != "running" || !e.jobQueued(t, got["running_job_id"]) {
				t.Fatalf("the interrupt's turn must be queued: %v %v", got["status"], got["running_job_id"])
			}
			meta := got["metadata"].(map[string]any)
			if _, ok := meta["interrupt_requested_at"]; ok != tc.wantMarker {
				t.Fatalf("interrupt_requested_at present=%v, want %v", ok, tc.wantMarker)
			}
			if q := e.queueOf(t, path); !slices.Equal(q, []string{"already queued@1:pending"}) {
				t.Fatalf("the staged message is delivered and gone; the rest keep their order: %v", q)
			}
		})
	}
}

func TestFollowUpIsRefusedForFailedAndArchivedSessionsOnEveryPath(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, st := range []session.Status{session.StatusFailed, session.StatusArchived} {
		for _, force := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s force=%v", st, force), func(t *testing.T) {
				_, path := e.sessionIn(t, st)
				r := e.do(t, "POST", path+"/follow_up", map[string]any{"prompt": "hello", "force_immediate": force})
				if r.status != 422 || r.body["error"] != "Cannot send follow-up" || !strings.Contains(r.raw, string(st)) {
					t.Fatalf("want 422 Cannot send follow-up, got %d %s", r.status, r.raw)
				}
				if q := e.queueOf(t, path); len(q) != 0 {
					t.Fatalf("a refused follow-up leaves nothing behind: %v", q)
				}
			})
		}
	}
}

func TestFollowUpGoalReplacesWhenNonBlankAndLeavesWhenBlank(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tests := []struct {
		name   string
		status session.Status
		force  bool
		goal   any // nil ⇒ omitted
		want   string
	}{
		{"direct, new goal", session.StatusWaiting, false, "ship the fix", "ship the fix"},
		{"direct, blank goal", session.StatusNeedsInput, false, "   ", "original goal"},
		{"direct, no goal", session.StatusWaiting, false, nil, "original goal"},
		{"interrupt, new goal", session.StatusRunning, true, "ship the fix", "ship the fix"},
		{"interrupt, blank goal", session.StatusRunning, true, "", "original goal"},
		{"queued, new goal waits for delivery", session.StatusRunning, false, "ship the fix", "original goal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := e.create(t, map[string]any{"goal": "original goal"})
			e.withStatus(t, s, tc.status)
			body := map[string]any{"prompt": "go", "force_immediate": tc.force}
			if tc.goal != nil {
				body["goal"] = tc.goal
			}
			r := e.do(t, "POST", "/api/v1/sessions/"+id(s)+"/follow_up", body)
			if r.status >= 300 {
				t.Fatalf("follow_up: %d %s", r.status, r.raw)
			}
			if got := r.session(t)["goal"]; got != tc.want {
				t.Fatalf("goal %v, want %q", got, tc.want)
			}
		})
	}
}

func TestAQueuedFollowUpsGoalReplacesTheSessionsWhenDelivered(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.create(t, map[string]any{"goal": "original goal"})
	e.withStatus(t, s, session.StatusRunning)
	path := "/api/v1/sessions/" + id(s)
	r := e.do(t, "POST", path+"/follow_up", map[string]any{"prompt": "next", "goal": "new goal"})
	m := r.body["enqueued_message"].(map[string]any)
	r = e.do(t, "POST", path+"/enqueued_messages/"+mid(m)+"/interrupt", nil)
	if r.status != 200 || r.session(t)["goal"] != "new goal" {
		t.Fatalf("deliver: %d %s", r.status, r.raw)
	}
}

func TestFollowUpRejectsBadInput(t *testing.T) {
	t.Parallel()
	e := setup(t)
	_, path := e.sessionIn(t, session.StatusWaiting)
	tests := []struct {
		name   string
		path   string
		body   any
		status int
		want   string
	}{
		{"missing prompt", path, map[string]any{}, 422, "Prompt can't be blank"},
		{"blank prompt", path, map[string]any{"prompt": " \n "}, 422, "Prompt can't be blank"},
		{"prompt of the wrong type", path, map[string]any{"prompt": 7}, 422, "prompt must be a string"},
		{"oversized prompt", path, map[string]any{"prompt": strings.Repeat("é", session.MaxPrompt+1)}, 422, "Prompt is too long (maximum is 500000 characters)"},
		{"oversized goal", path, map[string]any{"prompt": "x", "goal": strings.Repeat("g", session.MaxGoal+1)}, 422, "Goal is too long"},
		{"unknown session", "/api/v1/sessions/999999999999", map[string]any{"prompt": "x"}, 404, "Session not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(t, "POST", tc.path+"/follow_up", tc.body)
			if r.status != tc.status || !strings.Contains(r.body["message"].(string), tc.want) {
				t.Fatalf("want %d %q, got %d %s", tc.status, tc.want, r.status, truncate(r.raw))
			}
		})
	}
	if r := e.do(t, "GET", path, nil); r.session(t)["status"] != "waiting" {
		t.Fatalf("rejected follow-ups must not resume the session: %s", r.raw)
	}
}

func TestActingSessionIDRecordsAnUncleEdgeOnlyWhenItNamesASession(t *testing.T) {
	t.Parallel()
	e := setup(t)
	senior := e.create(t, map[string]any{})
	tests := []struct {
		name     string
		acting   any
		recorded bool
	}{
		{"a number", senior["id"], true},
		{"a string of digits", id(senior), true},
		{"not a number", "session-seven", false},
		{"an unknown session", 999999999999, false},
		{"a boolean", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			junior, path := e.sessionIn(t, session.StatusNeedsInput)
			r := e.do(t, "POST", path+"/follow_up", map[string]any{"prompt": "from a senior", "acting_session_id": tc.acting})
			if r.status != 200 || r.session(t)["status"] != "running" {
				t.Fatalf("the delivery lands whatever acting_session_id says: %d %s", r.status, r.raw)
			}
			if got := strings.Contains(e.timeline(t, junior), "Uncle edge recorded"); got != tc.recorded {
				t.Fatalf("uncle edge recorded=%v, want %v:\n%s", got, tc.recorded, e.timeline(t, junior))
			}
		})
	}
}

func TestEnqueuedMessageCreateShowAndList(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s, path := e.sessionIn(t, session.StatusRunning)
	r := e.do(t, "POST", path+"/enqueued_messages", map[string]any{"content": "  later  ", "goal": "a goal", "origin": "automated_pr_merged"})
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	m := r.body["enqueued_message"].(map[string]any)
	for k, want := range map[string]any{"session_id": s["id"], "content": "later", "goal": "a goal", "position": float64(1),
		"status": "pending", "origin": "caller"} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	if m["created_at"] == nil || m["updated_at"] == nil {
		t.Errorf("timestamps missing: %v", m)
	}
	if r := e.do(t, "GET", path+"/enqueued_messages/"+mid(m), nil); r.status != 200 || r.body["enqueued_message"].(map[string]any)["id"] != m["id"] {
		t.Fatalf("show: %d %s", r.status, r.raw)
	}
	for range 2 {
		e.enqueue(t, path, "more")
	}
	r = e.do(t, "GET", path+"/enqueued_messages?per_page=2&page=2&status=pending", nil)
	page := r.body["pagination"].(map[string]any)
	if r.status != 200 || len(r.body["enqueued_messages"].([]any)) != 1 || page["total_count"] != float64(3) ||
		page["total_pages"] != float64(2) || page["page"] != float64(2) || page["per_page"] != float64(2) {
		t.Fatalf("list: %d %s", r.status, r.raw)
	}
}

func TestEnqueuedMessageRejectsBadInputAndUnknownRecords(t *testing.T) {
	t.Parallel()
	e := setup(t)
	_, path := e.sessionIn(t, session.StatusRunning)
	m := e.enqueue(t, path, "keep me")
	_, other := e.sessionIn(t, session.StatusRunning)
	msg := path + "/enqueued_messages/" + mid(m)
	tests := []struct {
		name, method, path string
		body               any
		status             int
		want               string
	}{
		{"create without content", "POST", path + "/enqueued_messages", map[string]any{}, 422, "Content can't be blank"},
		{"create with oversized content", "POST", path + "/enqueued_messages", map[string]any{"content": strings.Repeat("c", session.MaxPrompt+1)}, 422, "Content is too long"},
		{"create on an unknown session", "POST", "/api/v1/sessions/999999999999/enqueued_messages", map[string]any{"content": "x"}, 404, "Session not found"},
		{"list an unknown session", "GET", "/api/v1/sessions/999999999999/enqueued_messages", nil, 404, "Session not found"},
		{"show an unknown message", "GET", path + "/enqueued_messages/999999999999", nil, 404, "Enqueued message not found"},
		{"show a non-numeric message id", "GET", path + "/enqueued_messages/abc", nil, 404, "Enqueued message not found"},
		{"show a message under another session", "GET", other + "/enqueued_messages/" + mid(m), nil, 404, "Enqueued message not found"},
		{"update to blank content", "PATCH", msg, map[string]any{"content": "  "}, 422, "Content can't be blank"},
		{"update an unknown message", "PATCH", path + "/enqueued_messages/999999999999", map[string]any{"content": "x"}, 404, "Enqueued message not found"},
		{"delete an unknown message", "DELETE", path + "/enqueued_messages/999999999999", nil, 404, "Enqueued message not found"},
		{"reorder to zero", "PATCH", msg + "/reorder", map[string]any{"position": 0}, 422, "Position must be 1 or greater"},
		{"reorder without a position", "PATCH", msg + "/reorder", map[string]any{}, 422, "position must be an integer"},
		{"interrupt an unknown message", "POST", path + "/enqueued_messages/999999999999/interrupt", nil, 404, "Enqueued message not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(t, tc.method, tc.path, tc.body)
			if r.status != tc.status || !strings.Contains(r.body["message"].(string), tc.want) {
				t.Fatalf("want %d %q, got %d %s", tc.status, tc.want, r.status, truncate(r.raw))
			}
		})
	}
	if q := e.queueOf(t, path); !slices.Equal(q, []string{"keep me@1:pending"}) {
		t.Fatalf("bad requests change nothing: %v", q)
	}
}

func TestEnqueuedMessageUpdateChangesContentAndBlankGoalClears(t *testing.T) {
	t.Parallel()
	e := setup(t)
	_, path := e.sessionIn(t, session.StatusRunning)
	r := e.do(t, "POST", path+"/enqueued_messages", map[string]any{"content": "draft", "goal": "a goal"})
	msg := path + "/enqueued_messages/" + mid(r.body["enqueued_message"].(map[string]any))
	r = e.do(t, "PATCH", msg, map[string]any{"content": "final"})
	if got := r.body["enqueued_message"].(map[string]any); r.status != 200 || got["content"] != "final" || got["goal"] != "a goal" {
		t.Fatalf("content only: %d %s", r.status, r.raw)
	}
	r = e.do(t, "PATCH", msg, map[string]any{"goal": ""})
	if got := r.body["enqueued_message"].(map[string]any); r.status != 200 || got["goal"] != nil || got["content"] != "final" {
		t.Fatalf("blank goal clears: %d %s", r.status, r.raw)
	}
}

func TestEnqueuedMessagePositionsFollowDeletesAndReorders(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tests := []struct {
		name   string
		method string
		target int // index of the message acted on
		suffix string
		body   any
		status int
		want   []string
	}{
		{"delete the first", "DELETE", 0, "", nil, 204, []string{"b@1:pending", "c@2:pending"}},
		{"delete the middle", "DELETE", 1, "", nil, 204, []string{"a@1:pending", "c@2:pending"}},
		{"reorder last to first", "PATCH", 2, "/reorder", map[string]any{"position": 1}, 200, []string{"c@1:pending", "a@2:pending", "b@3:pending"}},
		{"reorder first to last", "PATCH", 0, "/reorder", map[string]any{"position": "3"}, 200, []string{"b@1:pending", "c@2:pending", "a@3:pending"}},
		{"reorder past the end", "PATCH", 0, "/reorder", map[string]any{"position": 50}, 200, []string{"b@1:pending", "c@2:pending", "a@3:pending"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, path := e.sessionIn(t, session.StatusRunning)
			var ids []string
			for _, c := range []string{"a", "b", "c"} {
				ids = append(ids, mid(e.enqueue(t, path, c)))
			}
			r := e.do(t, tc.method, path+"/enqueued_messages/"+ids[tc.target]+tc.suffix, tc.body)
			if r.status != tc.status {
				t.Fatalf("%d %s", r.status, r.raw)
			}
			if q := e.queueOf(t, path); !slices.Equal(q, tc.want) {
				t.Fatalf("queue %v, want %v", q, tc.want)
			}
		})
	}
}

func TestTwentyConcurrentEnqueuesKeepPositionsContiguous(t *testing.T) {
	t.Parallel()
	e := setup(t)
	_, path := e.sessionIn(t, session.StatusRunning)
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if r := e.do(t, "POST", path+"/enqueued_messages", map[string]any{"content": fmt.Sprint("m", i)}); r.status != 201 {
				t.Errorf("enqueue %d: %d %s", i, r.status, r.raw)
			}
		})
	}
	wg.Wait()
	r := e.do(t, "GET", path+"/enqueued_messages?per_page=100", nil)
	var positions []int
	for _, m := range r.body["enqueued_messages"].([]any) {
		positions = append(positions, int(m.(map[string]any)["position"].(float64)))
	}
	slices.Sort(positions)
	for i, p := range positions {
		if p != i+1 {
			t.Fatalf("positions %v, want 1..%d", positions, n)
		}
	}
	if len(positions) != n {
		t.Fatalf("%d messages, want %d", len(positions), n)
	}
}

func TestEnqueuingForAnIdleSessionSchedulesADrain(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, tc := range []struct {
		status session.Status
		want   bool
	}{{session.StatusNeedsInput, true}, {session.StatusRunning, false}, {session.StatusWaiting, true}} {
		t.Run(string(tc.status), func(t *testing.T) {
			s, path := e.sessionIn(t, tc.status)
			e.enqueue(t, path, "whenever you are free")
			taskID := tasks.DrainMessagesTaskID(int64(s["id"].(float64)))
			queued, err := e.queue.TaskQueued(context.Background(), tasks.LaneDefault, taskID)
			if err != nil || queued != tc.want {
				t.Fatalf("drain scheduled=%v (err %v), want %v", queued, err, tc.want)
			}
		})
	}
}

func TestInterruptDeliversAQueuedMessageNowAndKeepsTheRestInOrder(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s, path := e.sessionIn(t, session.StatusRunning)
	e.enqueue(t, path, "a")
	e.enqueue(t, path, "b")
	target := e.enqueue(t, path, "c")
	r := e.do(t, "POST", path+"/enqueued_messages/"+mid(target)+"/interrupt", map[string]any{"acting_session_id": "not-a-session"})
	if r.status != 200 || r.body["message"] != "Message sent as interrupt" {
		t.Fatalf("interrupt: %d %s", r.status, r.raw)
	}
	got := r.session(t)
	want := tasks.RunSessionTaskID(int64(s["id"].(float64)), "follow-up-msg-"+mid(target))
	if got["running_job_id"] != want || !e.jobQueued(t, want) {
		t.Fatalf("the message's turn %s must own the session and be queued: %v", want, got["running_job_id"])
	}
	if _, ok := got["metadata"].(map[string]any)["interrupt_requested_at"]; !ok {
		t.Fatal("a running turn is asked to end")
	}
	if q := e.queueOf(t, path); !slices.Equal(q, []string{"a@1:pending", "b@2:pending"}) {
		t.Fatalf("queue after interrupt %v", q)
	}
	if r := e.do(t, "POST", path+"/enqueued_messages/"+mid(target)+"/interrupt", nil); r.status != 404 {
		t.Fatalf("a delivered message is delivered once: %d %s", r.status, r.raw)
	}
}

func TestInterruptIsRefusedUnlessTheSessionCanTakeAMessage(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, st := range []session.Status{session.StatusFailed, session.StatusArchived} {
		t.Run(string(st), func(t *testing.T) {
			s, path := e.sessionIn(t, session.StatusRunning)
			m := e.enqueue(t, path, "a")
			e.withStatus(t, s, st)
			r := e.do(t, "POST", path+"/enqueued_messages/"+mid(m)+"/interrupt", nil)
			if r.status != 422 || r.body["error"] != "Cannot interrupt" {
				t.Fatalf("want 422 Cannot interrupt, got %d %s", r.status, r.raw)
			}
			if q := e.queueOf(t, path); !slices.Equal(q, []string{"a@1:pending"}) {
				t.Fatalf("a refused interrupt leaves the queue alone: %v", q)
			}
		})
	}
}

func TestArchiveRefusesWhileMessagesArePendingAndForceRetiresThem(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s, path := e.sessionIn(t, session.StatusRunning)
	first := e.enqueue(t, path, "please also update the changelog "+strings.Repeat("x", 100))
	e.enqueue(t, path, "and the docs")
	r := e.do(t, "POST", path+"/archive", map[string]any{})
	msg, _ := r.body["message"].(string)
	if r.status != 422 || r.body["error"] != "Queued messages would be discarded" ||
		!strings.HasPrefix(msg, "do not archive; end your turn instead") ||
		!strings.Contains(msg, "#"+mid(first)+` "please also update the changelog`) || strings.Contains(msg, strings.Repeat("x", 81)) ||
		!strings.Contains(msg, "and the docs") || !strings.Contains(msg, "force: true") {
		t.Fatalf("refusal: %d %s", r.status, r.raw)
	}
	if got := e.do(t, "GET", path, nil).session(t)["status"]; got != "running" {
		t.Fatalf("a refused archive changes nothing: %v", got)
	}
	r = e.do(t, "POST", path+"/archive", map[string]any{"force": true})
	if r.status != 200 || r.session(t)["status"] != "archived" {
		t.Fatalf("forced archive: %d %s", r.status, r.raw)
	}
	if q := e.queueOf(t, path); !slices.Equal(q, []string{"please also update the changelog " + strings.Repeat("x", 100) + "@1:undelivered", "and the docs@2:undelivered"}) {
		t.Fatalf("retired messages: %v", q)
	}
	if tl := e.timeline(t, s); !strings.Contains(tl, "Session archived by the REST API; forced: 2 queued message(s) were discarded and marked undelivered") {
		t.Fatalf("timeline:\n%s", tl)
	}
}

func TestArchiveWithAnEmptyQueueNamesTheActorAndRetiresNothing(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s, path := e.sessionIn(t, session.StatusNeedsInput)
	if r := e.do(t, "POST", path+"/archive", nil); r.status != 200 {
		t.Fatalf("archive: %d %s", r.status, r.raw)
	}
	if tl := e.timeline(t, s); !strings.Contains(tl, "Session archived by the REST API\n") {
		t.Fatalf("timeline:\n%s", tl)
	}
}

func TestAFollowUpThatCannotBeQueuedIsAcknowledgedAndKeptForDispatch(t *testing.T) {
	t.Parallel()
	e := setupWithRedis(t, "redis://127.0.0.1:1/0") // nothing listens: every enqueue fails
	tests := []struct {
		name   string
		status session.Status
		force  bool
	}{
		{"direct", session.StatusWaiting, false},
		{"force_immediate on an idle session", session.StatusNeedsInput, true},
		{"force_immediate on a running session", session.StatusRunning, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := e.create(t, map[string]any{"goal": "original goal"})
			e.withStatus(t, s, tc.status)
			path := "/api/v1/sessions/" + id(s)
			r := e.do(t, "POST", path+"/follow_up", map[string]any{"prompt": "go", "goal": "new goal", "force_immediate": tc.force})
			if r.status != 200 || len(r.body["warnings"].([]any)) != 1 {
				t.Fatalf("want 200 with a warning, got %d %s", r.status, r.raw)
			}
			got := e.do(t, "GET", path, nil).session(t)
			pending, _ := got["metadata"].(map[string]any)["pending_dispatch"].(map[string]any)
			if got["status"] != "running" || got["goal"] != "new goal" || pending["prompt"] != "go" || pending["task_id"] != got["running_job_id"] {
				t.Fatalf("delivered, its job pending dispatch: %v goal=%v pending=%v", got["status"], got["goal"], pending)
			}
			if q := e.queueOf(t, path); len(q) != 0 {
				t.Fatalf("the delivered message left the queue: %v", q)
			}
		})
	}
}

func TestAnInterruptThatCannotBeQueuedIsAcknowledgedAndKeptForDispatch(t *testing.T) {
	t.Parallel()
	e := setupWithRedis(t, "redis://127.0.0.1:1/0")
	_, path := e.sessionIn(t, session.StatusRunning)
	e.enqueue(t, path, "a")
	m := e.enqueue(t, path, "b")
	if r := e.do(t, "POST", path+"/enqueued_messages/"+mid(m)+"/interrupt", nil); r.status != 200 {
		t.Fatalf("want 200, got %d %s", r.status, r.raw)
	}
	if q := e.queueOf(t, path); !slices.Equal(q, []string{"a@1:pending"}) {
		t.Fatalf("the interrupting message left the queue, the rest stays: %v", q)
	}
	got := e.do(t, "GET", path, nil).session(t)
	if pending, _ := got["metadata"].(map[string]any)["pending_dispatch"].(map[string]any); pending["prompt"] != "b" {
		t.Fatalf("pending dispatch %v", pending)
	}
}
