// Package openapitest checks HTTP exchanges against Zimmer's OpenAPI document, so a test that
// talks to the API proves the document true: handlerstest runs Check on every request it sends.
package openapitest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/zimmerhq/zimmer/handlers/rest/openapi"
)

// Reporter is the part of testing.TB that Check reports through.
type Reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

type checker struct {
	router  routers.Router
	origins map[string]string
}

var load = sync.OnceValues(func() (*checker, error) {
	d, err := openapi.Document()
	if err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromData(d.JSON)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is invalid: %w", err)
	}
	r, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route the OpenAPI document: %w", err)
	}
	openapi3filter.RegisterBodyDecoder("application/zip", openapi3filter.FileBodyDecoder)
	return &checker{router: r, origins: d.Origins}, nil
})

// Described reports whether the document covers urlPath's area: the JSON API under /api/ (the
// viewer's pages aside) and the liveness routes.
func Described(urlPath string) bool {
	switch {
	case urlPath == "/up", urlPath == "/up/deep":
		return true
	case urlPath == "/api/docs", strings.HasPrefix(urlPath, "/api/docs/"):
		return false
	}
	return strings.HasPrefix(urlPath, "/api/")
}

// Check validates one exchange: the request against its operation's parameters and body, and
// the answer against the responses documented for its status. A request the document calls
// invalid must have been refused with a 4xx; one the document does not describe must have
// found no route (404 or 405) on the server either. Every failure names the fragment to edit.
func Check(t Reporter, req *http.Request, reqBody []byte, status int, header http.Header, body []byte) {
	t.Helper()
	if !Described(req.URL.Path) {
		return
	}
	c, err := load()
	if err != nil {
		t.Errorf("openapi: %v", err)
		return
	}
	exchange := fmt.Sprintf("%s %s answered %d", req.Method, req.URL.RequestURI(), status)
	// The router matches on the path alone; the test server's host is not the document's.
	probe := req.Clone(context.Background())
	probe.URL.Scheme, probe.URL.Host, probe.Host = "", "", ""
	route, params, err := c.router.FindRoute(probe)
	if err != nil {
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			t.Errorf("openapi: %s, but the OpenAPI document describes no such route: describe it in %s/<the Go file that handles it>.yaml",
				exchange, openapi.Dir)
		}
		return
	}
	file := path.Join(openapi.Dir, c.origins[req.Method+" "+route.Path])
	in := &openapi3filter.RequestValidationInput{Request: probe, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	probe.Body = io.NopCloser(bytes.NewReader(reqBody))
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil && (status < 400 || status >= 500) {
		t.Errorf("openapi: %s, yet the request breaks %s %s in %s (the document is stricter than the server):\n%v",
			exchange, req.Method, route.Path, file, err)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("openapi: %s with a body that %s %s in %s does not describe (change the document or the handler):\n%v\nbody: %.600s",
			exchange, req.Method, route.Path, file, err, body)
	}
}
