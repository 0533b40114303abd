package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

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
