package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// maxBody bounds a request body: a 500,000-character prompt is at most 2 MB of UTF-8.
const maxBody = 4 << 20

// requestError is bad input found before any operation runs.
type requestError struct {
	status   int
	label    string
	messages []string
}

func (e *requestError) Error() string { return e.label + ": " + strings.Join(e.messages, ", ") }

// body is a decoded JSON object whose fields are read one by one with their expected type;
// every type problem is collected so the caller reports them all in one 422.
type body struct {
	raw  map[string]json.RawMessage
	errs []string
}

// readBody decodes the request's JSON object; an empty body is an empty object.
func readBody(r *http.Request) (*body, error) {
	data, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, &requestError{http.StatusRequestEntityTooLarge, "Payload Too Large",
			[]string{fmt.Sprintf("The request body is larger than %d bytes", maxBody)}}
	}
	if err != nil {
		return nil, &requestError{http.StatusBadRequest, "Bad Request", []string{"The request body could not be read"}}
	}
	b := &body{raw: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return b, nil
	}
	if err := json.Unmarshal(data, &b.raw); err != nil {
		return nil, &requestError{http.StatusBadRequest, "Bad Request",
			[]string{"The request body is not a JSON object: " + err.Error()}}
	}
	return b, nil
}

func (b *body) fail(name, want string) { b.errs = append(b.errs, name+" must be "+want) }

// present reports whether the field was sent with a non-null value.
func (b *body) present(name string) bool {
	v, ok := b.raw[name]
	return ok && string(bytes.TrimSpace(v)) != "null"
}

// sent reports whether the field was sent at all (null included).
func (b *body) sent(name string) bool { _, ok := b.raw[name]; return ok }

func (b *body) str(name string) *string {
	if !b.present(name) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b.raw[name], &s); err != nil {
		b.fail(name, "a string")
		return nil
	}
	return &s
}

// rawText returns the text of a field sent as a JSON number or string, and "" when it is absent,
// null or of any other type. It is for self-declared ids (acting_session_id) that the operation
// parses itself and ignores when malformed, so a bad one never fails the request.
func (b *body) rawText(name string) string {
	if !b.present(name) {
		return ""
	}
	var s string
	if json.Unmarshal(b.raw[name], &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(b.raw[name], &n) == nil {
		return n.String()
	}
	return ""
}

// boolean accepts true/false and the strings "true"/"false", as the original does.
func (b *body) boolean(name string) *bool {
	if !b.present(name) {
		return nil
	}
	var v any
	_ = json.Unmarshal(b.raw[name], &v)
	switch x := v.(type) {
	case bool:
		return &x
	case string:
		if x == "true" || x == "false" {
			t := x == "true"
			return &t
		}
	}
	b.fail(name, "true or false")
	return nil
}

// integer accepts a whole JSON number or a string of digits.
func (b *body) integer(name string) *int64 {
	if !b.present(name) {
		return nil
	}
	var v any
	_ = json.Unmarshal(b.raw[name], &v)
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			n := int64(x)
			return &n
		}
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return &n
		}
	}
	b.fail(name, "an integer")
	return nil
}

func (b *body) strings(name string) *[]string {
	if !b.present(name) {
		return nil
	}
	var list []string
	if err := json.Unmarshal(b.raw[name], &list); err != nil {
		b.fail(name, "an array of strings")
		return nil
	}
	if list == nil {
		list = []string{}
	}
	return &list
}

func (b *body) object(name string) map[string]any {
	if !b.present(name) {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b.raw[name], &m); err != nil {
		b.fail(name, "a JSON object")
		return nil
	}
	return m
}

// optString reads a PATCH field: absent, null or a string.
func (b *body) optString(name string) orchestrator.Opt[string] {
	return orchestrator.Opt[string]{Set: b.sent(name), Value: b.str(name)}
}

func (b *body) optBool(name string) orchestrator.Opt[bool] {
	return orchestrator.Opt[bool]{Set: b.sent(name), Value: b.boolean(name)}
}

func (b *body) optInt(name string) orchestrator.Opt[int64] {
	return orchestrator.Opt[int64]{Set: b.sent(name), Value: b.integer(name)}
}

// err is the collected type problems as one 422, or nil.
func (b *body) err() error {
	if len(b.errs) == 0 {
		return nil
	}
	return &requestError{http.StatusUnprocessableEntity, "Unprocessable Entity", b.errs}
}

// queryBool reads a boolean query parameter ("true" or "1"); anything else is false.
func queryBool(v string) bool { return v == "true" || v == "1" }

// sessionID resolves the route's :id (an id, or a slug) to the session's id: the one place a
// REST request names a session by key.
func (h *Handler) sessionID(c *gin.Context) (int64, error) {
	return h.ops.Resolve(c.Request.Context(), c.Param("id"))
}

// pageQuery reads a paged list's page and per_page; anything unreadable is left to the
// operation's defaults.
func pageQuery(c *gin.Context) (page, perPage int) {
	page, _ = strconv.Atoi(c.Query("page"))
	perPage, _ = strconv.Atoi(c.Query("per_page"))
	return page, perPage
}

// renderPage is the pagination block every paged list carries.
func renderPage(p orchestrator.Page) gin.H {
	return gin.H{"page": p.Page, "per_page": p.PerPage, "total_count": p.TotalCount, "total_pages": p.TotalPages}
}
