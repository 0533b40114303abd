package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers/handlerstest"
)

// The /health page shows the health report and switches queue recovery mode on and off with a
// form that carries the page's token; a post without it is refused and changes nothing.
func TestTheHealthPageShowsTheReportAndSwitchesRecoveryMode(t *testing.T) {
	redis := graphtest.StartRedis(t, graphtest.Unique(t, "pw"))
	h := setupHumans(t, humansOpts{redisURL: redis.URL})
	active := func() bool {
		t.Helper()
		return h.ops.SystemHealth(context.Background()).View().QueueRecoveryMode.Active
	}
	if p := h.request(t, http.MethodPost, "/health/queue_recovery_mode", url.Values{"mode": {"on"}, "reason": {"forged"}}); p.status != http.StatusForbidden || active() {
		t.Fatalf("a post without the form token: %d, recovery mode on: %v", p.status, active())
	}

	ctx := handlerstest.Browser(t, webUser, webPassword)
	handlerstest.Step(t, ctx, "open the health page",
		chromedp.Navigate(h.srv.URL+"/health"),
		chromedp.WaitVisible(chromedp.ID("recovery")),
	)
	if head := handlerstest.Text(t, ctx, "#recovery h2"); head != "Queue recovery mode: off" {
		t.Fatalf("recovery heading %q", head)
	}
	queues, stores := handlerstest.Text(t, ctx, "#queues"), handlerstest.Text(t, ctx, "#stores")
	for _, lane := range []string{"agents", "inference", "maintenance"} {
		if !strings.Contains(queues, lane) {
			t.Errorf("the queues table lacks the %s lane: %q", lane, queues)
		}
	}
	if !strings.Contains(stores, "neo4j: up") || !strings.Contains(stores, "redis: up") {
		t.Errorf("the stores: %q", stores)
	}

	handlerstest.Step(t, ctx, "turn recovery mode on",
		chromedp.SendKeys(`#recovery input[name="reason"]`, "draining a flood"),
		chromedp.Click(`#recovery button`),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if notice, head := handlerstest.Text(t, ctx, ".notice"), handlerstest.Text(t, ctx, "#recovery h2"); notice != "Queue recovery mode is on." || head != "Queue recovery mode: ON" || !active() {
		t.Fatalf("after turning it on: notice %q, heading %q, active %v", notice, head, active())
	}
	if text := handlerstest.Text(t, ctx, "#recovery"); !strings.Contains(text, "Reason: draining a flood.") || !strings.Contains(text, "Entered by the web UI.") {
		t.Errorf("the halt's details: %q", text)
	}

	handlerstest.Step(t, ctx, "turn recovery mode off",
		chromedp.Click(`#recovery button`),
		chromedp.WaitVisible(chromedp.Search(`//div[@class="notice" and contains(., "off")]`)),
	)
	if head := handlerstest.Text(t, ctx, "#recovery h2"); head != "Queue recovery mode: off" || active() {
		t.Fatalf("after turning it off: heading %q, active %v", head, active())
	}
}
