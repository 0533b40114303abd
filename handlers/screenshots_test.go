package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
)

// The README's screenshots come from this test (devtools/screenshots.sh sets
// ZIMMER_SCREENSHOTS_DIR=docs/screenshots); otherwise they go to a temporary directory. Either
// way it checks what they show — dark mode really changes the page, and a 40-session tree with
// uncle edges is drawn whole — and, on each page, that every control has a label and keyboard
// focus is visible.

var workTitles = []string{"Triage the flaky deploy", "Fix the login redirect", "Upgrade the Postgres driver", "Write the release notes",
	"Profile the search endpoint", "Add rate limiting", "Port the cron jobs", "Review dependency updates", "Trim the Docker image",
	"Document the webhook API"}

// fortySessionTree builds a router with 4 leads, 16 workers under them and 19 helpers below
// those (40 sessions), plus 5 uncle edges across branches, and returns them in that order.
func fortySessionTree(t *testing.T, h *humans) []*session.Session {
	t.Helper()
	mk := func(parent *session.Session, title, root string, st session.Status) *session.Session {
		return h.session(t, func(d *session.Session) {
			d.Title, d.Status = &title, st
			d.Metadata = map[string]any{session.MetaAgentRoot: root}
			if parent != nil {
				d.ParentSessionID = &parent.ID
			}
		})
	}
	statuses := []session.Status{session.StatusRunning, session.StatusWaiting, session.StatusNeedsInput, session.StatusWaiting, session.StatusFailed}
	all := []*session.Session{mk(nil, "Route this week's fleet work", "zimmer-router", session.StatusRunning)}
	var leads, workers []*session.Session
	for i := range 4 {
		leads = append(leads, mk(all[0], workTitles[i], "general-agent", statuses[i%len(statuses)]))
	}
	for i := range 16 {
		workers = append(workers, mk(leads[i/4], fmt.Sprintf("%s — part %d", workTitles[(i+4)%len(workTitles)], i%4+1), "zimmer", statuses[(i+1)%len(statuses)]))
	}
	all = append(append(all, leads...), workers...)
	for i := range 19 {
		all = append(all, mk(workers[i%16], fmt.Sprintf("Check %d for %s", i+1, strings.ToLower(workTitles[i%len(workTitles)])), "zimmer", statuses[(i+2)%len(statuses)]))
	}
	for i, pair := range [][2]int{{1, 9}, {2, 14}, {3, 6}, {4, 22}, {5, 30}} {
		if _, err := h.store.RecordUncleEdge(context.Background(), all[pair[0]].ID, all[pair[1]].ID, fmt.Sprintf("screenshot:%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	return all
}

func TestThePagesLabelEveryControlShowFocusReadInDarkModeAndDrawAFortySessionTree(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	tree := fortySessionTree(t, h)
	current := tree[6] // a worker with an uncle, children and a lead above it
	ctx0 := context.Background()
	h.writeTranscript(t, current.ID,
		`{"type":"zimmer_turn","turn":1,"reason":"initial","prompt":"Upgrade the Postgres driver and run the suite."}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I'll bump the driver and run the tests."},{"type":"tool_use","name":"Bash","input":{"command":"go get github.com/jackc/pgx/v5@latest"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"go: upgraded github.com/jackc/pgx/v5 v5.6.0 => v5.7.2"}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{"command":"go test ./..."}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"--- FAIL: TestPoolReuse (0.02s)\n    pool_test.go:41: conn busy","is_error":true}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"One test relies on the old pool semantics; fixing it now."}]}}`,
	)
	if _, err := h.store.RecordTokenUsage(ctx0, current.ID, []session.TokenUsage{{RequestID: "req-" + fmt.Sprint(current.ID), Model: "opus",
		AgentRuntime: "claude_code", CalledAt: time.Now(), TokenCounts: session.TokenCounts{InputTokens: 12840, OutputTokens: 1920, CacheReadTokens: 40210}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.AppendLog(ctx0, session.LogInfo, "Turn 1 started (initial)", current.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.store.CreateMessage(ctx0, current.ID, session.NewMessage{Content: "When the suite passes, open a PR against main."}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.RecordHumanMessage(ctx0, roster.Message{SessionID: tree[0].ID, Author: defaultAdmin, Channel: roster.ChannelWebUI,
		Content: "Get the driver upgrade done today; it blocks the release.", OccurredAt: time.Now(), EntryPoint: "web_ui.quick_prompt"}); err != nil {
		t.Fatal(err)
	}
	// The README's images are the whole page; a test run captures the first screen only, cheaply.
	dir, capture := os.Getenv("ZIMMER_SCREENSHOTS_DIR"), chromedp.FullScreenshot(70)
	if dir == "" {
		dir, capture = t.TempDir(), chromedp.CaptureScreenshot()
	}
	page := fmt.Sprintf("%s/sessions/%d", h.srv.URL, current.ID)
	if p := h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d", current.ID), nil); len(p.body) > 100<<10 {
		t.Errorf("the page is %d bytes; pages stay under 100 KB", len(p.body))
	}
	ctx := browser(t)
	background := `getComputedStyle(document.body).backgroundColor`
	shots := map[bool]string{}
	for _, dark := range []bool{false, true} {
		handlerstest.Dark(t, ctx, dark)
		handlerstest.Step(t, ctx, "open the session page",
			chromedp.EmulateViewport(1280, 1000),
			chromedp.Navigate(page),
			chromedp.WaitVisible(chromedp.ID("lineage-drawing")),
		)
		shots[dark] = handlerstest.Value(t, ctx, "read the background", chromedp.Evaluate[string](background))
		name := map[bool]string{false: "session-page-light.jpg", true: "session-page-dark.jpg"}[dark]
		save(t, filepath.Join(dir, name), handlerstest.Value(t, ctx, "screenshot", capture))
	}
	unlabelled := `[...document.querySelectorAll("input:not([type=hidden]), select, textarea, button")]
		.filter(e => e.tagName === "BUTTON" ? !e.textContent.trim() : e.labels.length === 0).map(e => e.id || e.name)`
	for _, path := range []string{fmt.Sprintf("/sessions/%d", current.ID), "/sessions", "/trash", "/sessions/new", "/supervisor/users"} {
		handlerstest.Step(t, ctx, "open "+path, chromedp.Navigate(h.srv.URL+path), chromedp.WaitReady(chromedp.CSS("main")))
		if missing := handlerstest.Value(t, ctx, "find unlabelled controls", chromedp.Evaluate[[]string](unlabelled)); len(missing) != 0 {
			t.Errorf("%s: controls without a label: %q", path, missing)
		}
		handlerstest.Step(t, ctx, "tab to the first control", chromedp.KeyEvent("\t"))
		focus := `(() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle + " " + s.outlineWidth })()`
		if got := handlerstest.Value(t, ctx, "read the focus ring", chromedp.Evaluate[string](focus)); got != "solid 3px" {
			t.Errorf("%s: the focused control's outline is %q; keyboard focus must be visible", path, got)
		}
	}
	handlerstest.Step(t, ctx, "back to the session page", chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("lineage-drawing")))
	if shots[false] == shots[true] {
		t.Errorf("dark mode should change the page: both backgrounds are %s", shots[false])
	}
	links := handlerstest.Value(t, ctx, "count the drawing's links", chromedp.Evaluate[int](`document.querySelectorAll("#lineage-drawing svg a").length`))
	dashed := handlerstest.Value(t, ctx, "count the uncle edges", chromedp.Evaluate[int](`document.querySelectorAll("#lineage-drawing path.uncle").length`))
	if links != 39 || dashed != 5 {
		t.Errorf("the drawing should link the 39 other sessions and dash 5 uncle edges: %d links, %d dashed", links, dashed)
	}
	handlerstest.Dark(t, ctx, false)
	handlerstest.Value(t, ctx, "hide the chat bubble", chromedp.Evaluate[string](`document.querySelector(".chat-bubble").hidden = true; ""`))
	save(t, filepath.Join(dir, "lineage-40-sessions.png"), handlerstest.Value(t, ctx, "screenshot the drawing",
		chromedp.Screenshot(chromedp.ID("lineage-drawing"))))
}

func save(t *testing.T, path string, image []byte) {
	t.Helper()
	if err := os.WriteFile(path, image, 0o644); err != nil {
		t.Fatal(err)
	}
}
