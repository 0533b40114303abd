package web

import (
	"bytes"
	"compress/gzip"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/pricing"
	"github.com/zimmerhq/zimmer/session"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages are the parsed templates by file name, each joined with the layout and the shared
// components (partials.html): every page defines its own "content", so each needs a template
// set of its own. A new page is one more file here defining "content".
type pages map[string]*template.Template

var funcs = template.FuncMap{
	"redact": session.RedactCredentials,
	"when":   func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"int":    func(n int64) int { return int(n) },
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	},
	"add":     func(a, b int64) int64 { return a + b },
	"max1":    func(n int) int { return max(n, 1) },
	"deref":   func(c *session.Class) session.Class { return *c },
	"last":    func(n int) int { return n - 1 }, // the last index of a count
	"join":    strings.Join,
	"actions": actions,
	"dollars": pricing.Dollars,
	"entries": transcriptEntries,
	// action and move build the buttons of partials.html "action" in a template.
	"action": func(path, label, confirm, token string) actionView {
		return actionView{Action: path, Label: label, Confirm: confirm, Token: token, Danger: confirm != ""}
	},
	"move": func(base, label string, position int64, token string) actionView {
		return actionView{Action: base + "/reorder", Label: label, Token: token, Fields: map[string]string{"position": fmt.Sprint(position)}}
	},
}

func parsePages() pages {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := pages{}
	for _, name := range names {
		base := strings.TrimPrefix(name, "templates/")
		if base == "layout.html" || base == "partials.html" {
			continue
		}
		out[base] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", name))
	}
	return out
}

// view is what every page gets: its own data plus the form token, the page title, its path (what
// the chat bubble says it was typed on) and the pending notifications' count (the header's badge).
type view struct {
	Title   string
	Token   string
	Path    string
	Pending int
	Data    any
}

// render executes a page into a buffer first, so a template error is a clean 500 rather than
// half a page.
func (h *Handler) render(c *gin.Context, status int, page, title string, data any) {
	pending, err := h.ops.NotificationBadge(c.Request.Context())
	if err != nil { // the badge is a convenience: the page still renders without it
		h.log.Warn("notification badge not counted", "path", c.Request.URL.Path, "err", err)
	}
	var buf bytes.Buffer
	if err := h.pages[page].Execute(&buf, view{Title: title, Token: h.csrfToken(), Path: c.Request.URL.Path, Pending: pending, Data: data}); err != nil {
		h.fail(c, fmt.Errorf("render %s: %w", page, err))
		return
	}
	c.Header("Vary", "Accept-Encoding")
	if !strings.Contains(c.GetHeader("Accept-Encoding"), "gzip") {
		c.Data(status, "text/html; charset=utf-8", buf.Bytes())
		return
	}
	// Compressed, a page with a 150-session drawing is a few KB. The form token is fresh in
	// every response (a new nonce), so compression does not let a guesser recover it (BREACH).
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write(buf.Bytes()) // writes to memory do not fail
	_ = w.Close()
	c.Header("Content-Encoding", "gzip")
	c.Data(status, "text/html; charset=utf-8", gz.Bytes())
}

// fragment renders one named template of a page's set — a panel a live update replaces. A live
// connection passes one form token for all its renders, so an unchanged panel renders identically.
func (h *Handler) fragment(page, name string, data any) (string, error) {
	var buf bytes.Buffer
	if err := h.pages[page].ExecuteTemplate(&buf, name, data); err != nil {
		return "", fmt.Errorf("render %s of %s: %w", name, page, err)
	}
	return buf.String(), nil
}

// fail answers an unexpected error: logged in full, shown briefly.
func (h *Handler) fail(c *gin.Context, err error) {
	_ = c.Error(err)
	h.log.Error("web page failed", "path", c.Request.URL.Path, "err", err)
	c.String(http.StatusInternalServerError, "The server failed to handle the request; the error was logged.\n")
}

// problem is a refusal a person can act on, shown on an error page with a way back.
type problem struct {
	Status   int
	Label    string
	Messages []string
	Back     string
}

// refuse renders what went wrong with a request: validation and lifecycle refusals are 422,
// a missing session 404; anything else is a server failure.
func (h *Handler) refuse(c *gin.Context, err error, back string) {
	var ve *orchestrator.ValidationError
	var nf *orchestrator.NotFoundError
	p := problem{Back: back}
	switch {
	case errors.As(err, &ve):
		p.Status, p.Label, p.Messages = http.StatusUnprocessableEntity, ve.Label, ve.Messages
	case errors.As(err, &nf):
		p.Status, p.Label, p.Messages = http.StatusNotFound, "Not found", []string{nf.Message}
	case errors.Is(err, orchestrator.ErrMessageNotFound):
		p.Status, p.Label, p.Messages = http.StatusNotFound, "Not found", []string{"No such queued message: it may have been delivered or deleted."}
	case errors.Is(err, orchestrator.ErrNotFound):
		p.Status, p.Label, p.Messages = http.StatusNotFound, "Not found", []string{"No such session."}
	case errors.Is(err, orchestrator.ErrConflict):
		p.Status, p.Label, p.Messages = http.StatusConflict, "Conflict", []string{err.Error()}
	default:
		h.fail(c, err)
		return
	}
	h.render(c, p.Status, "problem.html", p.Label, p)
}
