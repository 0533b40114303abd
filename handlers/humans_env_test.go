package handlers_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/handlers/slack"
	"github.com/zimmerhq/zimmer/handlers/web"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
)

// The web UI's and Slack's tests share this environment: the real server (handlers.New) on the
// real test Neo4j, with a Redis database of their own so their queues never meet the REST tests'.
const humansRedisDB = 5

const (
	webUser      = "tadas"
	webPassword  = "correct horse battery staple"
	slackSecret  = "8f742231b10e8888abcd99yyyzzz85a5"
	defaultAdmin = "tadasant" // a seeded roster row
)

type humans struct {
	srv     *httptest.Server
	store   *graph.Store
	metrics *metrics.Metrics
	client  *http.Client
	dataDir string // where the service reads transcripts
	queue   *tasks.Queue
	ops     *orchestrator.Service
}

type humansOpts struct {
	admin    string // ZIMMER_ADMIN_USER; defaultAdmin when ""
	noWeb    bool   // leave the web credential unset
	noSlack  bool   // leave the Slack signing secret unset
	webUser  string
	webPass  string
	slackSec string
	// slackMappedOnly is ZIMMER_SLACK_MAPPED_ONLY=1.
	slackMappedOnly bool
	slackWorkspace  string       // ZIMMER_SLACK_WORKSPACE_URL
	log             *slog.Logger // nil discards
	catalogDir      string       // "" is the built-in catalog
	variables       catalog.Variables
	oauth           orchestrator.OAuthConfig
	backlog         bool   // hold the work backlog, emptied, for the test (orchestratortest.ExclusiveBacklog)
	redisURL        string // a Redis of the test's own (lanes it may halt), else the package's database
}

func setupHumans(t *testing.T, o humansOpts) *humans {
	t.Helper()
	m := metrics.New()
	log := cmp.Or(o.log, graphtest.Logger())
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: humansRedisDB, RedisURL: o.redisURL, Observer: m, AdminUser: cmp.Or(o.admin, defaultAdmin),
		SlackMappedOnly: o.slackMappedOnly, SlackWorkspaceURL: o.slackWorkspace, Log: log, CatalogDir: o.catalogDir, Variables: o.variables, OAuth: o.oauth})
	store := e.Store
	if o.backlog {
		orchestratortest.ExclusiveBacklog(t, e)
	}
	d := handlers.Deps{Ops: e.Ops, Metrics: m, Log: log, APIKeys: []string{apiKey}}
	if !o.noWeb {
		d.Web = web.Config{User: cmp.Or(o.webUser, webUser), Password: cmp.Or(o.webPass, webPassword)}
	}
	if !o.noSlack {
		d.SlackSigningSecret = cmp.Or(o.slackSec, slackSecret)
	}
	srv := httptest.NewServer(handlers.New(d))
	t.Cleanup(srv.Close)
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // tests look at the 303 itself
	}}
	return &humans{srv: srv, store: store, metrics: m, client: client, dataDir: e.DataDir, queue: e.Queue, ops: e.Ops}
}

type page struct {
	status   int
	body     string
	location string
}

// request sends one request; hdr are header name/value pairs. Basic credentials are added
// unless hdr sets Authorization (an empty value sends none).
func (h *humans) request(t *testing.T, method, path string, form url.Values, hdr ...string) page {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, h.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.SetBasicAuth(webUser, webPassword)
	r := handlerstest.Send(t, h.client, req, hdr...)
	return page{status: r.Status, body: r.Raw, location: r.Header.Get("Location")}
}

var tokenField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// token reads a form token off a page, as a browser holding the page would submit it.
func (h *humans) token(t *testing.T) string {
	t.Helper()
	p := h.request(t, http.MethodGet, "/sessions/new", nil)
	m := tokenField.FindStringSubmatch(p.body)
	if p.status != http.StatusOK || m == nil {
		t.Fatalf("no form token on /sessions/new: %d %s", p.status, p.body)
	}
	return m[1]
}

// post submits a form the way Zimmer's own page does: same origin, with a fresh token.
func (h *humans) post(t *testing.T, path string, form url.Values) page {
	t.Helper()
	form.Set("csrf_token", h.token(t))
	return h.request(t, http.MethodPost, path, form, "Origin", h.srv.URL, "Sec-Fetch-Site", "same-origin")
}

// postJSON calls the REST API (or /mcp) with the fleet's key.
func (h *humans) postJSON(t *testing.T, method, path string, body any) (int, map[string]any) {
	t.Helper()
	// Accept is what /mcp requires; REST ignores it.
	r := handlerstest.Do(t, h.client, method, h.srv.URL+path, body, "Accept", "application/json", "X-API-Key", apiKey)
	return r.Status, r.Body
}

// redirected reads the session id a 303 to /sessions/<id>?… names.
func redirected(t *testing.T, p page) int64 {
	t.Helper()
	if p.status != http.StatusSeeOther {
		t.Fatalf("want 303, got %d %s", p.status, p.body)
	}
	rest, ok := strings.CutPrefix(p.location, "/sessions/")
	if !ok {
		t.Fatalf("redirect to %q", p.location)
	}
	id, err := strconv.ParseInt(strings.SplitN(rest, "?", 2)[0], 10, 64)
	if err != nil {
		t.Fatalf("redirect to %q: %v", p.location, err)
	}
	return id
}

// messages is the human-message record said to the given sessions.
func (h *humans) messages(t *testing.T, ids ...int64) []roster.Message {
	t.Helper()
	msgs, err := h.store.HumanMessages(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func (h *humans) session(t *testing.T, edit func(*session.Session)) *session.Session {
	t.Helper()
	return graphtest.Session(t, h.store, edit)
}

func (h *humans) get(t *testing.T, id int64) *session.Session {
	t.Helper()
	s, err := h.store.GetSession(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// user adds a roster row of the test's own, removed when the test ends.
func (h *humans) user(t *testing.T, slackIDs ...string) roster.User {
	t.Helper()
	key := strings.ToLower(strings.ReplaceAll(graphtest.Unique(t, "human"), "-", "."))
	u := roster.User{Key: key, DisplayName: "Human " + key, Email: key + "@example.com", SlackUserIDs: slackIDs}
	if err := h.store.SaveUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.store.DeleteUser(context.Background(), key) })
	return u
}

// slackEvent posts a signed event body; ts is the request timestamp (0 means now).
func (h *humans) slackEvent(t *testing.T, body any, ts int64, secret string, hdr ...string) page {
	t.Helper()
	data, _ := json.Marshal(body)
	if ts == 0 {
		ts = time.Now().Unix()
	}
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+slack.Path, strings.NewReader(string(data)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("X-Slack-Signature", slack.Sign(secret, ts, data))
	r := handlerstest.Send(t, h.client, req, hdr...)
	return page{status: r.Status, body: r.Raw}
}

// slackMessage is an event_callback carrying one message event. Its event_id is unique to the
// channel and ts (tests draw fresh channels): delivered ids are remembered for a day.
func slackMessage(user, channel, channelType, ts, threadTS, text string) map[string]any {
	ev := map[string]any{"type": "message", "user": user, "channel": channel, "channel_type": channelType, "ts": ts, "text": text}
	if threadTS != "" {
		ev["thread_ts"] = threadTS
	}
	return map[string]any{"type": "event_callback", "event_id": "Ev" + channel + "-" + ts, "event": ev}
}

// describe renders a record compactly for comparisons: "author channel entry_point «content»".
func describe(msgs []roster.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = fmt.Sprintf("%s %s %s «%s»", m.Author, m.Channel, m.EntryPoint, m.Content)
	}
	return out
}
