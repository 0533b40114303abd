package handlers_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/handlers/rest"
	"github.com/zimmerhq/zimmer/handlers/slack"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
	appsettings "github.com/zimmerhq/zimmer/settings"
)

// The fuzz targets' own Redis database: their queues never meet another test's.
const fuzzRedisDB = 14

// fuzzHarness is the real server on the real stores with a log recorder, so a panic that a
// recovery middleware answered is still seen, and a set of sessions the harness owns.
type fuzzHarness struct {
	srv   *httptest.Server
	store *graph.Store
	logs  *graphtest.LogRecorder
	// fixture: a waiting session with one queued message; other: a second session (an uncle
	// link target); channel and user: the Slack channel the fixture listens on and a mapped human.
	fixture, other *session.Session
	messageID      int64
	channel, user  string
	dirty          bool // a request succeeded: the fixtures may have moved, make new ones
	// last is the fingerprint the previous refused request left, for the same named session:
	// nothing else writes to the harness's records, so it is this iteration's "before".
	last, lastNamed string
}

func newFuzzHarness(t testing.TB) *fuzzHarness {
	log, logs := graphtest.NewLogRecorder()
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: fuzzRedisDB, Log: log})
	// The backlog routes are write routes too: hold the backlog, so no other package's backlog
	// test meets a fuzzed item.
	orchestratortest.ExclusiveBacklog(t, e)
	srv := httptest.NewServer(handlers.New(handlers.Deps{Ops: e.Ops, Metrics: metrics.New(), Log: log,
		APIKeys: []string{apiKey}, SlackSigningSecret: slackSecret}))
	t.Cleanup(srv.Close)
	h := &fuzzHarness{srv: srv, store: e.Store, logs: logs, dirty: true}
	h.user = strings.ToUpper(strings.ReplaceAll(graphtest.Unique(t, "UFUZZ"), "-", ""))
	key := strings.ToLower(strings.ReplaceAll(graphtest.Unique(t, "fuzz"), "-", "."))
	u := roster.User{Key: key, DisplayName: "Fuzz " + key, Email: key + "@example.com", SlackUserIDs: []string{h.user}}
	if err := e.Store.SaveUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Store.DeleteUser(context.Background(), key) })
	return h
}

// refresh makes new fixtures after a request that succeeded (it may have archived, deleted or
// reparented them), so every iteration starts from the same shapes.
func (h *fuzzHarness) refresh(t *testing.T) {
	t.Helper()
	if !h.dirty {
		return
	}
	h.channel = strings.ToUpper(strings.ReplaceAll(graphtest.Unique(t, "CFUZZ"), "-", ""))
	h.fixture = graphtest.Session(t, h.store, func(d *session.Session) {
		d.Genesis = session.GenesisSlack
		d.CustomMetadata = map[string]any{session.SlackChannelKey: h.channel}
	})
	h.other = graphtest.Session(t, h.store, nil)
	status, raw := h.call(t, http.MethodPost, fmt.Sprintf("/api/v1/sessions/%d/enqueued_messages", h.fixture.ID), []byte(`{"content":"queued"}`))
	if status != http.StatusCreated {
		t.Fatalf("fixture message: %d %s", status, raw)
	}
	msgs, _, err := h.store.ListMessages(context.Background(), h.fixture.ID, "", 0, 1)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("fixture message: %v %v", msgs, err)
	}
	h.messageID = msgs[0].ID
	h.dirty, h.last = false, ""
}

// expand puts the fixtures' ids into a fuzzed text: $SID, $OID and $MID.
func (h *fuzzHarness) expand(b []byte) []byte {
	return []byte(strings.NewReplacer("$SID", strconv.FormatInt(h.fixture.ID, 10), "$OID", strconv.FormatInt(h.other.ID, 10),
		"$MID", strconv.FormatInt(h.messageID, 10), "$CHANNEL", h.channel, "$USER", h.user).Replace(string(b)))
}

func (h *fuzzHarness) call(t *testing.T, method, path string, body []byte, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("request %s %q: %v", method, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", apiKey)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

// fingerprint covers the fixtures, a session the path names by id when one exists, and the
// app settings.
func (h *fuzzHarness) fingerprint(t *testing.T, named string) string {
	t.Helper()
	if h.last != "" && h.lastNamed == named {
		return h.last
	}
	ids := []int64{h.fixture.ID, h.other.ID}
	if id, err := strconv.ParseInt(named, 10, 64); err == nil {
		ids = append(ids, id)
	}
	settings, err := h.store.AppSettings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s settings %+v", graphtest.Fingerprint(t, h.store, ids...), settings)
}

// checkLogs fails the iteration when a recovery path fired: Gin's recovery answering a panic,
// the MCP tool guard catching one, or a failure no error mapping foresaw.
func (h *fuzzHarness) checkLogs(t *testing.T, what string) string {
	t.Helper()
	logs := h.logs.Take()
	for _, bad := range []string{"panic serving request", "mcp: tool panicked", "mcp: tool failed unexpectedly"} {
		if strings.Contains(logs, bad) {
			t.Fatalf("%s: %q was logged:\n%s", what, bad, logs)
		}
	}
	return logs
}

// writeRoutes are the REST routes that change something: every body-taking route the API has.
func writeRoutes() []rest.Route {
	var out []rest.Route
	for _, r := range rest.Routes {
		if r.Method != http.MethodGet {
			out = append(out, r)
		}
	}
	return out
}

// FuzzRESTWrites sends a fuzzed JSON body (and, when key is not empty, a fuzzed path key) to a
// write route chosen by route. Whatever arrives: no 5xx, no panic, and a 4xx changes nothing.
// $SID, $OID and $MID in the body or key stand for the harness's own session, second session
// and queued message.
func FuzzRESTWrites(f *testing.F) {
	h := newFuzzHarness(f)
	routes := writeRoutes()
	settings, err := h.store.AppSettings(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, route uint8, key string, body []byte) {
		h.refresh(t)
		r := routes[int(route)%len(routes)]
		id := strconv.FormatInt(h.fixture.ID, 10)
		if key != "" {
			id = string(h.expand([]byte(key)))
		}
		path := "/api/v1" + strings.NewReplacer(":id", url.PathEscape(id), ":message_id", strconv.FormatInt(h.messageID, 10),
			":uncle_id", strconv.FormatInt(h.other.ID, 10)).Replace(r.Path)
		body = h.expand(body)
		what := fmt.Sprintf("%s %s %q", r.Method, path, truncate(string(body)))
		before := h.fingerprint(t, id)
		status, raw := h.call(t, r.Method, path, body)
		h.last = ""
		h.checkLogs(t, what)
		switch {
		case status >= 500:
			t.Fatalf("%s: %d %s", what, status, truncate(raw))
		case status >= 400:
			if after := h.fingerprint(t, id); after != before {
				t.Fatalf("%s was refused (%d %s) but wrote:\nbefore %s\nafter  %s", what, status, truncate(raw), before, after)
			}
			h.last, h.lastNamed = before, id
		default:
			h.dirty = true
			if r.Path != "/app_settings" {
				break
			}
			// The settings are the whole fleet's: put them back for the tests that follow.
			if _, err := h.store.UpdateAppSettings(context.Background(), appsettings.Change{ProvenanceViaMCPEnabled: &settings.ProvenanceViaMCPEnabled}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzSlackEvents posts a fuzzed body to /slack/events, signed with the test secret so it
// passes the signature check. Slack is answered 200 for whatever it cannot act on, so an event
// counts as refused unless the log says it was delivered; a refused event changes nothing
// (except the event id's dedupe mark when it reached a session that could not take it).
// $CHANNEL and $USER stand for the channel the harness's session listens on and a mapped human.
func FuzzSlackEvents(f *testing.F) {
	h := newFuzzHarness(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		h.refresh(t)
		body = h.expand(body)
		what := fmt.Sprintf("Slack event %q", truncate(string(body)))
		before, records := h.fingerprint(t, ""), graphtest.Records(t, h.store, h.fixture.ID, h.other.ID)
		ts := time.Now().Unix()
		status, raw := h.call(t, http.MethodPost, slack.Path, body,
			"X-Slack-Request-Timestamp", strconv.FormatInt(ts, 10), "X-Slack-Signature", slack.Sign(slackSecret, ts, body))
		h.last = ""
		logs := h.checkLogs(t, what)
		if status >= 500 {
			t.Fatalf("%s: %d %s\n%s", what, status, truncate(raw), logs)
		}
		switch {
		case strings.Contains(logs, "outcome=delivered"):
			h.dirty = true
		case strings.Contains(logs, `msg="Slack message not delivered"`):
			// The session could not take it. Its event id stays marked so that Slack's retries
			// are dropped (a node the census counts); the sessions must be untouched.
			if after := graphtest.Records(t, h.store, h.fixture.ID, h.other.ID); after != records {
				t.Fatalf("%s was not delivered but wrote:\nbefore %s\nafter  %s", what, records, after)
			}
		default:
			if after := h.fingerprint(t, ""); after != before {
				t.Fatalf("%s was refused (%d %s) but wrote:\nbefore %s\nafter  %s", what, status, truncate(raw), before, after)
			}
			h.last, h.lastNamed = before, ""
		}
	})
}
