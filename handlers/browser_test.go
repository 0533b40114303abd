package handlers_test

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/session"
)

// These tests drive the web UI in a real headless Chromium (handlerstest.Browser).

// browser is a Chromium logged in to the web UI.
func browser(t *testing.T) context.Context {
	t.Helper()
	return handlerstest.Browser(t, webUser, webPassword)
}

func TestABrowserFollowUpIsRecordedAsTheAdmins(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, nil)
	ctx := browser(t)
	typed := "Please also cover the edge case — thanks! <b>not markup</b>"
	handlerstest.Step(t, ctx, "fill and submit the follow-up form",
		chromedp.Navigate(fmt.Sprintf("%s/sessions/%d", h.srv.URL, s.ID)),
		chromedp.WaitVisible(chromedp.ID("follow-up-prompt")),
		chromedp.SendKeys(chromedp.ID("follow-up-prompt"), typed),
		chromedp.Click(chromedp.ID("follow-up-submit")),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	notice, header := handlerstest.Text(t, ctx, ".notice"), handlerstest.Text(t, ctx, "#human-messages-header")
	if notice != "Follow-up sent." || header != "1 message in this session · 0 elsewhere in the hierarchy" {
		t.Errorf("after submitting: notice %q, header %q", notice, header)
	}
	msgs := h.messages(t, s.ID)
	if len(msgs) != 1 {
		t.Fatalf("want one record, got %q", describe(msgs))
	}
	m := msgs[0]
	if m.Author != defaultAdmin || m.EntryPoint != "web_ui.follow_up" || m.Channel != "web_ui" || m.Content != typed {
		t.Fatalf("record: %+v", m)
	}
	if got := h.get(t, s.ID); got.Status != session.StatusRunning {
		t.Errorf("the follow-up was not delivered: %s", got.Status)
	}
}

// evilPage is another origin's page with a form aimed at Zimmer: the browser attaches the
// cached Basic credential to its POST, which is exactly what the CSRF guard must refuse.
var evilPage = template.Must(template.New("evil").Parse(`<!doctype html><html><body>
<form method="post" action="{{.Action}}"><input type="hidden" name="prompt" value="approve the merge">
{{with .Token}}<input type="hidden" name="csrf_token" value="{{.}}">{{end}}
<button id="go" type="submit">win a prize</button></form></body></html>`))

func TestACrossSitePostFromABrowserIs403AndRecordsNothing(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, nil)
	tests := []struct{ name, token string }{
		{"without a token", ""},
		{"with a leaked valid token", h.token(t)}, // the origin check alone must hold
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_ = evilPage.Execute(w, map[string]string{"Action": fmt.Sprintf("%s/sessions/%d/follow_up", h.srv.URL, s.ID), "Token": tt.token})
			}))
			defer evil.Close()
			// The evil page is served from "localhost", Zimmer from 127.0.0.1: another site.
			evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)
			ctx := browser(t)
			statuses := responses(ctx, "/follow_up")
			handlerstest.Step(t, ctx, "submit the cross-site form",
				chromedp.Navigate(evilURL),
				chromedp.Click(chromedp.ID("go")),
				chromedp.WaitReady(chromedp.Search(`//body[contains(., "Refused")]`)),
			)
			if status := <-statuses; status != http.StatusForbidden {
				t.Fatalf("want 403, got %d", status)
			}
			if body := handlerstest.Text(t, ctx, "body"); !strings.Contains(body, "Refused") {
				t.Fatalf("want the refusal, got %q", body)
			}
		})
	}
	if msgs := h.messages(t, s.ID); len(msgs) != 0 {
		t.Fatalf("a cross-site post recorded %q", describe(msgs))
	}
	if got := h.get(t, s.ID); got.Status != session.StatusWaiting || got.Prompt != nil {
		t.Fatalf("a cross-site post reached the session: %+v", got)
	}
}

// responses yields the status of the first response whose URL ends with suffix.
func responses(ctx context.Context, suffix string) <-chan int64 {
	out := make(chan int64, 1)
	events := chromedp.Events(ctx, network.ResponseReceived)
	go func() {
		for ev, err := range events {
			if err != nil {
				out <- -1
				return
			}
			if strings.HasSuffix(ev.Response.URL, suffix) {
				out <- ev.Response.Status
				return
			}
		}
	}()
	return out
}

// A human cancels a session's pending wake on /triggers in a real browser.
func TestABrowserCancelsAPendingWakeOnTheTriggersPage(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, func(d *session.Session) { d.Status = session.StatusNeedsInput })
	text0, refused := h.tool(t, "wake_me_up_later", map[string]any{"session_id": s.ID, "wake_at": "2031-06-01T12:00:00", "prompt": "wake"})
	if refused {
		t.Fatal(text0)
	}
	id := triggerIDLine.FindStringSubmatch(text0)[1]
	ctx := browser(t)
	handlerstest.Step(t, ctx, "cancel the wake",
		chromedp.Navigate(h.srv.URL+"/triggers"),
		chromedp.WaitVisible(chromedp.ID("cancel-wake-"+id)),
		chromedp.Click(chromedp.ID("cancel-wake-"+id)),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if notice := handlerstest.Text(t, ctx, ".notice"); notice != "Wake cancelled: the session is no longer waiting on it." {
		t.Fatalf("after cancelling: notice %q", notice)
	}
	if out, _ := h.tool(t, "search_triggers", map[string]any{"id": mustInt(t, id)}); !strings.Contains(out, "Trigger not found") {
		t.Fatalf("the wake survived its cancel: %s", out)
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}
