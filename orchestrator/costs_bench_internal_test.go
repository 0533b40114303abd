package orchestrator

import (
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/pricing"
	"github.com/zimmerhq/zimmer/session"
)

// BenchmarkPricingAHierarchyOf5000Sessions prices what a roll-up over a 5,000-child router
// reads: two models' rows a session.
func BenchmarkPricingAHierarchyOf5000Sessions(b *testing.B) {
	day := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	rows := make([]graph.CostRow, 0, 10_002)
	for id := int64(1); id <= 5001; id++ {
		for _, m := range []string{"claude-opus-4-5", "claude-haiku-4-5"} {
			rows = append(rows, graph.CostRow{SessionID: id, AgentRoot: "zimmer", Model: m, Day: day, Calls: 2,
				TokenCounts: session.TokenCounts{InputTokens: 1200, OutputTokens: 300, CacheReadTokens: 40_000, CacheCreationTokens: 900}})
		}
	}
	prices := pricing.Default()
	for b.Loop() {
		priceRows(rows, prices)
	}
}
