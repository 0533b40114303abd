package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/handlers/web"
	"github.com/zimmerhq/zimmer/session"
)

// webPath fills a web route's parameters with real values.
func webPath(route web.Route, sessionID int64, userKey string) string {
	p := strings.NewReplacer(":id", fmt.Sprint(sessionID), ":key", userKey, ":message_id", "1", ":file", "app.css").Replace(route.Path)
	return p
}

func TestEveryWebRouteIs503WithoutACredential(t *testing.T) {
	h := setupHumans(t, humansOpts{noWeb: true})
	for _, route := range web.Routes {
		t.Run(route.Method+" "+route.Path, func(t *testing.T) {
			p := h.request(t, route.Method, webPath(route, 1, "tadasant"), url.Values{})
			if p.status != http.StatusServiceUnavailable || !strings.Contains(p.body, "ZIMMER_WEB_USER and ZIMMER_WEB_PASSWORD") {
				t.Fatalf("got %d %s", p.status, p.body)
			}
		})
	}
}

func TestEveryWebRouteNeedsTheBasicCredential(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, nil)
	wrong := func(user, pass string) string {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.SetBasicAuth(user, pass)
		return r.Header.Get("Authorization")
	}
	creds := []struct{ name, header string }{
		{"no credential", ""},
		{"wrong password", wrong(webUser, "wrong")},
		{"wrong user", wrong("someone", webPassword)},
		{"password prefix", wrong(webUser, webPassword[:5])},
		{"bearer instead of basic", "Bearer " + apiKey},
	}
	for _, route := range web.Routes {
		for _, c := range creds {
			t.Run(route.Method+" "+route.Path+" with "+c.name, func(t *testing.T) {
				p := h.request(t, route.Method, webPath(route, s.ID, "tadasant"), url.Values{}, "Authorization", c.header)
				if p.status != http.StatusUnauthorized {
					t.Fatalf("want 401, got %d %s", p.status, p.body)
				}
			})
		}
	}
	if p := h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d", s.ID), nil); p.status != http.StatusOK {
		t.Fatalf("the right credential is admitted: %d %s", p.status, p.body)
	}
}

func TestCrossSiteWebPostsAre403AndRecordNothing(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, nil)
	path := fmt.Sprintf("/sessions/%d/follow_up", s.ID)
	good := h.token(t)
	tests := []struct {
		name  string
		token string
		hdr   []string
	}{
		{"no token", "", nil},
		{"a made-up token", "AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", nil},
		{"a token with a tampered signature", good[:len(good)-2] + "xx", nil},
		{"a valid token from another site's form", good, []string{"Origin", "https://evil.example"}},
		{"a valid token in a cross-site fetch", good, []string{"Sec-Fetch-Site", "cross-site"}},
		{"a valid token from a same-site sibling", good, []string{"Sec-Fetch-Site", "same-site"}},
		{"a valid token referred by another site", good, []string{"Referer", "https://evil.example/page"}},
		{"a valid token from an opaque origin", good, []string{"Origin", "null"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form := url.Values{"prompt": {"forged"}}
			if tt.token != "" {
				form.Set("csrf_token", tt.token)
			}
			p := h.request(t, http.MethodPost, path, form, tt.hdr...)
			if p.status != http.StatusForbidden {
				t.Fatalf("want 403, got %d %s", p.status, p.body)
			}
		})
	}
	if got := h.get(t, s.ID); got.Status != session.StatusWaiting || got.Prompt != nil {
		t.Fatalf("a refused post reached the session: %+v", got)
	}
	if msgs := h.messages(t, s.ID); len(msgs) != 0 {
		t.Fatalf("a refused post recorded %q", describe(msgs))
	}
	form := url.Values{"prompt": {"mine"}, "csrf_token": {good}}
	if p := h.request(t, http.MethodPost, path, form, "Origin", h.srv.URL); p.status != http.StatusSeeOther {
		t.Fatalf("the same token from Zimmer's own page is accepted: %d %s", p.status, p.body)
	}
}

func TestTheSessionPageShowsTheHierarchyAndTheRecord(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	title := "Router <b>bold</b>"
	router := h.session(t, func(d *session.Session) { d.Title = &title; d.Genesis = session.GenesisWebUI })
	worker := h.session(t, func(d *session.Session) { d.ParentSessionID = &router.ID })
	redirected(t, h.post(t, fmt.Sprintf("/sessions/%d/follow_up", router.ID), url.Values{"prompt": {"build <script>x</script>"}}))
	p := h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d", worker.ID), nil)
	if p.status != http.StatusOK {
		t.Fatalf("got %d %s", p.status, p.body)
	}
	for _, want := range []string{
		"0 messages in this session · 1 elsewhere in the hierarchy",
		`<span class="badge elsewhere">elsewhere</span>`,
		fmt.Sprintf(`href="/sessions/%d"`, router.ID),
		"build &lt;script&gt;x&lt;/script&gt;",
		"← this session",
		"Router ‹b›bold‹/b›", // titles are one-line sanitised by the outline, then HTML-escaped
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("worker page lacks %q", want)
		}
	}
	if strings.Contains(p.body, "<script>x") {
		t.Error("message content must be escaped")
	}
	p = h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d", router.ID), nil)
	if !strings.Contains(p.body, "1 message in this session · 0 elsewhere in the hierarchy") || !strings.Contains(p.body, "this session</span>") {
		t.Errorf("router page header/badge wrong:\n%s", p.body)
	}
	lonely := h.session(t, nil)
	p = h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d", lonely.ID), nil)
	if !strings.Contains(p.body, "none recorded anywhere in this hierarchy") {
		t.Error("an empty record must say what absence means")
	}
	if p := h.request(t, http.MethodGet, "/sessions", nil); p.status != http.StatusOK || !strings.Contains(p.body, fmt.Sprintf("#%d", lonely.ID)) {
		t.Errorf("sessions list: %d", p.status)
	}
}

func TestRosterIsEditedOnTheSupervisorPage(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	slackUser, _ := slackIDs(t)
	owner := h.user(t, slackUser)
	key := strings.ReplaceAll(strings.ToLower(owner.Key), "human", "new")
	t.Cleanup(func() { _ = h.store.DeleteUser(context.Background(), key) })
	tests := []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"a key in the wrong format", url.Values{"key": {"Bad Key"}, "display_name": {"X"}}, http.StatusUnprocessableEntity,
			"Key must be lowercase letters, digits, dashes, dots or underscores"},
		{"a blank display name", url.Values{"key": {key}, "display_name": {" "}}, http.StatusUnprocessableEntity, "Display name can&#39;t be blank"},
		{"an email another human has", url.Values{"key": {key}, "display_name": {"N"}, "email": {strings.ToUpper(owner.Email)}},
			http.StatusUnprocessableEntity, "Email has already been taken by " + owner.Key},
		{"a Slack id another human has", url.Values{"key": {key}, "display_name": {"N"}, "slack_user_ids": {"UFRESH1, " + slackUser}},
			http.StatusUnprocessableEntity, "Slack user id " + slackUser + " already belongs to " + owner.Key},
		{"a valid row", url.Values{"key": {key}, "display_name": {"Newcomer"}, "slack_user_ids": {"UFRESH1" + slackUser}, "notes": {"Reviews PRs."}},
			http.StatusSeeOther, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := h.post(t, "/supervisor/users", tt.form)
			if p.status != tt.status || !strings.Contains(p.body, tt.want) {
				t.Fatalf("want %d with %q, got %d %s", tt.status, tt.want, p.status, p.body)
			}
		})
	}
	users, err := h.store.Users(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, u := range users {
		if u.Key == key {
			found = u.DisplayName == "Newcomer" && u.Notes == "Reviews PRs." && len(u.SlackUserIDs) == 1
		}
	}
	if !found {
		t.Fatalf("the valid row was not saved as typed: %+v", users)
	}
	if p := h.request(t, http.MethodGet, "/supervisor/users", nil); !strings.Contains(p.body, "Newcomer") {
		t.Fatal("the roster page lists the new row")
	}
	if p := h.post(t, "/supervisor/users/"+key+"/delete", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("delete: %d %s", p.status, p.body)
	}
	if p := h.post(t, "/supervisor/users/"+key+"/delete", url.Values{}); p.status != http.StatusNotFound {
		t.Fatalf("deleting a missing row: want 404, got %d", p.status)
	}
}
