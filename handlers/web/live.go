package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// Live pages: server-sent events that replace a page's panels when the graph changes and
// append a running session's transcript as it is written. htmx's SSE extension (vendored,
// static.go) swaps each event into the element whose sse-swap names it.
//
// Why a fingerprint poll rather than a publish on every write: the writes that change what a
// page shows happen in the API server, in the worker, in sweeps and in other helpers' new code
// alike; a publish would have to be remembered at every one of them, and one forgotten is a
// page that silently goes stale. One cheap read (graph.ChangeVersion: count-store counts and two
// max() scans) once a second, made only while a live page is open and shared by all of them,
// sees every write whoever made it. Pages do the rest: each re-renders its own panels and sends
// only those that changed.

const (
	pollEvery  = time.Second      // how often the fingerprint and a transcript are looked at
	heartbeat  = 20 * time.Second // an SSE comment, so proxies keep an idle stream open
	maxLive    = 64               // live connections served at once; more are refused (503)
	retryAfter = "5"
	// writeGrace is how long one event may take to reach the browser; each write extends the
	// server's WriteTimeout by it, so a stream outlives that timeout while its browser reads,
	// and a browser that stops reading loses its connection.
	writeGrace = 2 * heartbeat
)

// broker tells live pages that the graph changed. One poller runs while at least one page
// listens; each listener has a one-slot channel, so a slow page coalesces changes instead of
// queueing them, and nothing grows with a page that stops reading.
type broker struct {
	version func(context.Context) (string, error)
	every   time.Duration
	log     *slog.Logger

	mu   sync.Mutex
	subs map[chan struct{}]struct{}
	stop context.CancelFunc // set while the poller runs
}

func newBroker(version func(context.Context) (string, error), every time.Duration, log *slog.Logger) *broker {
	return &broker{version: version, every: every, log: log, subs: map[chan struct{}]struct{}{}}
}

// subscribe registers a listener, starting the poller for the first; ok is false when maxLive
// listeners are already served. done unregisters it, stopping the poller after the last.
func (b *broker) subscribe() (changes <-chan struct{}, done func(), ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.subs) >= maxLive {
		return nil, nil, false
	}
	ch := make(chan struct{}, 1)
	b.subs[ch] = struct{}{}
	if b.stop == nil {
		ctx, cancel := context.WithCancel(context.Background())
		b.stop = cancel
		go b.poll(ctx)
	}
	return ch, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs, ch)
		if len(b.subs) == 0 && b.stop != nil {
			b.stop()
			b.stop = nil
		}
	}, true
}

func (b *broker) poll(ctx context.Context) {
	t := time.NewTicker(b.every)
	defer t.Stop()
	last := ""
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, b.every*5)
		v, err := b.version(rctx)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				b.log.Warn("live pages: the change check failed; retrying", "err", err)
			}
			continue
		}
		if v != last {
			last = v
			b.notify()
		}
	}
}

func (b *broker) notify() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- struct{}{}:
		default: // already told; it will look once for both
		}
	}
}

// stream is one live connection: it sends named events, each panel only when its HTML differs
// from what this connection sent last.
type stream struct {
	c     *gin.Context
	rc    *http.ResponseController
	token string            // the form token of every panel this connection renders
	sent  map[string]string // event → the HTML last sent
	shown map[string]string // event → the digest of what the page showed (?shown=), until first rendered
}

// open starts an event stream on c, or refuses it when too many are open.
func (h *Handler) open(c *gin.Context) (*stream, <-chan struct{}, func(), bool) {
	changes, done, ok := h.live.subscribe()
	if !ok {
		c.Header("Retry-After", retryAfter)
		c.String(http.StatusServiceUnavailable, "Too many live pages are open; this one will retry.\n")
		return nil, nil, nil, false
	}
	c.Header("Content-Type", "text/event-stream")
	c.Header("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)
	s := &stream{c: c, rc: http.NewResponseController(c.Writer), token: h.csrfToken(), sent: map[string]string{}, shown: map[string]string{}}
	for _, pair := range strings.SplitN(c.Query("shown"), ".", 16) {
		if event, digest, ok := strings.Cut(pair, "-"); ok {
			s.shown[event] = digest
		}
	}
	s.write(": live\n\n")
	return s, changes, done, true
}

// panel sends html as event unless it is what this connection last sent as that event or, on
// the first render, what the page already shows: swapping an unchanged panel a moment after the
// page loads would close whatever the reader just opened in it.
func (s *stream) panel(event, html string) {
	if s.sent[event] == html {
		return
	}
	s.sent[event] = html
	if digest, ok := s.shown[event]; ok {
		delete(s.shown, event)
		if digest == panelDigest(html, s.token) {
			return
		}
	}
	s.send(event, html)
}

// panelDigest fingerprints a panel without its form token, which is fresh in every render, so
// two renders of the same state digest alike.
func panelDigest(html, token string) string {
	if token != "" {
		html = strings.ReplaceAll(html, token, "")
	}
	sum := sha256.Sum256([]byte(html))
	return hex.EncodeToString(sum[:8])
}

// shownPanels digests the panels a full page shows, for its live URL's ?shown=, so the stream
// sends on connecting only the panels that changed in between. "" (a panel failed to render)
// makes the stream send them all.
func (h *Handler) shownPanels(page string, panels [][2]string, data any) string {
	digests := make([]string, 0, len(panels))
	for _, p := range panels {
		html, err := h.fragment(page, p[1], view{Data: data})
		if err != nil {
			return ""
		}
		digests = append(digests, p[0]+"-"+panelDigest(html, ""))
	}
	return strings.Join(digests, ".")
}

// send writes one event; every line of html goes out as a data line (the client joins them).
func (s *stream) send(event, html string) {
	var b strings.Builder
	fmt.Fprintf(&b, "event: %s\n", event)
	for line := range strings.SplitSeq(html, "\n") {
		b.WriteString("data: ")
		b.WriteString(strings.TrimSuffix(line, "\r"))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	s.write(b.String())
}

func (s *stream) ping() { s.write(": ping\n\n") }

// write sends text at once, within writeGrace. A failed write needs no handling here: the
// connection is gone, and its request context ends the stream.
func (s *stream) write(text string) {
	_ = s.rc.SetWriteDeadline(time.Now().Add(writeGrace))
	_, _ = s.c.Writer.WriteString(text)
	s.c.Writer.Flush()
}

// sessionPanels are the session page's replaceable panels: event name → template.
var sessionPanels = [][2]string{
	{"status", "session-status"}, {"hierarchy", "session-lineage"}, {"messages", "session-messages"},
	{"queue", "session-queue"}, {"logs", "session-log"},
}

// liveSession streams one session page: its panels whenever the graph changes, and the entries
// appended to its transcript after byte offset ?from= (where the page's own rendering ended).
// It ends when the browser goes away or the session is deleted.
func (h *Handler) liveSession(c *gin.Context) {
	id, _, err := h.sessionID(c)
	if err != nil {
		h.refuse(c, err, "/sessions")
		return
	}
	from, _ := strconv.ParseInt(c.Query("from"), 10, 64)
	s, changes, done, ok := h.open(c)
	if !ok {
		return
	}
	defer done()
	ctx := c.Request.Context()
	panels := func() bool {
		p, err := h.loadSessionPage(ctx, id, skipTranscript)
		if err != nil {
			if !errors.Is(err, orchestrator.ErrNotFound) && ctx.Err() == nil {
				h.log.Warn("live session page: panels not rendered", "session_id", id, "err", err)
			}
			return errors.Is(err, orchestrator.ErrNotFound) // a deleted session: nothing more to show
		}
		for _, panel := range sessionPanels {
			html, err := h.fragment("session.html", panel[1], view{Token: s.token, Data: p})
			if err != nil {
				h.log.Error("live session page: panel failed", "panel", panel[1], "err", err)
				continue
			}
			s.panel(panel[0], html)
		}
		return false
	}
	tail := func() {
		entries, next, err := h.ops.TranscriptSince(id, from)
		if err != nil {
			h.log.Warn("live session page: transcript not read", "session_id", id, "err", err)
			return
		}
		from = next
		if len(entries) > 0 {
			html, err := h.fragment("session.html", "transcript-entries", transcriptEntries(entries))
			if err == nil {
				s.send("transcript", html)
			}
		}
	}
	if panels() { // what changed between the page's rendering and this connection
		return
	}
	h.follow(ctx, s, changes, panels, tail)
}

// follow runs a live connection until the client leaves or the server stops: panels() on every
// change (true ends the stream), tick() every pollEvery, a heartbeat when idle.
func (h *Handler) follow(ctx context.Context, s *stream, changes <-chan struct{}, panels func() bool, tick func()) {
	poll, beat := time.NewTicker(pollEvery), time.NewTicker(heartbeat)
	defer poll.Stop()
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.stop:
			return
		case <-changes:
			if panels() {
				return
			}
		case <-poll.C:
			if tick != nil {
				tick()
			}
		case <-beat.C:
			s.ping()
		}
	}
}
