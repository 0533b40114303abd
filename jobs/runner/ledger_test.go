package runner_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/zimmerhq/zimmer/session"
)

// A fork copies its source's transcript; refreshing the fork must not bill the source's
// requests a second time — neither by linking the source's rows (Claude's message ids) nor by
// minting new rows for the copied lines (Codex's line-derived ids).
func TestAForksLedgerHoldsOnlyItsOwnRequests(t *testing.T) {
	e := shared(t)
	for _, runtime := range []string{"claude_code", "codex"} {
		t.Run(runtime, func(t *testing.T) {
			ctx := context.Background()
			id := e.create(t, map[string]any{"prompt": "say more", "agent_runtime": runtime})
			e.waitStatus(t, id, session.StatusNeedsInput)
			source, err := e.ops.TokenUsage(ctx, id)
			if err != nil || len(source) == 0 {
				t.Fatalf("the source's ledger: %v rows, %v", len(source), err)
			}
			lines := e.transcript(t, id)
			status, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/fork", map[string]any{"message_index": len(lines) - 1})
			if status != http.StatusCreated {
				t.Fatalf("fork: %d %v", status, out)
			}
			forkID := int64(out["session"].(map[string]any)["id"].(float64))
			if status, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(forkID)+"/refresh", nil); status != http.StatusOK {
				t.Fatalf("refresh the fork: %d %v", status, out)
			}
			if status, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/refresh", nil); status != http.StatusOK {
				t.Fatalf("refresh the source: %d %v", status, out)
			}
			if rows, err := e.ops.TokenUsage(ctx, forkID); err != nil || len(rows) != 0 {
				t.Errorf("the fork's ledger after a refresh: %d rows (%v), want none: every copied request is its source's", len(rows), err)
			}
			if rows, err := e.ops.TokenUsage(ctx, id); err != nil || len(rows) != len(source) {
				t.Errorf("the source's ledger after both refreshes: %d rows (%v), want %d", len(rows), err, len(source))
			}
			totals, err := e.ops.UsageTotals(ctx, forkID)
			if err != nil || totals.Requests != 0 {
				t.Errorf("the fork's costs so far: %+v (%v), want nothing", totals, err)
			}
		})
	}
}
