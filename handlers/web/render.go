package web

import (
	"bytes"
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
	"github.com/zimmerhq/zimmer/session"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages are the parsed templates by file name, each joined with the layout: every page defines
// its own "content", so each needs a template set of its own.
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
}

func parsePages() pages {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := pages{}
	for _, name := range names {
		base := strings.TrimPrefix(name, "templates/")
		if base == "layout.html" {
			continue
		}
		out[base] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", name))
	}
	return out
}

// view is what every page gets: its own data plus the form token, the page title and the
// pending notifications' count (the header's badge).
type view struct {
	Title   string
	Token   string
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
	if err := h.pages[page].Execute(&buf, view{Title: title, Token: h.csrfToken(), Pending: pending, Data: data}); err != nil {
		h.fail(c, fmt.Errorf("render %s: %w", page, err))
		return
	}
	c.Data(status, "text/html; charset=utf-8", buf.Bytes())
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
