// Package web is the humans' surface: server-rendered pages behind one HTTP Basic credential —
// the sessions list, a session's detail with its hierarchy and human messages, the forms that
// start and follow up sessions, and the supervisor's roster page. Its forms are capture
// boundaries: whatever is typed here is attributed to the admin (ZIMMER_ADMIN_USER). No page
// reads or forwards an acting_session_id, so a human is never recorded as an uncle.
package web

import (
	"crypto/sha256"
	"log/slog"
	"net/http"
	"net/url"
	"slices"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// Config is the web UI's credential and where it is published.
type Config struct {
	User, Password string // both empty: the web UI is off
	PublicURL      string // ZIMMER_PUBLIC_URL, accepted as an Origin besides the request's Host
	// Stop ends every live page's event stream when it closes (the server is shutting down),
	// so a shutdown does not wait on open browser tabs. Nil: streams end with their browsers.
	Stop <-chan struct{}
}

// Enabled reports whether the web UI is served.
func (c Config) Enabled() bool { return c.User != "" && c.Password != "" }

// Disabled is what every web route answers while the web UI has no credential.
const Disabled = "Zimmer's web UI is off: set ZIMMER_WEB_USER and ZIMMER_WEB_PASSWORD (both) and restart `zimmer serve` to turn it on.\n"

// Handler serves the web pages.
type Handler struct {
	ops        *orchestrator.Service
	log        *slog.Logger
	user, pass [32]byte
	csrfKey    []byte
	publicHost string
	pages      pages
	live       *broker
	stop       <-chan struct{}
}

// New builds the handler.
func New(ops *orchestrator.Service, log *slog.Logger, c Config) *Handler {
	h := &Handler{ops: ops, log: log, user: sha256.Sum256([]byte(c.User)), pass: sha256.Sum256([]byte(c.Password)),
		csrfKey: newCSRFSecret(), pages: parsePages(), stop: c.Stop}
	h.live = newBroker(ops.ChangeVersion, pollEvery, log)
	if u, err := url.Parse(c.PublicURL); err == nil {
		h.publicHost = u.Host
	}
	return h
}

// Route is one web route; Routes is the table Mount installs and tests enumerate.
type Route struct {
	Method, Path string
	Handle       func(*Handler, *gin.Context)
}

// Routes lists every web route. POSTs are the capture boundaries, the session page's buttons,
// the roster edits, the notification inbox's and the triggers page's actions.
var Routes = slices.Concat(sessionRoutes, notificationRoutes, triggerRoutes, spotRoutes)

// sessionRoutes are the sessions' pages and forms and the supervisor's roster.
var sessionRoutes = []Route{
	{http.MethodGet, "/", (*Handler).home},
	{http.MethodGet, "/static/:file", (*Handler).static},
	{http.MethodGet, "/sessions", (*Handler).listSessions},
	{http.MethodGet, "/live/sessions", (*Handler).liveList},
	{http.MethodGet, "/trash", (*Handler).trash},
	{http.MethodGet, "/sessions/new", (*Handler).newSession},
	{http.MethodPost, "/sessions", (*Handler).createSession},
	{http.MethodPost, "/quick_prompt", (*Handler).quickPrompt},
	{http.MethodPost, "/chat_bubble", (*Handler).chatBubble},
	{http.MethodGet, "/sessions/:id", (*Handler).showSession},
	{http.MethodGet, "/sessions/:id/live", (*Handler).liveSession},
	{http.MethodPost, "/sessions/:id/follow_up", (*Handler).followUp},
	{http.MethodPost, "/sessions/:id/enqueued_messages", (*Handler).enqueue},
	{http.MethodPost, "/sessions/:id/enqueued_messages/:message_id/edit", editMessage},
	{http.MethodPost, "/sessions/:id/enqueued_messages/:message_id/reorder", reorderMessage},
	{http.MethodPost, "/sessions/:id/enqueued_messages/:message_id/delete", deleteMessage},
	{http.MethodPost, "/sessions/:id/enqueued_messages/:message_id/send_now", sendNow},
	{http.MethodPost, "/sessions/:id/pause", pauseSession},
	{http.MethodPost, "/sessions/:id/sleep", sleepSession},
	{http.MethodPost, "/sessions/:id/restart", restartSession},
	{http.MethodPost, "/sessions/:id/fork", forkSession},
	{http.MethodPost, "/sessions/:id/refresh", refreshSession},
	{http.MethodPost, "/sessions/:id/archive", archiveSession},
	{http.MethodPost, "/sessions/:id/unarchive", unarchiveSession},
	{http.MethodPost, "/sessions/:id/favorite", favoriteSession},
	{http.MethodPost, "/sessions/:id/notes", notesSession},
	{http.MethodPost, "/sessions/:id/mcp_servers", serversSession},
	{http.MethodPost, "/sessions/:id/update", updateSession},
	{http.MethodPost, "/sessions/:id/delete", (*Handler).deleteSession},
	// The supervisor pages are the only place the roster is edited.
	{http.MethodGet, "/supervisor/users", (*Handler).listUsers},
	{http.MethodPost, "/supervisor/users", (*Handler).saveUser},
	{http.MethodPost, "/supervisor/users/:key/delete", (*Handler).deleteUser},
}

// Mount installs every web route on r: behind HTTP Basic and the cross-site guard when c has a
// credential, otherwise each answering 503 with what to set.
func Mount(r gin.IRoutes, ops *orchestrator.Service, log *slog.Logger, c Config) {
	if !c.Enabled() {
		off := func(ctx *gin.Context) { ctx.String(http.StatusServiceUnavailable, Disabled) }
		for _, rt := range Routes {
			r.Handle(rt.Method, rt.Path, off)
		}
		return
	}
	h := New(ops, log, c)
	for _, rt := range Routes {
		r.Handle(rt.Method, rt.Path, h.requireBasic, h.requireSameOrigin, h.adapt(rt.Handle))
	}
}

// adapt marks every page uncacheable (it shows live state and carries a form token).
func (h *Handler) adapt(fn func(*Handler, *gin.Context)) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Header("Cache-Control", "no-store")
		c.Header("X-Frame-Options", "DENY")
		fn(h, c)
	}
}

func (h *Handler) home(c *gin.Context) { c.Redirect(http.StatusSeeOther, "/sessions") }
