package runner_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// A person watching a run in the browser: the transcript arrives on the open page while the
// turn runs, and the page's Pause button stops the turn.
func TestARunsTranscriptStreamsOntoItsOpenPageAndPauseFromThePageStopsIt(t *testing.T) {
	e := shared(t)
	cue := filepath.Join(t.TempDir(), "go")
	id := e.create(t, map[string]any{"prompt": "AWAIT " + cue + "\nCALL nothing_there {}\nSLEEP 60"})
	pid := e.waitSpawned(t, id)
	ctx := handlerstest.Browser(t, webUser, webPassword)
	handlerstest.Step(t, ctx, "open the running session's page",
		chromedp.Navigate(fmt.Sprintf("%s/sessions/%d", e.srv.URL, id)),
		chromedp.WaitVisible(chromedp.ID("transcript-entries")),
	)
	handlerstest.Value(t, ctx, "mark the page", chromedp.Evaluate[bool](`window.__notReloaded = true`))
	calls := `[...document.querySelectorAll("#transcript-entries li.tool_call summary")].filter(s => s.textContent.includes("nothing_there")).length`
	if n := handlerstest.Value(t, ctx, "count the tool calls shown", chromedp.Evaluate[int](calls)); n != 0 {
		t.Fatalf("the tool call is on the page before the agent made it (%d)", n)
	}
	if err := os.WriteFile(cue, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	handlerstest.Step(t, ctx, "let the agent call the tool and wait for the call to stream in",
		chromedp.WaitReady(chromedp.Search(`//ol[@id="transcript-entries"]//summary[contains(., "nothing_there")]`)))
	if !handlerstest.Value(t, ctx, "check the page was not reloaded", chromedp.Evaluate[bool](`window.__notReloaded === true`)) {
		t.Fatal("the page was reloaded; the transcript should have streamed in")
	}
	if s := e.get(t, id); s.Status != session.StatusRunning {
		t.Fatalf("the turn should still run while its transcript streams: %s", s.Status)
	}
	// The status panel is replaced whenever the running session changes, so the button is looked
	// up and pressed in one step, as a person's click lands on whatever button is there.
	handlerstest.Value(t, ctx, "pause from the page", chromedp.Evaluate[bool](`document.getElementById("action-pause").click(), true`))
	handlerstest.Step(t, ctx, "wait for the paused page", chromedp.WaitVisible(chromedp.CSS(".notice")))
	s := e.waitStatus(t, id, session.StatusNeedsInput)
	if s.Metadata[session.MetaPausedBy] != orchestrator.PausedByUser {
		t.Fatalf("paused by %v", s.Metadata[session.MetaPausedBy])
	}
	waitGone(t, pid)
	handlerstest.Step(t, ctx, "the page shows the pause",
		chromedp.WaitReady(chromedp.Search(`//strong[@id="session-status"][contains(., "needs_input")]`)))
}
