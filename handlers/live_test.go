package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/handlers/web"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// The web UI people live in: the session page's queue, the chat bubble, live updates and the
// Trash, driven in Chromium where a person would use them.

func TestEditingAQueuedMessageInTheBrowserLeavesTwoRecords(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, func(d *session.Session) { d.Status = session.StatusRunning }) // a running session keeps its queue
	ctx := browser(t)
	handlerstest.Step(t, ctx, "enqueue a message",
		chromedp.Navigate(fmt.Sprintf("%s/sessions/%d", h.srv.URL, s.ID)),
		chromedp.SendKeys(chromedp.ID("enqueue-content"), "deploy to staging"),
		chromedp.Click(chromedp.ID("enqueue-submit")),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	pending, _, err := h.store.ListMessages(context.Background(), s.ID, session.MessagePending, 0, 10)
	if err != nil || len(pending) != 1 {
		t.Fatalf("want one queued message, got %v %v", pending, err)
	}
	m := pending[0]
	edit := fmt.Sprintf("edit-%d", m.ID)
	handlerstest.Step(t, ctx, "edit it in the queue",
		chromedp.Click(chromedp.CSS(fmt.Sprintf("#queued-%d summary", m.ID))),
		chromedp.WaitVisible(chromedp.ID(edit)),
		chromedp.Clear(chromedp.ID(edit)),
		chromedp.SendKeys(chromedp.ID(edit), "deploy to production instead"),
		chromedp.Click(chromedp.ID(fmt.Sprintf("edit-submit-%d", m.ID))),
		chromedp.WaitReady(chromedp.Search(`//div[@class="notice"][contains(., "Message edited")]`)),
	)
	if got := handlerstest.Text(t, ctx, fmt.Sprintf("#queued-%d .content", m.ID)); got != "deploy to production instead" {
		t.Errorf("the queue shows %q after the edit", got)
	}
	want := []string{
		"tadasant web_ui web_ui.enqueued_message «deploy to staging»",
		"tadasant web_ui web_ui.enqueued_message_edited «deploy to production instead»",
	}
	if got := describe(h.messages(t, s.ID)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("record:\n got %q\nwant %q", got, want)
	}
	if got := handlerstest.Text(t, ctx, "#human-messages-header"); got != "2 messages in this session · 0 elsewhere in the hierarchy" {
		t.Errorf("header %q", got)
	}
}

func TestTheChatBubbleRecordsOnlyTheTypedPrompt(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, nil)
	ctx := browser(t)
	typed := "Which of these sessions is stuck?"
	handlerstest.Step(t, ctx, "ask through the chat bubble on a session page",
		chromedp.Navigate(fmt.Sprintf("%s/sessions/%d", h.srv.URL, s.ID)),
		chromedp.Click(chromedp.CSS(".chat-bubble summary")),
		chromedp.WaitVisible(chromedp.ID("chat-bubble-prompt")),
		chromedp.SendKeys(chromedp.ID("chat-bubble-prompt"), typed),
		chromedp.Click(chromedp.ID("chat-bubble-submit")),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	u, err := url.Parse(handlerstest.Value(t, ctx, "read the location", chromedp.Location()))
	if err != nil {
		t.Fatal(err)
	}
	id := redirected(t, page{status: http.StatusSeeOther, location: u.RequestURI()})
	router := h.get(t, id)
	if router.AgentRoot() != "zimmer-router" || router.Genesis != session.GenesisWebUI || router.Prompt == nil {
		t.Fatalf("the bubble started %+v", router)
	}
	if want := fmt.Sprintf("web UI page /sessions/%d", s.ID); !strings.Contains(*router.Prompt, want) || !strings.HasSuffix(*router.Prompt, typed) {
		t.Errorf("the agent's prompt should say where it was typed (%q) and end with the prompt: %q", want, *router.Prompt)
	}
	want := []string{"tadasant web_ui web_ui.chat_bubble «" + typed + "»"}
	if got := describe(h.messages(t, id)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("record: got %q, want %q (the typed prompt only)", got, want)
	}
}

// mark sets a flag on the page's window that a reload would wipe.
func mark(t *testing.T, ctx context.Context) {
	t.Helper()
	handlerstest.Value(t, ctx, "mark the page", chromedp.Evaluate[bool](`window.__notReloaded = true`))
}

func stillTheSamePage(t *testing.T, ctx context.Context) {
	t.Helper()
	if !handlerstest.Value(t, ctx, "check the page was not reloaded", chromedp.Evaluate[bool](`window.__notReloaded === true`)) {
		t.Fatal("the page was reloaded; it should have been updated in place")
	}
}

func TestANewChildAndItsMessageAppearOnTheOpenParentPageWithoutAReload(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	parent := h.session(t, nil)
	ctx := browser(t)
	handlerstest.Step(t, ctx, "open the parent's page",
		chromedp.Navigate(fmt.Sprintf("%s/sessions/%d", h.srv.URL, parent.ID)),
		chromedp.WaitVisible(chromedp.ID("lineage-drawing")),
	)
	mark(t, ctx)
	child := h.session(t, func(d *session.Session) { d.ParentSessionID = &parent.ID })
	node := fmt.Sprintf(`#lineage-drawing a[href="/sessions/%d"]`, child.ID)
	handlerstest.Step(t, ctx, "wait for the child in the drawing", chromedp.WaitReady(chromedp.CSS(node)))
	stillTheSamePage(t, ctx)
	if got := handlerstest.Text(t, ctx, "#lineage-outline"); !strings.Contains(got, fmt.Sprintf("#%d", child.ID)) {
		t.Errorf("the outline lacks the child: %q", got)
	}
	redirected(t, h.post(t, fmt.Sprintf("/sessions/%d/follow_up", child.ID), url.Values{"prompt": {"said to the child"}}))
	handlerstest.Step(t, ctx, "wait for the child's message in the panel",
		chromedp.WaitReady(chromedp.Search(`//p[@id="human-messages-header"][contains(., "1 elsewhere")]`)))
	stillTheSamePage(t, ctx)
}

func TestEveryWebFormRefusesACrossSitePostFromABrowser(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, func(d *session.Session) { d.Status = session.StatusRunning })
	m, _, err := h.store.CreateMessage(context.Background(), s.ID, session.NewMessage{Content: "queued"})
	if err != nil {
		t.Fatal(err)
	}
	token := h.token(t) // leaked: the origin check alone must hold
	var action string
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = evilPage.Execute(w, map[string]string{"Action": action, "Token": token})
	}))
	defer evil.Close()
	evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1) // another site
	ctx := browser(t)
	for _, route := range web.Routes {
		if route.Method != http.MethodPost {
			continue
		}
		path := strings.ReplaceAll(webPath(route, s.ID, defaultAdmin), "/enqueued_messages/1/", fmt.Sprintf("/enqueued_messages/%d/", m.ID))
		action = h.srv.URL + path
		statuses := responses(ctx, path)
		handlerstest.Step(t, ctx, "submit the cross-site form to "+path,
			chromedp.Navigate(evilURL),
			chromedp.Click(chromedp.ID("go")),
			chromedp.WaitReady(chromedp.Search(`//body[contains(., "Refused")]`)),
		)
		if status := <-statuses; status != http.StatusForbidden {
			t.Errorf("%s: want 403, got %d", path, status)
		}
	}
	if msgs := h.messages(t, s.ID); len(msgs) != 0 {
		t.Errorf("a cross-site post recorded %q", describe(msgs))
	}
	got := h.get(t, s.ID)
	if got.Status != session.StatusRunning || got.Favorited || got.SessionNotes != nil || got.Prompt != nil || got.Goal != nil {
		t.Errorf("a cross-site post changed the session: %+v", got)
	}
	if after, err := h.store.GetMessage(context.Background(), s.ID, m.ID); err != nil || after.Content != "queued" || after.Status != session.MessagePending {
		t.Errorf("a cross-site post changed the queue: %+v %v", after, err)
	}
}

// writeTranscript gives a session the transcript a run would have left.
func (h *humans) writeTranscript(t *testing.T, id int64, lines ...string) {
	t.Helper()
	path := transcript.Path(h.dataDir, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestTheSessionPageShowsTheTranscriptReadablyAndStaysSmall(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, nil)
	lines := []string{`{"type":"zimmer_turn","turn":1,"reason":"initial","prompt":"fix the build"}`}
	for i := range 80 {
		lines = append(lines,
			fmt.Sprintf(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"step %d <b>bold</b>"},{"type":"tool_use","name":"bash","input":{"cmd":"make %d"}}]}}`, i, i),
			fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"%s","is_error":%t}]}}`, strings.Repeat("output ", 60), i == 79))
	}
	h.writeTranscript(t, s.ID, lines...)
	usage := []session.TokenUsage{
		{RequestID: graphtest.Unique(t, "req-a"), Model: "sonnet", CalledAt: time.Now(), TokenCounts: session.TokenCounts{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 5}},
		{RequestID: graphtest.Unique(t, "req-b"), Model: "opus", CalledAt: time.Now(), TokenCounts: session.TokenCounts{InputTokens: 200, OutputTokens: 30, CacheCreationTokens: 7}},
	}
	if _, err := h.store.RecordTokenUsage(context.Background(), s.ID, usage); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 35; i++ {
		if _, err := h.store.AppendLog(context.Background(), session.LogInfo, fmt.Sprintf("log line %d.", i), s.ID); err != nil {
			t.Fatal(err)
		}
	}
	p := h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d", s.ID), nil)
	if p.status != http.StatusOK {
		t.Fatalf("%d %s", p.status, p.body)
	}
	for _, want := range []string{
		"step 79 &lt;b&gt;bold&lt;/b&gt;",            // assistant text, escaped
		`<li class="tool_call error"><details open>`, // the failed call unfolded and marked
		"Show the 111 earlier entries",               // 161 entries, the last 50 shown
		fmt.Sprintf(`sse-connect="/sessions/%d/live?from=`, s.ID),
		"5 earlier lines not shown.", "log line 6.", "log line 35.", // the log's last 30 lines
		"2 model requests · 300 input, 50 output, 5 cache-read, 7 cache-write tokens · opus, sonnet", // the ledger summed
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(p.body, "step 29 ") || strings.Contains(p.body, "log line 5.") {
		t.Error("an entry before the last 50, or a log line before the last 30, is shown before asking")
	}
	if n := len(p.body); n > 100<<10 {
		t.Errorf("the page is %d bytes; pages stay under 100 KB", n)
	}
	// Asked for explicitly, the client leaves the answer compressed, as a browser receives it.
	if gz := h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d", s.ID), nil, "Accept-Encoding", "gzip"); len(gz.body) > len(p.body)/4 {
		t.Errorf("the page goes out compressed: %d bytes of %d", len(gz.body), len(p.body))
	}
	all := h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d?transcript=all", s.ID), nil)
	if !strings.Contains(all.body, "step 0 ") {
		t.Error("asking for the earlier entries shows them")
	}
}

func TestTheTrashListsArchivedSessionsWithTheirDateAndRestoresThem(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	title := "Trash me " + fmt.Sprint(time.Now().UnixNano())
	s := h.session(t, func(d *session.Session) { d.Title = &title })
	redirected(t, h.post(t, fmt.Sprintf("/sessions/%d/archive", s.ID), url.Values{"force": {"true"}}))
	archived := h.get(t, s.ID)
	if archived.Status != session.StatusArchived || archived.TrashAfter == nil {
		t.Fatalf("archive from the page: %+v", archived)
	}
	p := h.request(t, http.MethodGet, "/trash?q="+url.QueryEscape(title), nil)
	date := archived.TrashAfter.UTC().Format("2006-01-02 15:04:05 UTC")
	if !strings.Contains(p.body, title) || !strings.Contains(p.body, date) || !strings.Contains(p.body, fmt.Sprintf(`action="/sessions/%d/unarchive"`, s.ID)) {
		t.Fatalf("the Trash should list it with its date %s and a Restore button:\n%s", date, p.body)
	}
	if list := h.request(t, http.MethodGet, "/sessions?q="+url.QueryEscape(title), nil); strings.Contains(list.body, fmt.Sprintf(`id="row-%d"`, s.ID)) {
		t.Error("an archived session is listed outside the Trash")
	}
	redirected(t, h.post(t, fmt.Sprintf("/sessions/%d/unarchive", s.ID), url.Values{}))
	if got := h.get(t, s.ID); got.Status == session.StatusArchived || got.TrashAfter != nil {
		t.Fatalf("restore: %+v", got)
	}
}

func TestTheListFiltersBySearchRootFavouriteAndPages(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	tag := fmt.Sprint(time.Now().UnixNano())
	mk := func(title string, fav bool, root string) *session.Session {
		full := title + " " + tag
		return h.session(t, func(d *session.Session) {
			d.Title, d.Favorited = &full, fav
			d.Metadata = map[string]any{session.MetaAgentRoot: root}
		})
	}
	a := mk("alpha", true, "general-agent")
	b := mk("beta", false, "general-agent")
	c := mk("gamma", true, "zimmer-router")
	rows := func(query string) []int64 {
		p := h.request(t, http.MethodGet, "/sessions?"+query, nil)
		if p.status != http.StatusOK {
			t.Fatalf("%s: %d %s", query, p.status, p.body)
		}
		var ids []int64
		for _, s := range []*session.Session{a, b, c} {
			if strings.Contains(p.body, fmt.Sprintf(`id="row-%d"`, s.ID)) {
				ids = append(ids, s.ID)
			}
		}
		return ids
	}
	tests := []struct {
		query string
		want  []int64
	}{
		{"q=" + tag, []int64{a.ID, b.ID, c.ID}},
		{"q=alpha+" + tag, []int64{a.ID}},
		{"q=" + tag + "&favorites=1", []int64{a.ID, c.ID}},
		{"q=" + tag + "&root=zimmer-router", []int64{c.ID}},
		{"q=" + tag + "&favorites=1&root=general-agent", []int64{a.ID}},
		{"q=" + tag + "&status=failed", nil},
	}
	for _, tt := range tests {
		if got := rows(tt.query); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: got %v, want %v", tt.query, got, tt.want)
		}
	}
	p := h.request(t, http.MethodGet, "/sessions?q="+tag+"&status=nonsense", nil)
	if p.status != http.StatusUnprocessableEntity {
		t.Errorf("a bad status filter: %d", p.status)
	}
}

func TestTheListShowsANewSessionWithoutAReload(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	tag := fmt.Sprint(time.Now().UnixNano())
	ctx := browser(t)
	handlerstest.Step(t, ctx, "open the filtered list",
		chromedp.Navigate(h.srv.URL+"/sessions?q="+tag),
		chromedp.WaitVisible(chromedp.ID("session-rows")),
	)
	mark(t, ctx)
	title := "Arrived live " + tag
	s := h.session(t, func(d *session.Session) { d.Title = &title })
	handlerstest.Step(t, ctx, "wait for its row", chromedp.WaitReady(chromedp.ID(fmt.Sprintf("row-%d", s.ID))))
	stillTheSamePage(t, ctx)
}

// sayLater appends an assistant line saying text to the session's transcript shortly, once a
// stream opened meanwhile is following it.
func (h *humans) sayLater(id int64, text string) {
	line, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant",
		"content": []map[string]any{{"type": "text", "text": text}}}})
	go func() {
		time.Sleep(300 * time.Millisecond)
		f, err := os.OpenFile(transcript.Path(h.dataDir, id), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, _ = f.Write(append(line, '\n'))
			_ = f.Close()
		}
	}()
}

// events reads server-sent events off a live route until want has arrived or time runs out.
func (h *humans) events(t *testing.T, ctx context.Context, path string, want func(event, data string) bool) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(webUser, webPassword)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	event, data := "", []string{}
	for sc.Scan() {
		switch line := sc.Text(); {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		case line == "":
			if event != "" && want(event, strings.Join(data, "\n")) {
				return
			}
			event, data = "", nil
		}
	}
	t.Fatalf("%s ended before the event arrived: %v", path, sc.Err())
}

func TestALiveSessionStreamAppendsWhatTheTranscriptGains(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, nil)
	h.writeTranscript(t, s.ID, `{"type":"zimmer_turn","turn":1,"reason":"initial","prompt":"go"}`)
	p := h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d", s.ID), nil)
	from := regexp.MustCompile(`/live\?from=(\d+)`).FindStringSubmatch(p.body)
	if from == nil || from[1] == "0" {
		t.Fatalf("the page should say where its transcript ended: %v", from)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h.sayLater(s.ID, "written later")
	seen := map[string]bool{}
	h.events(t, ctx, fmt.Sprintf("/sessions/%d/live?from=%s", s.ID, from[1]), func(event, data string) bool {
		seen[event] = true
		if event == "transcript" && strings.Contains(data, "go") && !strings.Contains(data, "written later") {
			t.Fatalf("the stream repeated what the page already showed: %s", data)
		}
		return event == "transcript" && strings.Contains(data, "written later")
	})
	for _, panel := range []string{"status", "hierarchy", "messages", "queue", "logs"} {
		if !seen[panel] {
			t.Errorf("the stream did not bring the page's %s panel up to date on connecting", panel)
		}
	}
}

// The stream a session page opens sends, on connecting, only the panels that changed since the
// page was rendered: an unchanged panel is never swapped under its reader (which would close
// whatever they just opened in it).
func TestALiveSessionPageRedrawsOnlyWhatChangedSinceItWasRendered(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, nil)
	h.writeTranscript(t, s.ID, `{"type":"zimmer_turn","turn":1,"reason":"initial","prompt":"go"}`)
	tests := []struct {
		name   string
		change func()
		want   []string
	}{
		{"nothing changed", func() {}, nil},
		{"a log line was written", func() {
			if _, err := h.store.AppendLog(context.Background(), session.LogInfo, "written after the page.", s.ID); err != nil {
				t.Fatal(err)
			}
		}, []string{"logs"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d", s.ID), nil)
			live := regexp.MustCompile(`sse-connect="(/sessions/\d+/live\?[^"]+)"`).FindStringSubmatch(p.body)
			if live == nil || !strings.Contains(live[1], "shown=") {
				t.Fatalf("the page should tell its stream what it shows: %v", live)
			}
			tt.change()
			marker := fmt.Sprintf("marker %d", i)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			h.sayLater(s.ID, marker)
			var panels []string
			h.events(t, ctx, html.UnescapeString(live[1]), func(event, data string) bool {
				if event == "transcript" {
					return strings.Contains(data, marker)
				}
				panels = append(panels, event)
				return false
			})
			if fmt.Sprint(panels) != fmt.Sprint(tt.want) {
				t.Errorf("panels sent before the transcript line: %v, want %v", panels, tt.want)
			}
		})
	}
}

func TestTheEditFormChangesTitleGoalAndClass(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, nil)
	path := fmt.Sprintf("/sessions/%d/update", s.ID)
	redirected(t, h.post(t, path, url.Values{"title": {"Ship the driver"}, "goal": {"CI is green"}, "scheduling_class": {"spot"}}))
	got := h.get(t, s.ID)
	if got.Title == nil || *got.Title != "Ship the driver" || got.Goal == nil || *got.Goal != "CI is green" || got.PriorityClass() != session.ClassSpot {
		t.Fatalf("after saving: %+v", got)
	}
	redirected(t, h.post(t, path, url.Values{"title": {"Ship the driver"}, "goal": {""}, "scheduling_class": {""}}))
	if got := h.get(t, s.ID); got.Goal != nil || got.SchedulingClass != nil {
		t.Fatalf("a blank goal and class clear them: %+v", got)
	}
	if p := h.post(t, path, url.Values{"title": {"x"}, "scheduling_class": {"urgent"}}); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("an unknown class is refused: %d", p.status)
	}
}

func TestThePagesScriptsAreZimmersOwnServedCompressed(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	p := h.request(t, http.MethodGet, "/sessions", nil)
	srcs := regexp.MustCompile(`<(?:script|link)[^>]+(?:src|href)="([^"]+)"`).FindAllStringSubmatch(p.body, -1)
	if len(srcs) != 3 {
		t.Fatalf("want the stylesheet, htmx and its SSE extension, got %q", srcs)
	}
	for _, m := range srcs {
		if !strings.HasPrefix(m[1], "/static/") {
			t.Errorf("%s is loaded from elsewhere than Zimmer itself", m[1])
		}
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+m[1], nil)
		req.SetBasicAuth(webUser, webPassword)
		r := handlerstest.Send(t, h.client, req, "Accept-Encoding", "gzip")
		if r.Status != http.StatusOK || r.Header.Get("Cache-Control") == "no-store" {
			t.Errorf("%s: %d, Cache-Control %q", m[1], r.Status, r.Header.Get("Cache-Control"))
		}
		if strings.HasSuffix(m[1], ".js") && r.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s goes out uncompressed", m[1])
		}
	}
	for _, name := range []string{"nope.js", "htmx.LICENSE", "..%2Fweb.go"} {
		if r := h.request(t, http.MethodGet, "/static/"+name, nil); r.status != http.StatusNotFound {
			t.Errorf("/static/%s: want 404, got %d", name, r.status)
		}
	}
}
