package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// Compact and continue. A turn whose conversation outgrew the model's context is not a failure
// while compacting can help:
//
//   - Claude Code compacts its own conversation: "/compact" is the whole prompt of a resumed
//     turn, and when that turn ends cleanly the conversation resumes with the overflowing turn's
//     prompt (continueCompacted).
//   - Codex and Pi cannot be asked to compact in their print modes: `codex exec` takes no slash
//     commands (its own overflow error says to start a new conversation), Pi's /compact is
//     interactive only and its automatic compaction has already failed when it reports an
//     overflow. So they start a new conversation seeded with the end of the session's transcript
//     and the request (orchestrator.CompactionSeed). A summary written by the model was weighed
//     and left out: asking a model to summarise a conversation that does not fit its context
//     fails the same way, and the tail a one-shot could read is what the seed carries anyway.
//
// Compactions in a row are budgeted as the original did (at most 2); the next overflow fails the
// session with context_length_compact_failed. The budget is reset only by a turn that ends
// cleanly on the session's own work, not by the /compact turn between.

// compactCommand is Claude Code's compaction, sent as a resumed turn's whole prompt.
const compactCommand = "/compact"

// compactBudget is how many compactions in a row a conversation gets.
const compactBudget = 2

// troubleCompacted is the retry class of the turn that goes on after /compact; its own count
// keeps the overflow's budget untouched.
const troubleCompacted = "compacted"

// compact acts on a context overflow.
func (t *turn) compact(ctx context.Context, tr transcript.Trouble) string {
	request := session.BagString(t.sess.Metadata, session.MetaCompactContinuation)
	if request == "" {
		request = t.base
	}
	r := orchestrator.Retry{Class: tr.Class, At: time.Now(), Budget: compactBudget, Text: tr.Text, Continuation: request}
	if t.rt.key == catalog.RuntimeClaude {
		r.Prompt = compactCommand
		r.Timeline = fmt.Sprintf("The conversation outgrew the model's context (%s). Compacting it with /compact, then continuing with the turn's prompt", tr.Text)
	} else {
		r.Prompt, r.Fresh = t.r.ops.CompactionSeed(t.sess, request), true
		r.Timeline = fmt.Sprintf("The conversation outgrew the model's context (%s). Starting a new %s conversation seeded with the end of the transcript and the turn's prompt", tr.Text, t.rt.label)
	}
	_, err := t.r.ops.RetryTurn(ctx, t.sess.ID, t.taskID, r)
	if errors.Is(err, orchestrator.ErrRetryBudgetSpent) {
		t.counted(tr.Class, troubleFail)
		return t.fail(ctx, orchestrator.Failure{Reason: FailureContext, Details: t.exitDetails(),
			Message: fmt.Sprintf("the conversation still outgrew the model's context after %d compactions in a row (%s); fork the session from an earlier message, or start a new one with a summary", compactBudget, tr.Text)})
	}
	if err != nil {
		return t.ended(outcomeRetrying, err)
	}
	t.counted(tr.Class, troubleCompact)
	t.r.log.Warn("conversation outgrew the model's context; compacting", "session_id", t.sess.ID, "runtime", t.rt.key)
	return outcomeRetrying
}

// continueCompacted: the /compact turn ended cleanly, so the conversation goes on at once with
// the prompt that overflowed; handled is false for any other turn.
func (t *turn) continueCompacted(ctx context.Context) (outcome string, handled bool) {
	request := session.BagString(t.sess.Metadata, session.MetaCompactContinuation)
	if t.base != compactCommand || request == "" {
		return "", false
	}
	_, err := t.r.ops.RetryTurn(ctx, t.sess.ID, t.taskID, orchestrator.Retry{Class: troubleCompacted, At: time.Now(),
		Prompt: request, Continuation: request, Timeline: "The conversation was compacted; continuing with the turn's prompt"})
	if err != nil {
		return t.ended(outcomeRetrying, err), true
	}
	return outcomeRetrying, true
}
