package orchestrator

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// A turn that ends in passing trouble (a rate limit, an overloaded API, a crash) is not a
// failure: the session sleeps in waiting and the same conversation continues at a set time, as
// often as the runner's budget for that kind of trouble allows. Only then, or for trouble time
// does not cure, does the session fail, with a reason a human can act on.

// ErrRetryBudgetSpent means the trouble has been retried as often as its budget allows.
var ErrRetryBudgetSpent = errors.New("the retry budget for this trouble is spent")

// TroubleRetryPrompt continues a conversation whose turn was cut off by trouble.
const TroubleRetryPrompt = "SYSTEM_RECOVERY: your previous turn was cut off by a transient problem with the model provider " +
	"(%s). It has passed; continue exactly where you left off. Do not redo work that is already done."

// Retry is a turn's trouble and when to try again.
type Retry struct {
	Class  string    // the trouble's class (transcript.Trouble*)
	At     time.Time // when the next attempt is due
	Budget int       // attempts allowed for this class in a row
	Text   string    // the runtime's words, for the timeline
	// Prompt continues a started conversation instead of the trouble nudge ("" keeps the nudge);
	// a runtime that never started gets its turn's own prompt either way. Budget 0 is unlimited.
	Prompt string
	// Fresh starts a new conversation with Prompt as its first message: the runtime's
	// conversation id is dropped (compaction for a runtime that cannot compact its own).
	Fresh bool
	// Continuation, when set, is kept as the prompt the conversation goes on with after it is
	// compacted (session.MetaCompactContinuation).
	Continuation string
	// Timeline replaces the default timeline line ("The turn hit …").
	Timeline string
}

// RetryOutcome is what RetryTurn decided.
type RetryOutcome struct {
	Attempt int       // this retry's number, from 1
	At      time.Time // when it is due
	TaskID  string
}

// RetryTurn ends the owned turn in trouble and schedules the conversation to continue at r.At:
// the session sleeps in waiting, its next job recorded as a pending dispatch due then (the sweep
// queues it again if the queue loses it; a follow-up meanwhile takes over sooner). When the
// class has been retried r.Budget times in a row it changes nothing and returns
// ErrRetryBudgetSpent. The session never rests, so the pause it passes through carries none of
// a rest's effects (no needs_input triggers, pushes or drain).
func (s *Service) RetryTurn(ctx context.Context, sessionID int64, taskID string, r Retry) (RetryOutcome, error) {
	token := rand.Text() // drawn outside the retried transaction, so the task id is stable
	var out RetryOutcome
	var h *handOff
	_, err := s.updateOwned(ctx, sessionID, taskID, func(u *session.Session) error {
		retries, _ := u.Metadata[session.MetaTroubleRetries].(map[string]any)
		if retries == nil {
			retries = map[string]any{}
		}
		n := session.BagInt(retries, r.Class)
		if r.Budget > 0 && n >= r.Budget {
			return ErrRetryBudgetSpent
		}
		rested := len(batchesOf(u))
		if err := s.applyEvent(u, session.EventPause, "Cannot retry"); err != nil {
			return err
		}
		if err := s.applyEvent(u, session.EventSleep, "Cannot retry"); err != nil {
			return err
		}
		setBatches(u, batchesOf(u)[:rested])
		prompt := retryPrompt(u, r.Class)
		if r.Prompt != "" && (r.Fresh || u.Flag(session.MetaRuntimeStarted) && u.RuntimeSessionID != nil) {
			prompt = r.Prompt
		}
		if r.Fresh {
			delete(u.Metadata, session.MetaRuntimeStarted)
			u.RuntimeSessionID = nil
		}
		clearTurn(u)
		if r.Continuation != "" {
			u.Metadata[session.MetaCompactContinuation] = r.Continuation
		}
		retries[r.Class] = n + 1
		u.Metadata[session.MetaTroubleRetries] = retries
		u.Metadata[session.MetaTrouble] = map[string]any{"class": r.Class, "attempt": n + 1, "budget": r.Budget,
			"retry_at": r.At.UTC().Format(time.RFC3339), "message": r.Text}
		h = &handOff{taskID: tasks.RunSessionTaskID(u.ID, "retry-"+token), reason: "retry", at: r.At, prompt: prompt}
		u.RunningJobID, u.JobID = nil, &h.taskID
		u.Metadata[session.MetaNextTurnReason] = "retry"
		p := pendingDispatch{TaskID: h.taskID, Prompt: h.prompt, Reason: h.reason,
			CreatedAt: s.now().UTC().Format(time.RFC3339Nano), DueAt: r.At.UTC().Format(time.RFC3339Nano)}
		u.Metadata[session.MetaPendingDispatch] = p.bag()
		out = RetryOutcome{Attempt: n + 1, At: r.At, TaskID: h.taskID}
		return nil
	})
	if err != nil {
		return RetryOutcome{}, err
	}
	attempt := ""
	if r.Budget > 0 {
		attempt = fmt.Sprintf(" (attempt %d of %d)", out.Attempt, r.Budget)
	}
	line := fmt.Sprintf("The turn hit %s: %s. Continuing at %s%s.", troubleWords(r.Class), r.Text, r.At.UTC().Format("2006-01-02 15:04:05 UTC"), attempt)
	if r.Timeline != "" {
		line = r.Timeline + attempt
	}
	s.timeline(ctx, sessionID, session.LogWarning, line)
	_ = s.dispatch(ctx, sessionID, h) // the hand-off is durable: the sweep queues a job not queued now
	return out, nil
}

// retryPrompt continues the conversation, or re-sends the turn's prompt when the runtime never
// started one.
func retryPrompt(u *session.Session, class string) string {
	if u.Flag(session.MetaRuntimeStarted) && u.RuntimeSessionID != nil {
		return fmt.Sprintf(TroubleRetryPrompt, troubleWords(class))
	}
	return session.BagString(u.Metadata, session.MetaActivePrompt)
}

// troubleWords names a trouble class for people.
func troubleWords(class string) string {
	switch class {
	case "rate_limit":
		return "a rate limit or usage cap"
	case "overloaded":
		return "an overloaded or failing model API"
	case "crash":
		return "a crash of the agent CLI"
	case TroubleMCPConnection:
		return "MCP servers that did not connect"
	case TroubleMCPDegraded:
		return "MCP servers left out"
	}
	return class
}

// compactSeedChars bounds the earlier conversation a compaction seed carries: a fresh
// conversation has to start well inside the model's context.
const compactSeedChars = 24_000

// CompactionSeed is the first message of a new conversation that replaces one that no longer
// fit the model's context: what the earlier conversation ended with, read from the session's
// transcript and bounded, then the request it was working on.
func (s *Service) CompactionSeed(sess *session.Session, request string) string {
	var b strings.Builder
	b.WriteString("SYSTEM_RECOVERY: this session's earlier conversation with you grew past the model's context window, " +
		"so this is a new conversation. The working tree is exactly as the earlier conversation left it; check it " +
		"(git status, git diff) before you change anything, and do not redo work that is already done.\n")
	if data, _, err := s.transcriptWindow(sess, summaryWindow); err == nil {
		rendered := transcriptTail(transcript.Render(data), compactSeedChars)
		if strings.TrimSpace(rendered) != "" {
			b.WriteString("\nThe end of the earlier conversation:\n\n" + rendered + "\n")
		}
	}
	b.WriteString("\nThe request it was working on, which you now continue:\n\n" + request)
	return b.String()
}
