package mcp_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/session"
)

func TestGetCostsReportsSpendAtListPriceOnBothSurfaces(t *testing.T) {
	t.Parallel()
	e := setup(t)
	me := e.fixture(t, nil)
	if _, err := e.store.RecordTokenUsage(context.Background(), me.ID, []session.TokenUsage{
		{RequestID: graphtest.Unique(t, "req"), Model: "claude-opus-4-5", AgentRoot: "zimmer", CalledAt: time.Now(),
			TokenCounts: session.TokenCounts{InputTokens: 2_000_000, OutputTokens: 100_000}},
		{RequestID: graphtest.Unique(t, "req"), Model: "gpt-5-codex", AgentRoot: "zimmer", CalledAt: time.Now(),
			TokenCounts: session.TokenCounts{InputTokens: 10}},
	}); err != nil {
		t.Fatal(err)
	}
	full := e.ok(t, "/mcp?tool_groups=health", "get_costs", map[string]any{"session_id": me.ID, "days": 2})
	contains(t, full, fmt.Sprintf("## Token spend — the last 2 days · session #%d", me.ID), "**$12.50** at list price · 2 model calls",
		"### Where the money goes", "| input | 2000010 tokens | $10.00 |", "### ⚠️ Unpriced models", "`gpt-5-codex`",
		"### ⚠️ Partial history", "not money owed")
	own := e.ok(t, selfURL(me), "get_costs", nil)
	contains(t, own, fmt.Sprintf("· session #%d", me.ID), "**$12.50** at list price")
	rolled := e.ok(t, "/mcp?tool_groups=health", "get_costs", map[string]any{"session_id": me.ID, "include_descendants": true})
	contains(t, rolled, fmt.Sprintf("· session #%d and every session it spawned", me.ID), "**$12.50** at list price")
}

func TestBackfillTokenUsageStartsOneSweepAndJoinsIt(t *testing.T) {
	t.Parallel()
	e := setup(t)
	path := "/mcp?tool_groups=health"
	first := e.ok(t, path, "action_health", map[string]any{"action": "backfill_token_usage"})
	contains(t, first, "## Token Usage Backfill Queued", "started over 0 transcripts")
	again := e.ok(t, path, "action_health", map[string]any{"action": "backfill_token_usage"})
	contains(t, again, "## Token Usage Backfill Queued", "this joins it")
	report := e.ok(t, path, "get_costs", nil)
	contains(t, report, "### ⚠️ Partial history", "The sweep of every transcript into the ledger is running: 0 of 0 transcripts read")
}
