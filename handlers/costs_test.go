package handlers_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/session"
)

func TestTheCostsEndpointsReportRollUpPageAndBackfill(t *testing.T) {
	e := setup(t)
	router := e.create(t, map[string]any{"agent_root": "zimmer-router", "title": "Route"})
	worker := e.create(t, map[string]any{"agent_root": "zimmer", "title": "Work", "parent_session_id": router["id"]})
	spend := func(s map[string]any, model string, input int64) {
		id := int64(s["id"].(float64))
		if _, err := e.store.RecordTokenUsage(context.Background(), id, []session.TokenUsage{{RequestID: graphtest.Unique(t, "req"),
			Model: model, AgentRoot: "zimmer", CalledAt: time.Now(), TokenCounts: session.TokenCounts{InputTokens: input}}}); err != nil {
			t.Fatal(err)
		}
	}
	spend(router, "claude-sonnet-4-5", 1_000_000) // $3
	spend(worker, "claude-haiku-4-5", 2_000_000)  // $2
	price := func(r response) float64 {
		totals, _ := r.body["totals"].(map[string]any)
		p, _ := totals["list_price"].(float64)
		return p
	}
	own := e.do(t, http.MethodGet, fmt.Sprintf("/api/v1/costs?session_id=%v&days=1", router["id"]), nil)
	if own.status != http.StatusOK || math.Abs(price(own)-3) > 1e-9 {
		t.Fatalf("the router's own spend: %d %s", own.status, own.raw)
	}
	tree := e.do(t, http.MethodGet, fmt.Sprintf("/api/v1/costs?session_id=%v&include_descendants=true", router["id"]), nil)
	if tree.status != http.StatusOK || math.Abs(price(tree)-5) > 1e-9 || tree.body["ledger_coverage"] == nil || tree.body["pricing"] == nil {
		t.Fatalf("the router and every session it spawned: %d %s", tree.status, tree.raw)
	}
	recs := e.do(t, http.MethodGet, fmt.Sprintf("/api/v1/costs/records?session_id=%v", worker["id"]), nil)
	rows, _ := recs.body["records"].([]any)
	if recs.status != http.StatusOK || len(rows) != 1 || rows[0].(map[string]any)["model"] != "claude-haiku-4-5" ||
		recs.body["pagination"].(map[string]any)["total_count"] != float64(1) {
		t.Fatalf("the worker's records: %d %s", recs.status, recs.raw)
	}
	if adhoc := e.do(t, http.MethodGet, "/api/v1/costs/records?kind=adhoc", nil); adhoc.status != http.StatusOK || len(adhoc.body["records"].([]any)) != 0 {
		t.Fatalf("no ad hoc spend is recorded: %d %s", adhoc.status, adhoc.raw)
	}
	for _, bad := range []string{"/api/v1/costs?session_id=abc", "/api/v1/costs/records?kind=other"} {
		if r := e.do(t, http.MethodGet, bad, nil); r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", bad, r.status, r.raw)
		}
	}
	if r := e.do(t, http.MethodGet, "/api/v1/costs?session_id=999999999999", nil); r.status != http.StatusNotFound {
		t.Errorf("an unknown session: %d %s", r.status, r.raw)
	}
	first := e.do(t, http.MethodPost, "/api/v1/costs/backfill", nil)
	again := e.do(t, http.MethodPost, "/api/v1/costs/backfill", nil)
	if first.status != http.StatusOK || first.body["queued"] != true || again.body["joined"] != true ||
		fmt.Sprint(again.body["run"].(map[string]any)["run"]) != fmt.Sprint(first.body["run"].(map[string]any)["run"]) {
		t.Fatalf("backfill twice is one sweep: %s then %s", first.raw, again.raw)
	}
}
