package openapitest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/handlers/rest/openapi/openapitest"
)

// recorder stands in for a test, keeping what Check reports.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

const validSession = `{"id":1,"slug":null,"title":"t","status":"waiting","agent_runtime":"claude_code","prompt":null,
"git_root":"file:///r","branch":"main","subdirectory":null,"execution_provider":"local_filesystem","goal":null,
"mcp_servers":[],"all_mcp_servers":[],"injected_mcp_servers":[],"catalog_skills":[],"catalog_hooks":[],
"catalog_plugins":[],"config":{},"metadata":{},"custom_metadata":{},"is_autonomous":false,"heartbeat_enabled":false,
"heartbeat_interval_seconds":0,"auto_compact_window":0,"genesis":"api","scheduling_class":null,"priority_class":"spot",
"precedence":0,"category_id":null,"category":null,"session_id":null,"job_id":null,"running_job_id":null,
"archived_at":null,"trash_after":null,"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z",
"session_notes":null,"session_notes_updated_at":null,"favorited":false,"visibility":"fleet","parent_session_id":null,
"idempotency_key":null}`

func TestCheck(t *testing.T) {
	jsonHeader := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	tests := []struct {
		name         string
		method, path string
		sent         string
		status       int
		body         string
		want         string // "" ⇒ no report; otherwise a part of the one report
	}{
		{"a documented answer passes", "PATCH", "/api/v1/sessions/7", `{"title":"x"}`, 200, `{"session":` + validSession + `}`, ""},
		{"a documented error passes", "GET", "/api/v1/sessions/7", "", 404, `{"error":"Not Found","message":"Session not found","messages":["Session not found"]}`, ""},
		{"a broken response shape fails, naming the fragment", "PATCH", "/api/v1/sessions/7", `{"title":"x"}`, 200,
			`{"session":` + strings.Replace(validSession, `"id":1`, `"id":"one"`, 1) + `}`, "handlers/rest/openapi/sessions.yaml"},
		{"a missing required key fails", "PATCH", "/api/v1/sessions/7", `{}`, 200, `{"sesion":{}}`, `property "session" is missing`},
		{"an undocumented status fails", "GET", "/api/v1/notifications/badge", "", 418, `{"pending_count":1}`, "status is not supported"},
		{"a request the document refuses must be refused", "POST", "/api/v1/sessions", `{"prompt":42}`, 201,
			`{"session":` + validSession + `,"agent_job_queued":true}`, "the document is stricter than the server"},
		{"a request the document refuses and the server refuses passes", "POST", "/api/v1/sessions", `{"prompt":42}`, 422,
			`{"error":"Unprocessable Entity","message":"prompt must be a string"}`, ""},
		{"an undescribed route that answers fails", "GET", "/api/v1/nowhere", "", 200, `{}`, "describes no such route"},
		{"an undescribed route the server does not serve either passes", "GET", "/api/v1/nowhere", "", 404, `{"error":"Not Found","message":"No route"}`, ""},
		{"the web pages are not the API's", "GET", "/sessions/7", "", 200, `<html>`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, "http://127.0.0.1:1"+tt.path, strings.NewReader(tt.sent))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			r := &recorder{}
			openapitest.Check(r, req, []byte(tt.sent), tt.status, jsonHeader, []byte(tt.body))
			switch {
			case tt.want == "" && len(r.errs) > 0:
				t.Fatalf("reported %q", r.errs)
			case tt.want != "" && (len(r.errs) != 1 || !strings.Contains(r.errs[0], tt.want)):
				t.Fatalf("want one report containing %q, got %q", tt.want, r.errs)
			}
		})
	}
}
