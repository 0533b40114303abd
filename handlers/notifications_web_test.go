package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/session"
)

// notify records an unread notification about a session.
func (h *humans) notify(t *testing.T, sessionID int64, message string) *session.Notification {
	t.Helper()
	n, _, err := h.store.CreateNotification(context.Background(), graph.NewNotification{SessionID: sessionID,
		Key: graphtest.Unique(t, "web"), Type: session.NotifyCustomMessage, Message: message})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (h *humans) notification(t *testing.T, id int64) (*session.Notification, bool) {
	t.Helper()
	n, err := h.store.GetNotification(context.Background(), id)
	if err != nil {
		return nil, false
	}
	return n, true
}

func TestTheInboxListsMarksAndDismissesNotifications(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	h := setupHumans(t, humansOpts{})
	title := "Ship <the> parser"
	s := h.session(t, func(d *session.Session) { d.Title = &title })
	n := h.notify(t, s.ID, "Approve the <deploy>")
	p := h.request(t, http.MethodGet, "/notifications", nil)
	if p.status != http.StatusOK {
		t.Fatalf("got %d %s", p.status, p.body)
	}
	for _, want := range []string{fmt.Sprintf(`id="notification-%d" class="unread"`, n.ID), "Ship &lt;the&gt; parser", "Approve the &lt;deploy&gt;",
		fmt.Sprintf(`id="mark-read-%d"`, n.ID), `id="notification-badge"`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the inbox lacks %q", want)
		}
	}
	path := fmt.Sprintf("/notifications/%d", n.ID)
	if p := h.request(t, http.MethodPost, path+"/dismiss", url.Values{}); p.status != http.StatusForbidden {
		t.Fatalf("a post without the form token is refused: %d %s", p.status, p.body)
	}
	if p := h.post(t, path+"/dismiss", url.Values{}); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "Cannot dismiss unread notification") {
		t.Fatalf("an unread notification cannot be dismissed: %d %s", p.status, p.body)
	}
	if p := h.post(t, path+"/mark_read", url.Values{}); p.status != http.StatusSeeOther || p.location != "/notifications?notice=read" {
		t.Fatalf("mark read: %d %s %s", p.status, p.location, p.body)
	}
	if got, ok := h.notification(t, n.ID); !ok || !got.Read {
		t.Fatalf("the notification is read now: %+v", got)
	}
	if p := h.post(t, path+"/dismiss", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("dismiss: %d %s", p.status, p.body)
	}
	if _, ok := h.notification(t, n.ID); ok {
		t.Fatal("a dismissed notification is gone")
	}
	if p := h.post(t, path+"/mark_read", url.Values{}); p.status != http.StatusNotFound || !strings.Contains(p.body, "Notification not found") {
		t.Fatalf("a gone notification is not found: %d %s", p.status, p.body)
	}
}

func TestABrowserSeesTheBadgeAndClearsANotification(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	h := setupHumans(t, humansOpts{})
	title := "Nightly release"
	s := h.session(t, func(d *session.Session) { d.Title = &title })
	n := h.notify(t, s.ID, "The release needs a signing key")
	ctx := browser(t)
	handlerstest.Step(t, ctx, "open the sessions page", chromedp.Navigate(h.srv.URL+"/sessions"), chromedp.WaitVisible(chromedp.ID("notification-badge")))
	if badge, err := strconv.Atoi(handlerstest.Text(t, ctx, "#notification-badge")); err != nil || badge < 1 {
		t.Fatalf("the header's badge counts the pending notification: %q", handlerstest.Text(t, ctx, "#notification-badge"))
	}
	item := fmt.Sprintf("#notification-%d", n.ID)
	handlerstest.Step(t, ctx, "follow the badge to the inbox and mark the notification read",
		chromedp.Click(chromedp.ID("notifications-link")),
		chromedp.WaitVisible(chromedp.CSS(item)),
		chromedp.Click(chromedp.ID(fmt.Sprintf("mark-read-%d", n.ID))),
		chromedp.WaitVisible(chromedp.ID(fmt.Sprintf("dismiss-%d", n.ID))),
	)
	if notice, line := handlerstest.Text(t, ctx, ".notice"), handlerstest.Text(t, ctx, item); notice != "Marked read." || !strings.Contains(line, "Nightly release") ||
		!strings.Contains(line, "The release needs a signing key") || !strings.Contains(line, "read") {
		t.Fatalf("after marking read: notice %q, item %q", notice, line)
	}
	handlerstest.Step(t, ctx, "dismiss it",
		chromedp.Click(chromedp.ID(fmt.Sprintf("dismiss-%d", n.ID))),
		// The page before the click has a .notice too: wait for the reloaded one, without the item.
		chromedp.WaitNotPresent(chromedp.CSS(item)),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if notice := handlerstest.Text(t, ctx, ".notice"); notice != "Dismissed." {
		t.Fatalf("after dismissing: notice %q", notice)
	}
	if _, ok := h.notification(t, n.ID); ok {
		t.Fatal("the dismissed notification must be gone")
	}
}
