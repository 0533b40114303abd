package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// The immutability sweep calls every REST route; these give this file's routes plausible input.
func init() {
	category := func(t *testing.T, s *sweep) string {
		t.Helper()
		c, err := s.h.ops.CreateCategory(context.Background(), graphtest.Unique(t, "sweep"), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(c.ID)
	}
	target := func(fields map[string]any) sweepFixture {
		return func(_ *testing.T, s *sweep) (string, map[string]any) { return fmt.Sprint(s.target.ID), fields }
	}
	for route, fx := range map[string]sweepFixture{
		"REST POST /categories": func(t *testing.T, _ *sweep) (string, map[string]any) {
			return "", map[string]any{"name": graphtest.Unique(t, "sweep")}
		},
		"REST PATCH /categories/:id": func(t *testing.T, s *sweep) (string, map[string]any) {
			return category(t, s), map[string]any{"is_frozen": true}
		},
		"REST DELETE /categories/:id": func(t *testing.T, s *sweep) (string, map[string]any) { return category(t, s), nil },
		"REST POST /categories/reorder": func(t *testing.T, s *sweep) (string, map[string]any) {
			return "", map[string]any{"ids": []string{category(t, s)}}
		},
		"REST POST /sessions/bulk_archive": func(t *testing.T, s *sweep) (string, map[string]any) {
			return "", map[string]any{"session_ids": []int64{s.h.session(t, nil).ID}}
		},
		"REST POST /sessions/:id/message_parent": func(t *testing.T, s *sweep) (string, map[string]any) {
			out, err := s.h.ops.Create(context.Background(), orchestrator.CreateParams{GitRoot: new("file:///tmp/repo"),
				ParentSessionID: &s.target.ID, Genesis: session.GenesisAPI})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(out.Session.ID), map[string]any{"reason": "other"}
		},
		"REST PATCH /sessions/:id/catalog_skills":  target(map[string]any{"catalog_skills": []string{}}),
		"REST PATCH /sessions/:id/catalog_hooks":   target(map[string]any{"catalog_hooks": []string{}}),
		"REST PATCH /sessions/:id/catalog_plugins": target(map[string]any{"catalog_plugins": []string{}}),
		"REST PATCH /sessions/:id/model":           target(map[string]any{"model": "opus"}),
		"REST PATCH /sessions/:id/heartbeat":       target(map[string]any{"enabled": true}),
		"REST POST /sessions/:id/logs":             target(map[string]any{"level": "info"}),
	} {
		sweepFixtures[route] = fx
	}
}

// The routes that change one setting of a session, the search, the bulk archive and the
// categories (a missing key's 401 for each is TestEveryAPIRouteRequiresAValidKey's).

func TestCatalogListRoutesReplaceTheSessionsList(t *testing.T) {
	e := setup(t)
	s := e.create(t, map[string]any{})
	tests := []struct {
		route, field string
		body         any
		status       int
		want         string // in the message (200) or the error's message
	}{
		{"catalog_skills", "catalog_skills", map[string]any{"catalog_skills": []string{"code-review"}}, 200, "Skills updated to code-review"},
		{"catalog_skills", "catalog_skills", map[string]any{"catalog_skills": []string{}}, 200, "Skills updated to (none)"},
		{"catalog_skills", "catalog_skills", map[string]any{"catalog_skills": []string{"ghost"}}, 422, "ghost"},
		{"catalog_skills", "catalog_skills", map[string]any{"catalog_skills": "code-review"}, 422, "catalog_skills must be an array of strings"},
		{"catalog_hooks", "catalog_hooks", map[string]any{}, 422, "catalog_hooks must be an array of catalog ids"},
		{"catalog_hooks", "catalog_hooks", map[string]any{"catalog_hooks": []string{}}, 200, "Hooks updated to (none)"},
		{"catalog_plugins", "catalog_plugins", map[string]any{"catalog_plugins": []string{"nope"}}, 422, "nope"},
		{"catalog_plugins", "catalog_plugins", map[string]any{"catalog_plugins": []string{}}, 200, "Plugins updated to (none)"},
	}
	for _, tt := range tests {
		t.Run(tt.route+" "+tt.want, func(t *testing.T) {
			r := e.do(t, "PATCH", "/api/v1/sessions/"+id(s)+"/"+tt.route, tt.body)
			if r.status != tt.status || !strings.Contains(r.body["message"].(string), tt.want) {
				t.Fatalf("got %d %s", r.status, r.raw)
			}
			if tt.status == 200 {
				got := e.do(t, "GET", "/api/v1/sessions/"+id(s), nil).session(t)[tt.field]
				if want := tt.body.(map[string]any)[tt.field]; len(got.([]any)) != len(want.([]string)) {
					t.Fatalf("%s is %v after setting %v", tt.field, got, want)
				}
			}
		})
	}
	if r := e.do(t, "PATCH", "/api/v1/sessions/9000000001/catalog_skills", map[string]any{"catalog_skills": []string{}}); r.status != 404 {
		t.Fatalf("unknown session: %d %s", r.status, r.raw)
	}
}

func TestModelRouteTakesOnlyTheRuntimesModels(t *testing.T) {
	e := setup(t)
	s := e.create(t, map[string]any{})
	r := e.do(t, "PATCH", "/api/v1/sessions/"+id(s)+"/model", map[string]any{"model": "sonnet"})
	if r.status != 200 || r.body["message"] != "Model updated" || r.session(t)["config"].(map[string]any)["model"] != "sonnet" {
		t.Fatalf("got %d %s", r.status, r.raw)
	}
	bad := e.do(t, "PATCH", "/api/v1/sessions/"+id(s)+"/model", map[string]any{"model": "gpt-5.6-sol"})
	if bad.status != 422 || bad.body["error"] != "Invalid model" || !strings.Contains(bad.body["message"].(string), "Valid models: opus, sonnet") {
		t.Fatalf("invalid model: %d %s", bad.status, bad.raw)
	}
	if r := e.do(t, "PATCH", "/api/v1/sessions/"+id(s)+"/model", map[string]any{}); r.status != 422 || r.body["message"] != "model is required" {
		t.Fatalf("missing model: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "PATCH", "/api/v1/sessions/9000000001/model", map[string]any{"model": "opus"}); r.status != 404 {
		t.Fatalf("unknown session: %d %s", r.status, r.raw)
	}
}

func TestHeartbeatRouteSetsEitherOrBoth(t *testing.T) {
	e := setup(t)
	s := e.create(t, map[string]any{})
	path := "/api/v1/sessions/" + id(s) + "/heartbeat"
	r := e.do(t, "PATCH", path, map[string]any{"enabled": true, "interval_seconds": 600})
	if r.status != 200 || r.body["heartbeat_enabled"] != true || r.body["heartbeat_interval_seconds"] != 600.0 ||
		r.session(t)["heartbeat_enabled"] != true {
		t.Fatalf("got %d %s", r.status, r.raw)
	}
	if r := e.do(t, "PATCH", path, map[string]any{"enabled": "false"}); r.status != 200 || r.body["heartbeat_enabled"] != false ||
		r.body["heartbeat_interval_seconds"] != 600.0 {
		t.Fatalf("enabled alone: %d %s", r.status, r.raw)
	}
	for name, body := range map[string]map[string]any{
		"neither":      {},
		"wrong type":   {"enabled": "sometimes"},
		"out of range": {"interval_seconds": 5},
	} {
		if r := e.do(t, "PATCH", path, body); r.status != 422 {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
	}
}

func TestToggleFavoriteFlipsTheStar(t *testing.T) {
	e := setup(t)
	s := e.create(t, map[string]any{})
	for _, want := range []bool{true, false} {
		r := e.do(t, "POST", "/api/v1/sessions/"+id(s)+"/toggle_favorite", nil)
		if r.status != 200 || r.body["favorited"] != want || r.session(t)["favorited"] != want {
			t.Fatalf("want %v: %d %s", want, r.status, r.raw)
		}
	}
	if r := e.do(t, "POST", "/api/v1/sessions/9000000001/toggle_favorite", nil); r.status != 404 {
		t.Fatalf("unknown session: %d %s", r.status, r.raw)
	}
}

func TestMessageParentDeliversToTheSpawningSession(t *testing.T) {
	e := setup(t)
	parent := e.create(t, map[string]any{})
	child := e.create(t, map[string]any{"parent_session_id": parent["id"]})
	r := e.do(t, "POST", "/api/v1/sessions/"+id(child)+"/message_parent", map[string]any{"message": "wrong repo", "reason": "wrong_scope"})
	if r.status != 200 || r.session(t)["id"] != parent["id"] || r.body["parent_unarchived"] != false {
		t.Fatalf("got %d %s", r.status, r.raw)
	}
	tests := []struct {
		name, session string
		body          map[string]any
		label, want   string
	}{
		{"no message", id(child), map[string]any{"reason": "other"}, "Unprocessable Entity", "message is required"},
		{"unknown reason", id(child), map[string]any{"message": "m", "reason": "bored"}, "Validation failed", "reason must be one of"},
		{"no parent", id(parent), map[string]any{"message": "m", "reason": "other"}, "No parent", "has no parent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, "POST", "/api/v1/sessions/"+tt.session+"/message_parent", tt.body)
			if r.status != 422 || r.body["error"] != tt.label || !strings.Contains(r.body["message"].(string), tt.want) {
				t.Fatalf("got %d %s", r.status, r.raw)
			}
		})
	}
	e.do(t, "POST", "/api/v1/sessions/"+id(parent)+"/archive", map[string]any{"force": true})
	if r := e.do(t, "POST", "/api/v1/sessions/"+id(child)+"/message_parent", map[string]any{"message": "m", "reason": "other"}); r.status != 422 || r.body["error"] != "Parent is archived" {
		t.Fatalf("archived parent: %d %s", r.status, r.raw)
	}
}

func TestSearchFindsByTitleAndRefusesABadQuery(t *testing.T) {
	e := setup(t)
	word := strings.ToLower(graphtest.Unique(t, "findme"))
	hit := e.create(t, map[string]any{"title": "Fix " + word})
	e.create(t, map[string]any{"title": "Something else"})
	r := e.do(t, "GET", "/api/v1/sessions/search?q="+strings.ToUpper(word), nil)
	list, _ := r.body["sessions"].([]any)
	if r.status != 200 || len(list) != 1 || list[0].(map[string]any)["id"] != hit["id"] || r.body["search_contents"] != false {
		t.Fatalf("got %d %s", r.status, r.raw)
	}
	r = e.do(t, "GET", "/api/v1/sessions/search?search_contents=true&q="+word, nil)
	// The scan is bounded: on a database other tests share it may not read every candidate,
	// so scan_complete is only required to say which it was.
	_, says := r.body["scan_complete"].(bool)
	if list, _ := r.body["sessions"].([]any); r.status != 200 || len(list) != 1 || r.body["search_contents"] != true || !says {
		t.Fatalf("search_contents: %d %s", r.status, r.raw)
	}
	for name, q := range map[string]string{"missing": "", "too long": strings.Repeat("q", 1001)} {
		r := e.do(t, "GET", "/api/v1/sessions/search?q="+q, nil)
		if r.status != 400 || (r.body["error"] != "Missing parameter" && r.body["error"] != "Query too long") {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
	}
}

func TestBulkArchiveReportsEachSessionItCouldNotArchive(t *testing.T) {
	e := setup(t)
	a, b := e.create(t, map[string]any{}), e.create(t, map[string]any{})
	r := e.do(t, "POST", "/api/v1/sessions/bulk_archive", map[string]any{"session_ids": []any{a["id"], b["id"], 9000000001}})
	errs, _ := r.body["errors"].([]any)
	if r.status != 200 || r.body["archived_count"] != 2.0 || len(errs) != 1 || errs[0].(map[string]any)["id"] != 9000000001.0 {
		t.Fatalf("got %d %s", r.status, r.raw)
	}
	if got := e.do(t, "GET", "/api/v1/sessions/"+id(a), nil).session(t)["status"]; got != "archived" {
		t.Fatalf("session %s is %v", id(a), got)
	}
	again := e.do(t, "POST", "/api/v1/sessions/bulk_archive", map[string]any{"session_ids": []any{a["id"]}})
	if errs, _ := again.body["errors"].([]any); again.status != 200 || again.body["archived_count"] != 0.0 || len(errs) != 1 {
		t.Fatalf("archiving an archived session: %d %s", again.status, again.raw)
	}
	for name, body := range map[string]map[string]any{"missing": {}, "empty": {"session_ids": []int{}}, "not ids": {"session_ids": "1,2"}} {
		if r := e.do(t, "POST", "/api/v1/sessions/bulk_archive", body); r.status != 422 {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
	}
}

func TestCategoriesRoutesAndASessionsCategory(t *testing.T) {
	e := setup(t)
	name := "Cat " + strings.ReplaceAll(t.Name(), "/", " ")
	r := e.do(t, "POST", "/api/v1/categories", map[string]any{"name": name, "description": "d"})
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	cat := r.body["category"].(map[string]any)
	cid := id(cat)
	if r := e.do(t, "POST", "/api/v1/categories", map[string]any{"name": strings.ToUpper(name)}); r.status != 422 || !strings.Contains(r.raw, "already been taken") {
		t.Fatalf("duplicate name: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "POST", "/api/v1/categories", map[string]any{"name": " "}); r.status != 422 || !strings.Contains(r.raw, "Name can't be blank") {
		t.Fatalf("blank name: %d %s", r.status, r.raw)
	}
	s := e.create(t, map[string]any{})
	set := e.do(t, "PATCH", "/api/v1/sessions/"+id(s)+"/set_category", map[string]any{"category_id": cat["id"]})
	if set.status != 200 || set.session(t)["category"].(map[string]any)["name"] != name {
		t.Fatalf("set_category: %d %s", set.status, set.raw)
	}
	shown := e.do(t, "GET", "/api/v1/sessions/"+id(s), nil).session(t)
	if shown["category_id"] != cat["id"] || shown["category"].(map[string]any)["id"] != cat["id"] {
		t.Fatalf("GET /sessions/:id category: %v %v", shown["category_id"], shown["category"])
	}
	if r := e.do(t, "PATCH", "/api/v1/sessions/"+id(s)+"/set_category", map[string]any{"category_id": 9000000001}); r.status != 404 {
		t.Fatalf("unknown category: %d %s", r.status, r.raw)
	}
	list := e.do(t, "GET", "/api/v1/categories", nil)
	found := false
	for _, c := range list.body["categories"].([]any) {
		if c := c.(map[string]any); c["id"] == cat["id"] {
			found = c["session_count"] == 1.0
		}
	}
	if list.status != 200 || !found {
		t.Fatalf("list: %d %s", list.status, list.raw)
	}
	if r := e.do(t, "PATCH", "/api/v1/categories/"+cid, map[string]any{"is_frozen": true}); r.status != 200 || r.body["category"].(map[string]any)["is_frozen"] != true {
		t.Fatalf("update: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "POST", "/api/v1/categories/reorder", map[string]any{"ids": []any{"uncategorized", cat["id"]}}); r.status != 200 {
		t.Fatalf("reorder: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "POST", "/api/v1/categories/reorder", map[string]any{"ids": []any{1.5}}); r.status != 422 {
		t.Fatalf("reorder with a bad id: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "DELETE", "/api/v1/categories/"+cid, nil); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	if got := e.do(t, "GET", "/api/v1/sessions/"+id(s), nil).session(t); got["category"] != nil || got["category_id"] != nil {
		t.Fatalf("after delete the session is still in %v", got["category"])
	}
	for _, method := range []string{"PATCH", "DELETE"} {
		if r := e.do(t, method, "/api/v1/categories/"+cid, map[string]any{"name": "x"}); r.status != 404 {
			t.Errorf("%s a deleted category: %d %s", method, r.status, r.raw)
		}
	}
}

func TestEveryResponseCarryingASessionNamesItsCategory(t *testing.T) {
	e := setup(t)
	cat, err := e.ops.CreateCategory(context.Background(), graphtest.Unique(t, "every response"), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	// Each case acts on a fresh session already in the category.
	cases := []struct {
		name string
		act  func(s map[string]any, key string) response
	}{
		{"create answering a matched idempotency key", func(_ map[string]any, key string) response {
			return e.do(t, "POST", "/api/v1/sessions", map[string]any{"git_root": "file:///tmp/repo", "idempotency_key": key})
		}},
		{"update", func(s map[string]any, _ string) response {
			return e.do(t, "PATCH", "/api/v1/sessions/"+id(s), map[string]any{"title": "renamed"})
		}},
		{"notes", func(s map[string]any, _ string) response {
			return e.do(t, "PATCH", "/api/v1/sessions/"+id(s)+"/notes", map[string]any{"session_notes": "n"})
		}},
		{"archive", func(s map[string]any, _ string) response {
			return e.do(t, "POST", "/api/v1/sessions/"+id(s)+"/archive", map[string]any{"force": true})
		}},
		{"unarchive", func(s map[string]any, _ string) response {
			e.do(t, "POST", "/api/v1/sessions/"+id(s)+"/archive", map[string]any{"force": true})
			return e.do(t, "POST", "/api/v1/sessions/"+id(s)+"/unarchive", nil)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			key := graphtest.Unique(t, "category")
			s := e.create(t, map[string]any{"idempotency_key": key})
			if r := e.do(t, "PATCH", "/api/v1/sessions/"+id(s)+"/set_category", map[string]any{"category_id": cat.ID}); r.status != 200 {
				t.Fatalf("set_category: %d %s", r.status, r.raw)
			}
			r := c.act(s, key)
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.raw)
			}
			got, _ := r.session(t)["category"].(map[string]any)
			if got["id"] != float64(cat.ID) || got["name"] != cat.Name {
				t.Fatalf("category %v, want %d %q", r.session(t)["category"], cat.ID, cat.Name)
			}
		})
	}
}

func TestIncludeTranscriptAddsTheStoredTranscript(t *testing.T) {
	e := setup(t)
	s := e.create(t, map[string]any{})
	plain := e.do(t, "GET", "/api/v1/sessions/"+id(s), nil).session(t)
	if _, ok := plain["transcript"]; ok {
		t.Fatal("transcript present without include_transcript")
	}
	never := e.do(t, "GET", "/api/v1/sessions/"+id(s)+"?include_transcript=true", nil).session(t)
	if got, ok := never["transcript"].([]any); !ok || len(got) != 0 {
		t.Fatalf("a session that never ran: transcript %v", never["transcript"])
	}
	path := transcript.Path(e.dataDir, int64(s["id"].(float64)))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	lines := `{"type":"zimmer_turn","turn":1,"prompt":"go"}` + "\n" + `{"type":"assistant","cut":` + "\n" + `{"type":"result"}` + "\n"
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.UpdateSession(context.Background(), int64(s["id"].(float64)), func(u *session.Session) error {
		u.Metadata[session.MetaTranscriptPath] = path
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ran := e.do(t, "GET", "/api/v1/sessions/"+id(s)+"?include_transcript=true", nil).session(t)
	got, _ := ran["transcript"].([]any)
	if len(got) != 2 || got[0].(map[string]any)["type"] != "zimmer_turn" || got[1].(map[string]any)["type"] != "result" {
		t.Fatalf("transcript (the line cut short left out): %v", ran["transcript"])
	}
}

func TestSkillsListsTheCatalogsSkills(t *testing.T) {
	e := setup(t)
	r := e.do(t, "GET", "/api/v1/skills", nil)
	skills, _ := r.body["skills"].([]any)
	if r.status != 200 || len(skills) != 2 || skills[0].(map[string]any)["name"] != "code-review" || skills[1].(map[string]any)["name"] != "release-notes" {
		t.Fatalf("got %d %s", r.status, r.raw)
	}
}
