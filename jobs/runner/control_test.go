package runner_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func TestPauseHaltsTheRunningTurn(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "SLEEP 30"})
	pid := e.waitSpawned(t, id)
	status, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/pause", nil)
	if status != http.StatusOK {
		t.Fatalf("pause: %d %v", status, out)
	}
	waitGone(t, pid)
	time.Sleep(200 * time.Millisecond) // the runner has ended; it must not have moved the session
	s := e.get(t, id)
	if s.Status != session.StatusNeedsInput || s.Metadata[session.MetaPausedBy] != orchestrator.PausedByUser || s.RunningJobID != nil {
		t.Fatalf("paused by hand: %s %v", s.Status, s.Metadata)
	}
	if status, _ := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/pause", nil); status != http.StatusUnprocessableEntity {
		t.Fatalf("pausing a paused session: %d", status)
	}
}

func TestSleepNowOrAtTheTurnEnd(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "SLEEP 0.5"})
	e.waitSpawned(t, id)
	if status, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/sleep", nil); status != http.StatusOK {
		t.Fatalf("sleep while running: %d %v", status, out)
	}
	s := e.waitStatus(t, id, session.StatusWaiting)
	if _, pending := s.Metadata[session.MetaPendingSleep]; pending {
		t.Fatal("the pending sleep was executed")
	}
	other := e.create(t, map[string]any{"prompt": "hi"})
	e.waitStatus(t, other, session.StatusNeedsInput)
	if status, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(other)+"/sleep", nil); status != http.StatusOK ||
		out["session"].(map[string]any)["status"] != "waiting" {
		t.Fatalf("sleep an idle session: %d %v", status, out)
	}
}

func TestTranscriptRefreshAndFork(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "CALL nothing_there {}\nsay more"})
	e.waitStatus(t, id, session.StatusNeedsInput)
	path := "/api/v1/sessions/" + itoa(id)

	status, out := e.do(t, http.MethodGet, path+"/transcript", nil)
	text, _ := out["transcript_text"].(string)
	if status != http.StatusOK || !strings.Contains(text, "User: CALL nothing_there {}") || !strings.Contains(text, "Assistant: ack: CALL nothing_there {}") {
		t.Fatalf("transcript: %d %v", status, out)
	}
	plain := handlerstest.Do(t, http.DefaultClient, http.MethodGet, e.srv.URL+path+"/transcript?format=text", nil, "X-API-Key", apiKey)
	if !strings.HasPrefix(plain.Header.Get("Content-Type"), "text/plain") || plain.Raw != text {
		t.Fatalf("format=text: %s %q", plain.Header.Get("Content-Type"), plain.Raw)
	}

	before, _ := e.ops.TokenUsage(context.Background(), id)
	status, out = e.do(t, http.MethodPost, path+"/refresh", nil)
	after, _ := e.ops.TokenUsage(context.Background(), id)
	if status != http.StatusOK || len(after) != len(before) || len(before) == 0 {
		t.Fatalf("refresh re-reads without counting twice: %d %v (%d → %d rows)", status, out, len(before), len(after))
	}

	if status, _ := e.do(t, http.MethodPost, path+"/fork", map[string]any{}); status != http.StatusUnprocessableEntity {
		t.Fatalf("fork needs message_index: %d", status)
	}
	status, out = e.do(t, http.MethodPost, path+"/fork", map[string]any{"message_index": 1})
	if status != http.StatusCreated {
		t.Fatalf("fork: %d %v", status, out)
	}
	fork := out["session"].(map[string]any)
	forkID := int64(fork["id"].(float64))
	meta := fork["metadata"].(map[string]any)
	if meta["forked_from_session_id"] != float64(id) || meta["forked_at_message_index"] != float64(1) || fork["status"] != "waiting" {
		t.Fatalf("fork record: %v", fork)
	}
	if lines := e.transcript(t, forkID); len(lines) != 2 || lines[0]["type"] != "zimmer_turn" {
		t.Fatalf("the fork's transcript is the first two lines: %v", lines)
	}

	never := e.create(t, map[string]any{})
	if status, _ := e.do(t, http.MethodGet, "/api/v1/sessions/"+itoa(never)+"/transcript", nil); status != http.StatusNotFound {
		t.Fatalf("a session that never ran has no transcript: %d", status)
	}
}

func TestWorkerMetricsCountRunsAndReadLanes(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "hi"})
	e.waitStatus(t, id, session.StatusNeedsInput)
	resp, err := http.Get(e.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{`zimmer_session_runs_started_total{runtime="claude_code"}`, `zimmer_session_runs_finished_total{outcome="needs_input",runtime="claude_code"}`,
		`zimmer_session_run_duration_seconds_bucket`, `zimmer_queue_tasks{lane="agents",state="pending"}`, `zimmer_queue_latency_seconds{lane="agents"}`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// compact is a value as one line of JSON.
func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A message queued on an idle session is delivered by the drain task as its next turn.
func TestDrainDeliversAMessageQueuedOnAnIdleSession(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "hi"})
	e.waitStatus(t, id, session.StatusNeedsInput)
	status, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/enqueued_messages", map[string]any{"content": "drained later"})
	if status != http.StatusCreated {
		t.Fatalf("enqueue: %d %v", status, out)
	}
	payload, _ := json.Marshal(tasks.DrainMessages{SessionID: id})
	// The drain scheduled for it waits tasks.DrainDelay; run one now instead.
	if err := e.runner.HandleDrain(context.Background(), asynq.NewTask(tasks.TypeDrainMessages, payload)); err != nil {
		t.Fatal(err)
	}
	e.waitFor(t, id, "the drained turn", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 2
	})
	if got := turns(e.transcript(t, id))[1]; !strings.HasPrefix(got["prompt"].(string), "drained later") || got["reason"] != "queued_message" {
		t.Fatalf("the queued message is the next turn: %v", got)
	}
}
