package runner

import (
	"context"
	"errors"
	"time"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// mcpFailure records the MCP servers' states the runtime reported since the last look and, when
// a newly failed server needs the turn to end, ends it and routes it (orchestrator/degraded.go):
// park for OAuth, or continue — after the ladder's wait, or at once with the recovery nudge when
// servers were only left out. live says the process may still run and has to be stopped first.
func (t *turn) mcpFailure(ctx context.Context, live bool) (outcome string, handled bool) {
	v, err := t.r.ops.RecordMCPStatus(ctx, t.sess.ID, t.taskID, t.out.takeMCP())
	if errors.Is(err, orchestrator.ErrNotOwner) {
		return "", false // the monitor's ownership check ends the turn
	}
	if err != nil {
		t.r.log.Warn("MCP server states not recorded", "session_id", t.sess.ID, "err", err)
		return "", false
	}
	if !v.Acts() {
		return "", false
	}
	if live {
		t.proc.terminate(t.r.opt.TermGrace)
		t.settle(ctx)
	}
	if len(v.Park) > 0 {
		return t.ended(outcomeFailed, t.r.ops.ParkForOAuth(ctx, t.sess.ID, t.taskID, v.Park)), true
	}
	now := time.Now()
	r := orchestrator.Retry{Class: orchestrator.TroubleMCPDegraded, At: now, Text: v.Text, Prompt: orchestrator.MCPRecoveryPrompt}
	if len(v.Retry) > 0 {
		r.Class, r.Budget = orchestrator.TroubleMCPConnection, orchestrator.MCPRetryBudget
		r.At = now.Add(orchestrator.MCPRetryDelay(t.r.opt.MCPRetryBase, v.Attempt))
	}
	_, err = t.r.ops.RetryTurn(ctx, t.sess.ID, t.taskID, r)
	return t.ended(outcomeRetrying, err), true
}
