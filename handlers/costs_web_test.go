package handlers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/provenance"
	"github.com/zimmerhq/zimmer/session"
)

// The Costs page reports an agent root's spend by model, names the model the price list lacks,
// drills into a session and rolls its spawn hierarchy up, and sweeps every transcript in with a
// button whose progress the page follows until the ledger states the window it covers.
func TestTheCostsPageReportsDrillsIntoAHierarchyAndSweepsTranscriptsIn(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	ctx := context.Background()
	root, unpriced := graphtest.Unique(t, "cost-root"), graphtest.Unique(t, "house-model")
	router := h.session(t, nil)
	worker := h.session(t, func(d *session.Session) { d.ParentSessionID = &router.ID })
	spend := func(s *session.Session, model string, input int64) {
		t.Helper()
		if _, err := h.store.RecordTokenUsage(ctx, s.ID, []session.TokenUsage{{RequestID: graphtest.Unique(t, "req"),
			Model: model, AgentRoot: root, CalledAt: time.Now(), TokenCounts: session.TokenCounts{InputTokens: input}}}); err != nil {
			t.Fatal(err)
		}
	}
	spend(router, "claude-sonnet-4-5", 1_000_000) // $3
	spend(worker, "claude-haiku-4-5", 2_000_000)  // $2
	spend(worker, unpriced, 5_000)                // $0, and named
	// The worker's turns carried a hierarchy block: 400,000 estimated tokens of sonnet input, $1.20.
	if err := h.store.RecordInjectedBlocks(ctx, worker.ID, "claude-sonnet-4-5", time.Now(),
		[]graph.InjectedBlock{{Block: provenance.BlockHierarchy, Bytes: 1_600_000, Tokens: 400_000}}); err != nil {
		t.Fatal(err)
	}
	// One transcript on disk for the sweep to read.
	h.writeTranscript(t, router.ID, fmt.Sprintf(`{"type":"assistant","timestamp":%q,"message":{"id":%q,"model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":2}}}`,
		time.Now().UTC().Format(time.RFC3339), graphtest.Unique(t, "swept")))

	b := browser(t)
	handlerstest.Step(t, b, "open the agent root's report",
		chromedp.Navigate(fmt.Sprintf("%s/costs?agent_root=%s", h.srv.URL, root)),
		chromedp.WaitVisible(chromedp.ID("cost-summary")),
	)
	if total := handlerstest.Text(t, b, "#cost-total"); total != "$5.00" {
		t.Errorf("the agent root's total: %q, want $5.00", total)
	}
	if models := handlerstest.Text(t, b, "#cost-models"); !strings.Contains(models, "claude-sonnet-4-5") || !strings.Contains(models, "claude-haiku-4-5") {
		t.Errorf("by model: %q", models)
	}
	if text := handlerstest.Text(t, b, "#unpriced"); !strings.Contains(text, unpriced) {
		t.Errorf("the unpriced model is not named: %q", text)
	}
	if text := handlerstest.Text(t, b, "#coverage"); !strings.Contains(text, "Partial history") || !strings.Contains(text, "never been swept") {
		t.Errorf("a ledger never swept is partial history: %q", text)
	}

	handlerstest.Step(t, b, "drill into the router with its hierarchy",
		chromedp.WaitVisible(fmt.Sprintf(`#cost-session-%d a[href*="include_descendants"]`, router.ID)),
		chromedp.Click(fmt.Sprintf(`#cost-session-%d a[href*="include_descendants"]`, router.ID)),
		chromedp.WaitVisible(chromedp.ID("cost-rollup")),
	)
	if head, total := handlerstest.Text(t, b, "#cost-summary h2"), handlerstest.Text(t, b, "#cost-total"); !strings.Contains(head, "and every session it spawned") || total != "$5.00" {
		t.Errorf("the router with every session it spawned: %q, %q, want $5.00", head, total)
	}
	if row := handlerstest.Text(t, b, "#injected-session_hierarchy"); !strings.Contains(row, "1600000") || !strings.Contains(row, "400000") || !strings.Contains(row, "$1.20") {
		t.Errorf("the hierarchy's injected blocks: %q", row)
	}
	handlerstest.Step(t, b, "only the router's own spend",
		chromedp.Click(`#cost-rollup a`),
		chromedp.WaitVisible(chromedp.Search(`//p[@id="cost-rollup"]/a[starts-with(., "With every session")]`)),
	)
	if total, blocks := handlerstest.Text(t, b, "#cost-total"), handlerstest.Text(t, b, "#cost-injected tbody"); total != "$3.00" || !strings.Contains(blocks, "No block was injected") {
		t.Errorf("the router's own spend: %q, want $3.00; its injected blocks: %q", total, blocks)
	}

	handlerstest.Step(t, b, "start the sweep",
		chromedp.Click(chromedp.ID("backfill")),
		chromedp.WaitVisible(chromedp.ID("backfill-progress")),
	)
	if notice, progress := handlerstest.Text(t, b, ".notice"), handlerstest.Text(t, b, "#backfill-progress"); !strings.Contains(notice, "started") || progress != "0 of 1 transcript read" {
		t.Fatalf("after starting the sweep: notice %q, progress %q", notice, progress)
	}
	if _, ran, err := h.ops.BackfillSlice(ctx, time.Minute); err != nil || !ran {
		t.Fatalf("the sweep's slice: ran=%v %v", ran, err)
	}
	// The page polls the panel while the sweep runs; it settles on the covered window.
	handlerstest.Step(t, b, "the page follows the sweep to its end",
		chromedp.WaitVisible(chromedp.Search(`//section[@id="coverage"]/h2[.="Ledger coverage"]`)),
	)
	if text := handlerstest.Text(t, b, "#coverage"); !strings.Contains(text, "every transcript was swept in") || !strings.Contains(text, "1 transcript, 1 request added") {
		t.Errorf("the finished sweep: %q", text)
	}
}
