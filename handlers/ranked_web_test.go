package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/session"
)

func TestTheRankedPageStartsAParkedSessionNow(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	title := "Parked for quota"
	parked := h.session(t, func(d *session.Session) {
		d.Status, d.Title, d.Precedence = session.StatusNeedsInput, &title, session.MaxPrecedence-1 // the head of a shared queue
		d.Metadata[session.MetaRuntimeStarted] = true
	})
	if _, _, err := h.ops.PauseIntoSpotQueue(context.Background(), parked.ID, false); err != nil {
		t.Fatal(err)
	}
	p := h.request(t, http.MethodGet, "/ranked", nil)
	if p.status != http.StatusOK || !strings.Contains(p.body, fmt.Sprintf(`id="ranked-%d"`, parked.ID)) ||
		!strings.Contains(p.body, fmt.Sprintf(`action="/sessions/%d/start_now"`, parked.ID)) {
		t.Fatalf("the ranked page lists the parked session with Start now: %d", p.status)
	}
	page := h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d", parked.ID), nil)
	if !strings.Contains(page.body, `id="action-start-now"`) {
		t.Fatal("the session page offers Start now for a session in the spot queue")
	}
	redirected(t, h.post(t, fmt.Sprintf("/sessions/%d/start_now", parked.ID), url.Values{}))
	if got := h.get(t, parked.ID); got.Status != session.StatusRunning {
		t.Fatalf("Start now resumes it: %s", got.Status)
	}
}

// In a browser: the Ranked page lists a parked session with its class, Start now runs it at
// once (the session page says so), and the queue no longer holds it.
func TestTheRankedPageInABrowserStartsAParkedSessionNow(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	title := graphtest.Unique(t, "Parked for quota")
	parked := h.session(t, func(d *session.Session) {
		d.Status, d.Title, d.Precedence = session.StatusNeedsInput, &title, session.MaxPrecedence-1 // the head of a shared queue
		d.Metadata[session.MetaRuntimeStarted] = true
	})
	if _, _, err := h.ops.PauseIntoSpotQueue(context.Background(), parked.ID, false); err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf("ranked-%d", parked.ID)
	b := browser(t)
	handlerstest.Step(t, b, "open the Ranked page",
		chromedp.Navigate(h.srv.URL+"/ranked"),
		chromedp.WaitVisible(chromedp.ID(row)),
	)
	if text := handlerstest.Text(t, b, "#"+row); !strings.Contains(text, title) || !strings.Contains(text, "Start now") {
		t.Fatalf("the queued session's row: %q", text)
	}
	handlerstest.Step(t, b, "start it now",
		chromedp.Click(fmt.Sprintf("#%s button", row)),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if got := h.get(t, parked.ID); got.Status != session.StatusRunning {
		t.Fatalf("Start now resumes it: %s", got.Status)
	}
	handlerstest.Step(t, b, "back to the Ranked page",
		chromedp.Navigate(h.srv.URL+"/ranked"),
		chromedp.WaitVisible(chromedp.ID("ranked")),
	)
	if n := handlerstest.Value(t, b, "count the session's rows", chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll("#%s").length`, row))); n != 0 {
		t.Fatalf("the started session is still in the spot queue (%d rows)", n)
	}
}
