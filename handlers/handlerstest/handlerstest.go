// Package handlerstest is the one HTTP client the tests of Zimmer's surfaces share (REST, MCP,
// the web UI and Slack, and the runner's end-to-end tests that drive them): build a request,
// set headers, send it, read the answer. Every exchange with the JSON API is checked against the
// OpenAPI document on the way (openapitest.Check), so a shape change the document does not
// carry fails the test that made it.
package handlerstest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/handlers/rest/openapi/openapitest"
)

// Response is one HTTP exchange as a test reads it; Body is the answer decoded as a JSON
// object (nil when it is not one).
type Response struct {
	Status int
	Header http.Header
	Raw    string
	Body   map[string]any
}

// Do sends method to url with Content-Type application/json. A nil body sends none, a string or
// []byte is sent verbatim, anything else as JSON. headers are name/value pairs applied after
// that, as Send applies them.
func Do(t testing.TB, client *http.Client, method, url string, body any, headers ...string) Response {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("encode request body: %v", err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return Send(t, client, req, headers...)
}

// Send sets the header pairs on req (an empty value deletes the header), sends it and reads
// the whole answer.
func Send(t testing.TB, client *http.Client, req *http.Request, headers ...string) Response {
	t.Helper()
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	var sent []byte
	if req.GetBody != nil {
		if b, err := req.GetBody(); err == nil {
			sent, _ = io.ReadAll(b)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s %s: %v", req.Method, req.URL.Path, err)
	}
	openapitest.Check(t, req, sent, resp.StatusCode, resp.Header, raw)
	out := Response{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}
