package runner_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var waitingLine = regexp.MustCompile(`Waiting on an elicitation \((fake-[0-9a-f]+)\)`)

// blockedOn waits until the session's turn is blocked on an elicitation and returns its
// request id, read from the timeline line that says so.
func (e *env) blockedOn(t *testing.T, id int64) string {
	t.Helper()
	e.waitFor(t, id, "blocked on an elicitation", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && s.Flag(session.MetaBlockedOnElicitation)
	})
	// The timeline line is written after the status change, so it may lag behind it.
	var logs []session.LogEntry
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var err error
		if logs, err = e.ops.Timeline(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		for _, l := range logs {
			if m := waitingLine.FindStringSubmatch(l.Content); m != nil {
				return m[1]
			}
		}
	}
	t.Fatalf("no timeline line names the elicitation: %+v", logs)
	return ""
}

func TestAnAnsweredElicitationUnblocksTheLiveTurn(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "ELICIT 60000 Which branch should I use?"})
	request := e.blockedOn(t, id)
	env := e.invocations(t, id)[0]["env"].(map[string]any)
	if env["ELICITATION_SESSION_ID"] != itoa(id) || env["ELICITATION_REQUEST_URL"] != e.srv.URL+"/api/v1/elicitations" ||
		env["ELICITATION_PREFER_HTTP_FALLBACK"] != "true" || env["ELICITATION_TTL_MS"] != "3600000" {
		t.Fatalf("the agent is given the elicitation endpoints: %v", env)
	}
	if pid := pidOf(e.get(t, id)); pid <= 0 || syscall.Kill(pid, 0) != nil {
		t.Fatalf("the blocked turn's process stays alive (pid %d)", pid)
	}
	text := e.callTool(t, "respond_to_elicitation", map[string]any{"request_id": request, "action_type": "accept", "content": map[string]any{"branch": "main"}})
	if !strings.Contains(text, "## Elicitation Accepted") {
		t.Fatalf("respond: %s", text)
	}
	s := e.waitStatus(t, id, session.StatusNeedsInput)
	if s.Flag(session.MetaBlockedOnElicitation) {
		t.Fatalf("still blocked: %v", s.Metadata)
	}
	found := false
	for _, line := range e.transcript(t, id) {
		if strings.Contains(jsonOf(line), `\"branch\":\"main\"`) {
			found = true
		}
	}
	if !found {
		t.Fatalf("the agent never got the answer: %v", e.transcript(t, id))
	}
}

func TestALostElicitationIsReportedNotWaitedOnForever(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "ELICIT 300 Deploy now?\nSLEEP 30"})
	request := e.blockedOn(t, id)
	time.Sleep(400 * time.Millisecond)
	if _, err := e.ops.ExpireElicitations(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := e.waitFor(t, id, "the turn released", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && s.RunningJobID == nil && !s.Flag(session.MetaBlockedOnElicitation)
	})
	lost, _ := s.Metadata[session.MetaLostElicitation].(map[string]any)
	if lost["reason"] != "expired" || lost["request_id"] != request || lost["summary"] != "Deploy now?" {
		t.Fatalf("the lost elicitation is on the session: %v", s.Metadata)
	}
	logs, _ := e.ops.Timeline(context.Background(), id)
	if !strings.Contains(jsonOf(logs), "An elicitation expired unanswered ("+request+"): Deploy now?") {
		t.Fatalf("the timeline says so: %v", logs)
	}
}
