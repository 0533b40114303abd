package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// walk visits every property of a schema, nested ones included.
func walk(path string, p prop, visit func(string, prop)) {
	visit(path, p)
	if item, ok := p["items"].(prop); ok {
		walk(path+"[]", item, visit)
	}
	if props, ok := p["properties"].(map[string]prop); ok {
		for k, sub := range props {
			walk(path+"."+k, sub, visit)
		}
	}
}

func everyVariant(t *testing.T, fn func(name string, v variant)) {
	t.Helper()
	h := &Handler{}
	for _, d := range h.catalog() {
		fn(d.name, d.full)
		for c, v := range d.overrides {
			fn(d.name+"@"+c, v)
		}
	}
}

func TestEverySchemaUsesOnlyKeywordsTheValidatorEnforces(t *testing.T) {
	t.Parallel()
	everyVariant(t, func(name string, v variant) {
		walk(name, v.schema.asProp(), func(path string, p prop) {
			for k := range p {
				if !supportedKeywords[k] {
					t.Errorf("%s uses %q, which validate.go does not enforce", path, k)
				}
			}
		})
		if v.run == nil {
			t.Errorf("%s has no implementation", name)
		}
	})
}

func TestEachScopeIsBuiltOnceAndReused(t *testing.T) {
	t.Parallel()
	h := New(Deps{})
	a, b := h.servers.get([]string{"sessions", "health"}), h.servers.get([]string{"sessions", "health"})
	if a != b {
		t.Fatal("the same scope must reuse its prebuilt server")
	}
	if c := h.servers.get([]string{"health", "sessions"}); c == a {
		t.Fatal("a different group order is a different scope (its instructions differ)")
	}
	for i := range maxCachedScopes + 10 {
		h.servers.get([]string{fmt.Sprint("bogus", i)})
	}
	if n := len(h.servers.by); n > maxCachedScopes {
		t.Fatalf("the cache grew to %d entries past its bound %d", n, maxCachedScopes)
	}
}

func TestRegistryHas29ToolsInSixDomains(t *testing.T) {
	t.Parallel()
	h := &Handler{}
	perGroup := map[string]int{}
	for _, d := range h.catalog() {
		perGroup[d.group]++
	}
	want := map[string]int{"sessions": 11, "notifications": 3, "triggers": 4, "health": 5, "gate_decisions": 3, "work_backlog": 3}
	for g, n := range want {
		if perGroup[g] != n {
			t.Errorf("group %s has %d tools, want %d", g, perGroup[g], n)
		}
	}
	if len(perGroup) != len(want) {
		t.Errorf("groups: %v", perGroup)
	}
}

// TestTheEncodedToolListIsWhatMCPGoWouldAnswer holds the tools/list shortcut to the answer the
// mcp-go server behind it gives for the same scope.
func TestTheEncodedToolListIsWhatMCPGoWouldAnswer(t *testing.T) {
	t.Parallel()
	h := New(Deps{})
	for _, groups := range [][]string{baseGroups, {compositeSelf}, {"sessions_readonly", compositeSelf}, {}} {
		srv := h.servers.get(groups)
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.http.ServeHTTP(noFlush{rec}, req)
		var viaMCPGo struct{ Result any }
		if err := json.Unmarshal(rec.Body.Bytes(), &viaMCPGo); err != nil {
			t.Fatalf("%v: %v %s", groups, err, rec.Body)
		}
		var cached any
		if err := json.Unmarshal(srv.list, &cached); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(viaMCPGo.Result, cached) {
			t.Fatalf("%v: the encoded list differs from mcp-go's answer", groups)
		}
	}
}
