package handlers_test

import (
	"net/http"
	"path"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/handlers/rest"
	"github.com/zimmerhq/zimmer/handlers/rest/openapi"
	"github.com/zimmerhq/zimmer/handlers/rest/openapi/openapitest"
	"github.com/zimmerhq/zimmer/metrics"
)

// fragmentFor is the fragment that must describe a route: the one named after the Go file of
// its handler (sessions.go ↔ sessions.yaml); routes mounted outside the REST table belong to
// the head.
func fragmentFor(method, ginPath string) string {
	for _, r := range slices.Concat(rest.Routes, rest.PublicRoutes) {
		if r.Method == method && "/api/v1"+r.Path == ginPath {
			file, _ := runtime.FuncForPC(reflect.ValueOf(r.Handle).Pointer()).FileLine(0)
			return strings.TrimSuffix(path.Base(file), ".go") + ".yaml"
		}
	}
	return openapi.Head
}

// openAPIPath turns Gin's /sessions/:id into OpenAPI's /sessions/{id}.
func openAPIPath(ginPath string) string {
	parts := strings.Split(ginPath, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") || strings.HasPrefix(p, "*") {
			parts[i] = "{" + p[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

func TestEveryServedAPIRouteIsInTheOpenAPIDocumentAndNoOtherIs(t *testing.T) {
	engine := handlers.New(handlers.Deps{Metrics: metrics.New(), Log: graphtest.Logger()})
	d, err := openapi.Document()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, r := range engine.Routes() {
		if !openapitest.Described(r.Path) {
			continue
		}
		key := r.Method + " " + openAPIPath(r.Path)
		served[key] = true
		want := fragmentFor(r.Method, r.Path)
		switch got, ok := d.Origins[key]; {
		case !ok:
			t.Errorf("%s is served but the OpenAPI document does not describe it: add it to %s/%s", key, openapi.Dir, want)
		case got != want:
			t.Errorf("%s is described in %s/%s; move it to %s/%s, the fragment named after the Go file that handles it",
				key, openapi.Dir, got, openapi.Dir, want)
		}
	}
	for key, file := range d.Origins {
		if strings.HasPrefix(key, "path ") || served[key] {
			continue
		}
		t.Errorf("%s/%s describes %s, which no route serves: remove it from %s or mount the route", openapi.Dir, file, key, file)
	}
}

func TestTheDocumentAndItsViewerAreServedWithoutAKey(t *testing.T) {
	e := setup(t)
	r := e.do(t, "GET", "/api/v1/openapi.json", nil, "X-Nothing", "")
	if r.status != http.StatusOK || r.body["openapi"] != "3.1.0" {
		t.Fatalf("document: %d %.200s", r.status, r.raw)
	}
	page := e.do(t, "GET", "/api/docs", nil, "X-Nothing", "")
	if page.status != http.StatusOK || !strings.Contains(page.raw, "/api/docs/swagger-ui-bundle.js") || strings.Contains(page.raw, "https://") {
		t.Fatalf("viewer page: %d %.300s", page.status, page.raw)
	}
	for _, asset := range []string{"swagger-ui-bundle.js", "swagger-ui.css", "init.js"} {
		// Go's client asks for gzip itself and inflates the answer, so this reads what a
		// browser would render either way.
		got := e.do(t, "GET", "/api/docs/"+asset, nil, "X-Nothing", "")
		if got.status != http.StatusOK || len(got.raw) < 100 {
			t.Errorf("%s: %d, %d bytes", asset, got.status, len(got.raw))
		}
	}
	plain, err := http.NewRequest("GET", e.srv.URL+"/api/docs/swagger-ui.css", nil)
	if err != nil {
		t.Fatal(err)
	}
	// An explicit Accept-Encoding turns off the client's own inflating: without gzip the server inflates.
	got := handlerstest.Send(t, http.DefaultClient, plain, "Accept-Encoding", "identity")
	if got.Status != http.StatusOK || got.Header.Get("Content-Encoding") != "" || !strings.Contains(got.Raw, ".swagger-ui") {
		t.Fatalf("plain stylesheet: %d %q %.100s", got.Status, got.Header.Get("Content-Encoding"), got.Raw)
	}
}
