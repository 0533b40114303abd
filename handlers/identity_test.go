package handlers_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/session"
)

const digitsRule = "Slug must not be only digits: a number addresses a session by its id"

// tool calls an MCP tool on the default surface and returns its text and whether it was refused.
func (h *humans) tool(t *testing.T, name string, args map[string]any) (string, bool) {
	t.Helper()
	status, out := h.postJSON(t, http.MethodPost, "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1,
		"method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	result, _ := out["result"].(map[string]any)
	if status != http.StatusOK || result == nil {
		t.Fatalf("tools/call %s: %d %v", name, status, out)
	}
	var text strings.Builder
	for _, c := range result["content"].([]any) {
		text.WriteString(fmt.Sprint(c.(map[string]any)["text"]))
	}
	return text.String(), result["isError"] == true
}

func TestASlugOfOnlyDigitsIsRefusedOnEverySurfaceThatSetsOne(t *testing.T) {
	t.Parallel()
	h := setupHumans(t, humansOpts{})
	kept := graphtest.Unique(t, "kept")
	target := h.session(t, func(d *session.Session) { d.Slug = &kept })
	surfaces := []struct {
		name string
		set  func(t *testing.T, slug string) (refused bool, said string)
	}{
		{"REST create", func(t *testing.T, slug string) (bool, string) {
			status, out := h.postJSON(t, http.MethodPost, "/api/v1/sessions", map[string]any{"git_root": "file:///tmp/repo", "slug": slug})
			return status == http.StatusUnprocessableEntity, fmt.Sprint(out["message"])
		}},
		{"REST PATCH", func(t *testing.T, slug string) (bool, string) {
			status, out := h.postJSON(t, http.MethodPatch, fmt.Sprintf("/api/v1/sessions/%d", target.ID), map[string]any{"slug": slug})
			return status == http.StatusUnprocessableEntity, fmt.Sprint(out["message"])
		}},
		{"MCP start_session", func(t *testing.T, slug string) (bool, string) {
			said, refused := h.tool(t, "start_session", map[string]any{"agent_root": "zimmer", "slug": slug})
			return refused, said
		}},
	}
	for _, surface := range surfaces {
		// "42" may be a legacy slug another test planted; the fresh one proves nothing is written.
		for _, slug := range []string{"42", "0", strconv.FormatInt(time.Now().UnixNano(), 10)} {
			t.Run(surface.name+" "+slug, func(t *testing.T) {
				refused, said := surface.set(t, slug)
				if !refused || !strings.Contains(said, digitsRule) {
					t.Fatalf("slug %q must be refused naming the rule; refused=%v, said %q", slug, refused, said)
				}
				if got := h.get(t, target.ID).Slug; got == nil || *got != kept {
					t.Fatalf("a refused change must leave the slug %q, got %v", kept, got)
				}
				if len(slug) > 2 {
					if _, err := h.store.ResolveSlug(context.Background(), slug); !errors.Is(err, graph.ErrNotFound) {
						t.Fatalf("a refused request must write nothing, got %v", err)
					}
				}
			})
		}
	}
}

// actedOn is the id an MCP result names ("- **ID:** 7", "- **Session ID:** 7").
var actedOn = regexp.MustCompile(`ID:\*\* (\d+)`)

func TestADigitKeyReachesTheSessionWithThatIDNeverALegacySlugSpellingIt(t *testing.T) {
	t.Parallel()
	h := setupHumans(t, humansOpts{})
	rest := func(t *testing.T, method, path string, body any) int64 {
		t.Helper()
		status, out := h.postJSON(t, method, path, body)
		s, ok := out["session"].(map[string]any)
		if status != http.StatusOK || !ok {
			t.Fatalf("%s %s: %d %v", method, path, status, out)
		}
		return int64(s["id"].(float64))
	}
	mcp := func(t *testing.T, tool string, args map[string]any) int64 {
		t.Helper()
		text, refused := h.tool(t, tool, args)
		m := actedOn.FindStringSubmatch(text)
		if refused || m == nil {
			t.Fatalf("%s %v: %s", tool, args, text)
		}
		id, _ := strconv.ParseInt(m[1], 10, 64)
		return id
	}
	surfaces := []struct {
		name   string
		writes bool
		act    func(t *testing.T, key string) int64 // the id the surface says it acted on
	}{
		{"REST show", false, func(t *testing.T, key string) int64 { return rest(t, http.MethodGet, "/api/v1/sessions/"+key, nil) }},
		{"REST follow_up", true, func(t *testing.T, key string) int64 {
			return rest(t, http.MethodPost, "/api/v1/sessions/"+key+"/follow_up", map[string]any{"prompt": "for the session with this id"})
		}},
		{"REST archive", true, func(t *testing.T, key string) int64 {
			return rest(t, http.MethodPost, "/api/v1/sessions/"+key+"/archive", nil)
		}},
		{"web follow_up", true, func(t *testing.T, key string) int64 {
			return redirected(t, h.post(t, "/sessions/"+key+"/follow_up", url.Values{"prompt": {"for the session with this id"}}))
		}},
		{"MCP get_session", false, func(t *testing.T, key string) int64 { return mcp(t, "get_session", map[string]any{"id": key}) }},
		{"MCP follow_up", true, func(t *testing.T, key string) int64 {
			return mcp(t, "action_session", map[string]any{"session_id": key, "action": "follow_up", "prompt": "for the session with this id"})
		}},
		{"MCP archive", true, func(t *testing.T, key string) int64 {
			return mcp(t, "action_session", map[string]any{"session_id": key, "action": "archive"})
		}},
	}
	for _, surface := range surfaces {
		t.Run(surface.name, func(t *testing.T) {
			victim := h.session(t, nil)
			// A slug from before the rule, planted straight through the store: it spells the
			// victim's id. Such a session is simply no longer reachable by that slug.
			legacy := fmt.Sprint(victim.ID)
			squatter := h.session(t, func(d *session.Session) { d.Slug = &legacy })
			if got := surface.act(t, legacy); got != victim.ID {
				t.Fatalf("%q must address session #%d, but the surface acted on #%d", legacy, victim.ID, got)
			}
			if after := h.get(t, squatter.ID); !after.UpdatedAt.Equal(squatter.UpdatedAt) || after.Status != squatter.Status {
				t.Fatalf("the squatter must be untouched: %s %s", after.Status, after.UpdatedAt)
			}
			if after := h.get(t, victim.ID); surface.writes && after.UpdatedAt.Equal(victim.UpdatedAt) {
				t.Fatalf("the session with id %d was not reached", victim.ID)
			}
		})
	}
}
