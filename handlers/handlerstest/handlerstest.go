// Package handlerstest is the one HTTP client the tests of Zimmer's surfaces share (REST, MCP,
// the web UI and Slack, and the runner's end-to-end tests that drive them): build a request,
// set headers, send it, read the answer.
package handlerstest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
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
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s %s: %v", req.Method, req.URL.Path, err)
	}
	out := Response{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}
