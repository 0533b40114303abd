package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestASessionsTimelineCanBeWrittenReadEditedAndPruned(t *testing.T) {
	e := setup(t)
	path := "/api/v1/sessions/" + id(e.create(t, map[string]any{})) + "/logs"
	made := map[string]string{}
	for _, level := range []string{"info", "error", "debug", "warning", "verbose"} {
		r := e.do(t, "POST", path, map[string]any{"level": level, "content": "a " + level + " line"})
		log, _ := r.body["log"].(map[string]any)
		if r.status != http.StatusCreated || log["level"] != level || log["content"] != "a "+level+" line" {
			t.Fatalf("create %s: %d %s", level, r.status, r.raw)
		}
		made[level] = log["id"].(string)
	}

	r := e.do(t, "GET", path+"?level=error", nil)
	logs, _ := r.body["logs"].([]any)
	if r.status != http.StatusOK || len(logs) != 1 || logs[0].(map[string]any)["id"] != made["error"] ||
		r.body["pagination"].(map[string]any)["total_count"] != float64(1) {
		t.Fatalf("filtered by level: %d %s", r.status, r.raw)
	}
	r = e.do(t, "GET", path+"?per_page=2&page=2", nil)
	if logs, _ := r.body["logs"].([]any); len(logs) != 2 || r.body["pagination"].(map[string]any)["total_count"].(float64) < 5 {
		t.Fatalf("paged: %d %s", r.status, r.raw)
	}

	one := path + "/" + made["info"]
	if r := e.do(t, "GET", one, nil); r.status != http.StatusOK || r.body["log"].(map[string]any)["content"] != "a info line" {
		t.Fatalf("show: %d %s", r.status, r.raw)
	}
	r = e.do(t, "PATCH", one, map[string]any{"level": "warning"})
	if log := r.body["log"].(map[string]any); r.status != http.StatusOK || log["level"] != "warning" || log["content"] != "a info line" {
		t.Fatalf("a level change leaves the content: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "DELETE", one, nil); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	for _, method := range []string{"GET", "PATCH", "DELETE"} {
		if r := e.do(t, method, one, map[string]any{"content": "x"}); r.status != http.StatusNotFound || r.body["message"] != "Log not found" {
			t.Errorf("%s a removed entry: %d %s", method, r.status, r.raw)
		}
	}
}

func TestATimelineEntryNeedsContentAndAKnownLevel(t *testing.T) {
	e := setup(t)
	path := "/api/v1/sessions/" + id(e.create(t, map[string]any{})) + "/logs"
	tests := []struct {
		name string
		body map[string]any
		want string
	}{
		{"no level", map[string]any{"content": "x"}, "Level must be one of info, error, debug, warning, verbose"},
		{"an unknown level", map[string]any{"content": "x", "level": "fatal"}, "Level must be one of"},
		{"no content", map[string]any{"level": "info"}, "Content can't be blank"},
		{"blank content", map[string]any{"level": "info", "content": "  "}, "Content can't be blank"},
		{"content too long", map[string]any{"level": "info", "content": strings.Repeat("x", 100_001)}, "Content is too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, "POST", path, tt.body)
			if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body["message"].(string), tt.want) {
				t.Fatalf("%d %s; want 422 %q", r.status, r.raw, tt.want)
			}
		})
	}
	created := e.do(t, "POST", path, map[string]any{"level": "info", "content": "kept"})
	one := path + "/" + created.body["log"].(map[string]any)["id"].(string)
	if r := e.do(t, "PATCH", one, map[string]any{"level": "loud"}); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("edit to an unknown level: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "GET", path, nil); r.body["pagination"].(map[string]any)["total_count"] != float64(1) {
		t.Fatalf("a refused entry was written: %s", r.raw)
	}
	if r := e.do(t, "GET", "/api/v1/sessions/999999999/logs", nil); r.status != http.StatusNotFound {
		t.Fatalf("an unknown session: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "GET", path, nil, "X-Nothing", ""); r.status != http.StatusUnauthorized {
		t.Fatalf("without a key: %d %s", r.status, r.raw)
	}
}
