package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// Status summaries and inferred titles: one-shot model calls about a session, made on the
// inference lane by a Summarizer (by default the session's own agent CLI, jobs/runner) and
// cached, so reading a session never generates anything.

// Summarizer answers one question about a session in one model call, outside the session's
// conversation.
type Summarizer interface {
	OneShot(ctx context.Context, q OneShot) (string, error)
}

// OneShot is one question: the session it is about, the runtime and model to ask, the prompt.
type OneShot struct {
	SessionID      int64
	Runtime, Model string
	Prompt         string
}

// Status-summary states.
const (
	SummaryIdle    = "idle"    // never asked for
	SummaryPending = "pending" // asked for; none ready yet
	SummaryReady   = "ready"
	SummaryFailed  = "failed" // the last generation failed (an earlier summary, if any, stays)
)

const (
	// summaryWindow is how much of the transcript's end a summary reads.
	summaryWindow = 512 << 10
	// summaryPromptChars bounds the rendered transcript sent to the model.
	summaryPromptChars = 24000
	// summaryLost is how long a requested generation may take before it is taken for lost (its
	// worker died); a new request then queues another.
	summaryLost      = 10 * time.Minute
	maxInferredTitle = 80
	// maxGoalInPrompt keeps a long goal from crowding out the transcript (and the prompt, one
	// command-line argument, under the kernel's 128 KiB limit for one).
	maxGoalInPrompt = 2000
)

// noTranscript is the refusal of a summary for a session that never ran.
const noTranscript = "Session has no transcript yet."

// StatusSummaryView is a session's status summary as the surfaces show it.
type StatusSummaryView struct {
	Summary *string
	// MessagesSinceGenerated counts the transcript entries written after the summary was
	// generated; nil when there is no summary.
	MessagesSinceGenerated *int
	State                  string
	Generating             bool
	Error                  *string
	GeneratedAt            *time.Time
}

// statusSummaryView is a stored summary as the surfaces show it: a lost generation reads as
// failed, and the transcript entries written since it was generated are counted.
func (s *Service) statusSummaryView(id int64, ss graph.StatusSummary) (StatusSummaryView, error) {
	v := StatusSummaryView{Summary: ss.Summary, State: ss.State, Generating: ss.Generating, Error: ss.Error, GeneratedAt: ss.GeneratedAt}
	if s.summaryLost(ss) {
		v.Generating = false
		if v.State == SummaryPending {
			v.State = SummaryFailed
			lost := "The generation never finished; regenerate the summary."
			v.Error = &lost
		}
	}
	if ss.Summary != nil {
		data, _, _, err := s.rawTranscriptFrom(id, ss.CoveredBytes, summaryWindow) // counted, never shown
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return StatusSummaryView{}, fmt.Errorf("read transcript of session %d: %w", id, err)
		}
		n := len(transcript.Entries(data))
		v.MessagesSinceGenerated = &n
	}
	return v, nil
}

func (s *Service) summaryLost(ss graph.StatusSummary) bool {
	return ss.Generating && ss.RequestedAt != nil && s.now().Sub(*ss.RequestedAt) > summaryLost
}

// RegenerateStatusSummary queues a generation of the session's status summary whatever the
// cached one covers; a session without a transcript is refused. Archived sessions are allowed.
func (s *Service) RegenerateStatusSummary(ctx context.Context, id int64) error {
	sess, err := s.store.GetSession(ctx, id)
	if err != nil {
		return err
	}
	if !s.hasTranscript(sess) {
		return invalid("Nothing to summarize", noTranscript)
	}
	return s.requestStatusSummary(ctx, id)
}

// refreshStatusSummary is the lifecycle effect: a session that came to rest gets its summary
// regenerated when its transcript grew since the last one.
func (s *Service) refreshStatusSummary(ctx context.Context, r effectRun) error {
	sess, err := s.store.GetSession(ctx, r.SessionID)
	if err != nil {
		return ignoreDeleted(err)
	}
	if !s.hasTranscript(sess) {
		return nil
	}
	ss, err := s.store.StatusSummary(ctx, r.SessionID)
	if err != nil {
		return err
	}
	if ss.Summary != nil && ss.CoveredBytes >= s.transcriptSize(r.SessionID) {
		return nil // nothing new to say
	}
	return s.requestStatusSummary(ctx, r.SessionID)
}

// requestStatusSummary marks a generation under way and queues it.
func (s *Service) requestStatusSummary(ctx context.Context, id int64) error {
	ss, err := s.store.StatusSummary(ctx, id)
	if err != nil {
		return err
	}
	if ss.Generating && !s.summaryLost(ss) {
		// Queued already; queueing again is absorbed, and re-queues one whose task was lost.
		return s.queue.EnqueueInference(ctx, tasks.TypeStatusSummary, id)
	}
	now := s.now().UTC()
	ss.Generating, ss.RequestedAt = true, &now
	if ss.Summary == nil {
		ss.State, ss.Error = SummaryPending, nil
	}
	if err := s.store.SaveStatusSummary(ctx, id, ss); err != nil {
		return err
	}
	return s.queue.EnqueueInference(ctx, tasks.TypeStatusSummary, id)
}

// GenerateStatusSummary is the inference task: ask sum where the session stands, from the end
// of its transcript, and cache the answer. A failed call is recorded on the summary, not
// retried; a session deleted meanwhile is done.
func (s *Service) GenerateStatusSummary(ctx context.Context, id int64, sum Summarizer) error {
	sess, err := s.store.GetSession(ctx, id)
	if err != nil {
		return ignoreDeleted(err)
	}
	ss, err := s.store.StatusSummary(ctx, id)
	if err != nil {
		return err
	}
	ss.Generating = false
	data, end, _, err := s.transcriptFrom(id, 0, summaryWindow)
	var answer string
	switch {
	case errors.Is(err, os.ErrNotExist):
		err = errors.New("the session has no transcript yet")
	case err == nil:
		answer, err = sum.OneShot(ctx, OneShot{SessionID: id, Runtime: sess.AgentRuntime, Model: sess.Model(),
			Prompt: summaryPrompt(sess, transcript.Render(data))})
		answer = strings.TrimSpace(answer)
		if err == nil && answer == "" {
			err = errors.New("the model answered nothing")
		}
	}
	now := s.now().UTC()
	if err != nil {
		s.log.Warn("status summary not generated", "session_id", id, "err", err)
		msg := "The summary could not be generated: " + err.Error()
		ss.State, ss.Error = SummaryFailed, &msg
	} else {
		ss.Summary, ss.Error, ss.State, ss.GeneratedAt, ss.CoveredBytes = &answer, nil, SummaryReady, &now, end
	}
	return ignoreDeleted(s.store.SaveStatusSummary(ctx, id, ss))
}

// transcriptTail is the last n characters of a rendered transcript, saying so when it cut.
func transcriptTail(rendered string, n int) string {
	if r := []rune(rendered); len(r) > n {
		return "[…earlier transcript left out…]\n" + string(r[len(r)-n:])
	}
	return rendered
}

func summaryPrompt(sess *session.Session, rendered string) string {
	rendered = transcriptTail(rendered, summaryPromptChars)
	var b strings.Builder
	fmt.Fprintf(&b, "Summarize where AI coding-agent session #%d (%q) stands, for a human skimming a dashboard.\n", sess.ID, sess.DisplayTitle())
	b.WriteString("In at most five short sentences: what it is working on, what it has done, what it is waiting for or stuck on. ")
	b.WriteString("Answer with the summary only; do not use any tool.\n")
	if sess.Goal != nil {
		goal := *sess.Goal
		if r := []rune(goal); len(r) > maxGoalInPrompt {
			goal = string(r[:maxGoalInPrompt]) + "…"
		}
		b.WriteString("\nIts goal: " + goal + "\n")
	}
	b.WriteString("\nThe end of its transcript:\n\n" + rendered)
	return b.String()
}

// inferTitle is the lifecycle effect: a session still under its placeholder title gets one
// inferred from its prompt.
func (s *Service) inferTitle(ctx context.Context, r effectRun) error {
	sess, err := s.store.GetSession(ctx, r.SessionID)
	if err != nil {
		return ignoreDeleted(err)
	}
	if !needsTitle(sess) {
		return nil
	}
	return s.queue.EnqueueInference(ctx, tasks.TypeInferTitle, r.SessionID)
}

func needsTitle(sess *session.Session) bool {
	return sess.Flag(session.MetaAutoGeneratedTitle) && sess.Prompt != nil && strings.TrimSpace(*sess.Prompt) != ""
}

// InferTitle is the inference task: ask sum for a title and set it, unless someone named the
// session meanwhile. A failed call leaves the placeholder (logged).
func (s *Service) InferTitle(ctx context.Context, id int64, sum Summarizer) error {
	sess, err := s.store.GetSession(ctx, id)
	if err != nil {
		return ignoreDeleted(err)
	}
	if !needsTitle(sess) {
		return nil
	}
	prompt := *sess.Prompt
	if r := []rune(prompt); len(r) > summaryPromptChars {
		prompt = string(r[:summaryPromptChars])
	}
	answer, err := sum.OneShot(ctx, OneShot{SessionID: id, Runtime: sess.AgentRuntime, Model: sess.Model(),
		Prompt: "Write a title of at most eight words for the AI coding-agent session whose request follows. Answer with the title only; do not use any tool.\n\n" + prompt})
	title := cleanTitle(answer)
	if err == nil && title == "" {
		err = errors.New("the model answered nothing")
	}
	if err != nil {
		s.log.Warn("title not inferred", "session_id", id, "err", err)
		return nil
	}
	_, err = s.update(ctx, id, func(u *session.Session) error {
		if needsTitle(u) {
			u.Title = &title
			delete(u.Metadata, session.MetaAutoGeneratedTitle)
		}
		return nil
	})
	return ignoreDeleted(err)
}

// cleanTitle is the answer's first line, unquoted and bounded.
func cleanTitle(answer string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(answer), "\n")
	line = strings.Trim(strings.TrimSpace(line), "\"'`*# ")
	if r := []rune(line); len(r) > maxInferredTitle {
		line = strings.TrimSpace(string(r[:maxInferredTitle-1])) + "…"
	}
	return line
}

// hasTranscript: the session ran and its transcript file is there.
func (s *Service) hasTranscript(sess *session.Session) bool {
	return session.BagString(sess.Metadata, session.MetaTranscriptPath) != "" && s.transcriptSize(sess.ID) > 0
}

// transcriptSize is the transcript file's length, 0 when there is none.
func (s *Service) transcriptSize(id int64) int64 {
	f, err := s.openTranscript(id)
	if err != nil {
		return 0
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0
	}
	return info.Size()
}

// ignoreDeleted: an inference about a session deleted meanwhile has nothing left to do.
func ignoreDeleted(err error) error {
	if errors.Is(err, graph.ErrNotFound) {
		return nil
	}
	return err
}
