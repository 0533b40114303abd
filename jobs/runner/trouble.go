package runner

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// Turns that survive trouble. What the turn's end says (transcript.Diagnose over the runtime's
// reported error and its stderr, or a death by a signal nobody here sent) decides:
//
//	rate limit / usage cap  sleep until the announced reset (plus a margin), else back off; 5 in a row
//	overloaded / 5xx        back off RetryBase, ×4 each time; 4 in a row
//	crash (killed)          continue after RetryBase; 2 in a row
//	authentication          fail: authentication_failed — a person has to log the CLI in
//	context overflow        fail: context_length_exceeded — fork from earlier, or start afresh
//
// Retries continue the same conversation (orchestrator.RetryTurn); a budget spent fails the
// session with api_error_retries_exhausted or signal_death_retries_exhausted.

// Failure reasons of trouble.
const (
	FailureAuth             = "authentication_failed"
	FailureContext          = "context_length_exceeded"
	FailureAPIRetries       = "api_error_retries_exhausted"
	FailureSignalDeathRetry = "signal_death_retries_exhausted"
)

// troubleCrash is a death by a signal the runner did not send.
const troubleCrash = "crash"

const (
	outcomeRetrying = "retrying" // trouble: the conversation continues at a set time
	maxResetWait    = 7 * 24 * time.Hour
)

var retryBudget = map[string]int{transcript.TroubleRateLimit: 5, transcript.TroubleOverloaded: 4, troubleCrash: 2}

// trouble acts on the trouble the turn ended in; handled is false when there was none.
func (t *turn) trouble(ctx context.Context) (outcome string, handled bool) {
	reported := t.out.reportedError()
	if t.proc.state.Success() && reported == "" {
		return "", false
	}
	now := time.Now()
	tr := transcript.Diagnose(reported, t.proc.stderrTail(), now)
	if tr.Class == "" && t.signalled() {
		tr = transcript.Trouble{Class: troubleCrash, Text: fmt.Sprintf("the %s CLI was killed (%s)", t.rt.label, t.proc.state)}
	}
	switch tr.Class {
	case "":
		return "", false
	case transcript.TroubleAuth:
		t.counted(tr.Class, troubleFail)
		return t.fail(ctx, orchestrator.Failure{Reason: FailureAuth, Details: t.exitDetails(),
			Message: fmt.Sprintf("the %s CLI could not authenticate (%s); log the worker's %s in again or fix its API key, then restart the session", t.rt.label, tr.Text, t.rt.label)}), true
	case transcript.TroubleContext:
		t.counted(tr.Class, troubleFail)
		return t.fail(ctx, orchestrator.Failure{Reason: FailureContext, Details: t.exitDetails(),
			Message: fmt.Sprintf("the conversation no longer fits the model's context (%s); fork the session from an earlier message, or start a new one with a summary", tr.Text)}), true
	}
	budget := retryBudget[tr.Class]
	out, err := t.r.ops.RetryTurn(ctx, t.sess.ID, t.taskID, orchestrator.Retry{Class: tr.Class, At: t.retryAt(tr, now), Budget: budget, Text: tr.Text})
	if errors.Is(err, orchestrator.ErrRetryBudgetSpent) {
		reason := FailureAPIRetries
		if tr.Class == troubleCrash {
			reason = FailureSignalDeathRetry
		}
		t.counted(tr.Class, troubleFail)
		return t.fail(ctx, orchestrator.Failure{Reason: reason, Details: t.exitDetails(),
			Message: fmt.Sprintf("%s persisted through %d retries (%s); restart the session when it has passed", tr.Class, budget, tr.Text)}), true
	}
	if err != nil {
		return t.ended(outcomeRetrying, err), true
	}
	t.counted(tr.Class, troubleRetry)
	t.r.log.Warn("turn hit trouble; retrying", "session_id", t.sess.ID, "class", tr.Class, "attempt", out.Attempt, "at", out.At)
	return outcomeRetrying, true
}

// What the runner did about trouble (the action label of zimmer_turn_troubles_total).
const (
	troubleRetry = "retry"
	troubleFail  = "fail"
)

func (t *turn) counted(class, action string) {
	t.r.opt.Runs.Trouble(t.sess.AgentRuntime, class, action)
}

// retryAt is when the conversation continues: a rate limit's announced reset (plus a margin)
// when it said one within a week, else a back-off growing fourfold per retry already made.
func (t *turn) retryAt(tr transcript.Trouble, now time.Time) time.Time {
	base := t.r.opt.RetryBase
	if tr.Class == transcript.TroubleRateLimit && tr.ResetAt.After(now) && tr.ResetAt.Before(now.Add(maxResetWait)) {
		return tr.ResetAt.Add(base)
	}
	if tr.Class == troubleCrash {
		return now.Add(base)
	}
	retries, _ := t.sess.Metadata[session.MetaTroubleRetries].(map[string]any)
	wait := base
	for range session.BagInt(retries, tr.Class) {
		wait *= 4
	}
	return now.Add(wait)
}

// signalled: the process died of a signal; the runner's own terminations never come here
// (they end the turn as superseded or handed back).
func (t *turn) signalled() bool {
	ws, ok := t.proc.state.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

func (t *turn) exitDetails() map[string]any {
	return map[string]any{session.MetaExitStatus: exitStatus(t.proc), session.MetaFailureDetail: t.proc.stderrTail()}
}
