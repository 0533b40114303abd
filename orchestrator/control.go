package orchestrator

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// The runner-bound actions a human or script takes on a session: pause, sleep, restart, fork,
// refresh, and reading the transcript. The runner itself notices pause, archive and restart
// through ownership: its monitor loop ends a turn it no longer owns.

// Pause halts a running session: needs_input with paused_by=user. The runner sees it within a
// tick and terminates the turn's process group. A message already queued is then drained, as
// after any pause (the pause's drain effect).
func (s *Service) Pause(ctx context.Context, id int64) (*session.Session, error) {
	sess, err := s.transition(ctx, id, session.EventPause, "Cannot pause", func(u *session.Session) {
		u.RunningJobID = nil
		u.Metadata[session.MetaPausedBy] = PausedByUser
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := afterCommit(ctx)
	defer cancel()
	s.timeline(ctx, sess.ID, session.LogInfo, "Paused by hand; the running turn is being terminated")
	return sess, nil
}

// Sleep sends an idle session to waiting now; a running one sleeps when its turn ends.
func (s *Service) Sleep(ctx context.Context, id int64) (*session.Session, error) {
	return s.update(ctx, id, func(u *session.Session) error {
		if u.Status == session.StatusRunning {
			u.Metadata[session.MetaPendingSleep] = true
			return nil
		}
		return s.applyEvent(u, session.EventSleep, "Cannot sleep")
	})
}

// prePromptFailures failed before the agent ever saw its prompt, so a restart re-sends it.
var prePromptFailures = []string{"mcp_connection_failed", "oauth_required", FailureSpawn, FailureGitClone, FailureCloneValidation, FailureSecret}

// staleRetryKeys belong to the attempt a restart abandons (the original's STALE_RETRY_METADATA_KEYS
// that this rebuild writes); setupKeys are cleared too when the runtime never started, so the
// next run prepares the clone from scratch.
var (
	staleRetryKeys = []string{session.MetaFailureReason, session.MetaFailureMessage, session.MetaExitStatus, session.MetaFailureDetail, session.MetaUnresolvedVariables,
		session.MetaRefusedVariables, session.MetaExceptionClass, session.MetaExceptionMessage, session.MetaPausedBy, session.MetaRecoveryContinueAttempts, session.MetaRecoveryContinueAbandoned, session.MetaPendingSleep, session.MetaTrouble, session.MetaTroubleRetries, session.MetaCompactContinuation, session.MetaOAuthRequiredServers}
	setupKeys = []string{session.MetaClonePath, session.MetaWorkDir, session.MetaFullClonePath, session.MetaConfigPath, session.MetaRuntimeEnv, session.MetaProcessPID, session.MetaRuntimeStarted}
)

// Restart resumes a failed, idle or waiting session with the SYSTEM_RECOVERY nudge, or with
// its original prompt when it failed before the agent saw a prompt (restarting from scratch
// when the runtime never started).
func (s *Service) Restart(ctx context.Context, id int64) (*session.Session, error) {
	token := rand.Text()
	var h *handOff
	sess, err := s.update(ctx, id, func(u *session.Session) error {
		h = nil
		if u.Status == session.StatusRunning || u.Status == session.StatusArchived {
			return invalid("Cannot restart", fmt.Sprintf("Session #%d is %s; only a failed, needs_input or waiting session can be restarted", u.ID, u.Status))
		}
		prompt, fromScratch := restartPrompt(u)
		if prompt == "" {
			return invalid("Cannot restart", fmt.Sprintf("Session #%d never started and has no prompt to start it with", u.ID))
		}
		dropKeys(u.Metadata, staleRetryKeys)
		if fromScratch {
			dropKeys(u.Metadata, setupKeys)
		}
		h = newHandOff(u, "restart-"+token, prompt)
		u.Metadata[session.MetaNextTurnReason] = "restart"
		return s.handOff(u, nil, nil, h, "Cannot restart")
	})
	if err != nil {
		return nil, err
	}
	_ = s.dispatch(ctx, sess.ID, h) // the restart is durable: the sweep queues a job not queued now
	// A restart takes the session over: the wakes it slept on end.
	if _, err := s.CancelWakes(ctx, sess.ID); err != nil {
		s.log.Warn("restarted, but its wakes were not cancelled", "session_id", sess.ID, "err", err)
	}
	return sess, nil
}

func restartPrompt(u *session.Session) (prompt string, fromScratch bool) {
	reason := session.BagString(u.Metadata, session.MetaFailureReason)
	started := u.Flag(session.MetaRuntimeStarted)
	if started && !slices.Contains(prePromptFailures, reason) {
		return SystemRecoveryPrompt, false
	}
	// The turn that failed never reached the agent: send its prompt (a follow-up's, not only
	// the first).
	return cmp.Or(session.BagString(u.Metadata, session.MetaActivePrompt), deref(u.Prompt, "")), !started
}

func dropKeys(m map[string]any, keys []string) {
	for _, k := range keys {
		delete(m, k)
	}
}

// Fork makes a new session from this one's settings and the first messageIndex+1 lines of its
// transcript (metadata.forked_from_session_id, forked_at_message_index). The fork waits with no
// prompt: the runtime's own conversation state lives outside Zimmer, so the fork's first
// follow-up starts a fresh conversation beside the copied record.
func (s *Service) Fork(ctx context.Context, id int64, messageIndex *int) (*session.Session, error) {
	if messageIndex == nil || *messageIndex < 0 {
		return nil, invalid("Validation failed", "message_index is required (a transcript line index, 0 or greater)")
	}
	src, err := s.store.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	head, err := s.transcriptHead(src, *messageIndex+1)
	if err != nil {
		return nil, invalid("Fork failed", err.Error())
	}
	created, err := s.Create(ctx, forkParams(src))
	if err != nil {
		return nil, err
	}
	fork := created.Session
	forkPath := s.transcriptPath(fork.ID)
	if err := writePrivate(forkPath, head); err != nil {
		return nil, fmt.Errorf("fork session %d: copy transcript: %w", src.ID, err)
	}
	fork, err = s.update(ctx, fork.ID, func(u *session.Session) error {
		u.Metadata[session.MetaForkedFromSessionID], u.Metadata[session.MetaForkedAtMessageIndex] = src.ID, *messageIndex
		u.Metadata[session.MetaTranscriptPath] = forkPath
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.timeline(ctx, src.ID, session.LogInfo, fmt.Sprintf("Forked at message %d into session #%d", *messageIndex, fork.ID))
	return fork, nil
}

// writePrivate creates a transcript 0600, never through a link.
func writePrivate(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// clipTitle cuts a title Zimmer composes to the longest a session takes.
func clipTitle(title string) string {
	if r := []rune(title); len(r) > session.MaxTitle {
		return string(r[:session.MaxTitle])
	}
	return title
}

func forkParams(src *session.Session) CreateParams {
	title := clipTitle("Fork of " + src.DisplayTitle())
	p := CreateParams{AgentRuntime: &src.AgentRuntime, GitRoot: &src.GitRoot, Branch: &src.Branch, Subdirectory: src.Subdirectory,
		Title: &title, Goal: src.Goal, MCPServers: &src.MCPServers, CatalogSkills: &src.CatalogSkills,
		CatalogHooks: &src.CatalogHooks, CatalogPlugins: &src.CatalogPlugins, Config: src.Config, Genesis: src.Genesis}
	if root := src.AgentRoot(); root != "" {
		p.AgentRoot = &root
	}
	return p
}

// maxTranscriptWindow is the most of a transcript one read returns (its end); maxForkCopy
// bounds what a fork copies.
const (
	maxTranscriptWindow = 8 << 20
	maxForkCopy         = 64 << 20
)

// transcriptPath is where a session's transcript is, derived from ZIMMER_DATA_DIR and its id:
// the stored metadata.transcript_path is a record for humans and is never read back.
func (s *Service) transcriptPath(id int64) string { return transcript.Path(s.dataDir, id) }

// openTranscript opens a session's transcript for reading, never through a link.
func (s *Service) openTranscript(id int64) (*os.File, error) {
	f, err := os.OpenFile(s.transcriptPath(id), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("session #%d's transcript cannot be read: %w", id, err)
	}
	return f, nil
}

// eachLine calls fn with every non-empty line of a session's transcript, one at a time, until fn
// says stop; a line longer than transcript.MaxLine (the runner never writes one) is passed cut.
func (s *Service) eachLine(sess *session.Session, fn func(line []byte) (more bool)) error {
	f, err := s.openTranscript(sess.ID)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), transcript.MaxLine+cutSlack)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 && !fn(sc.Bytes()) {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("session #%d's transcript cannot be read: %w", sess.ID, err)
	}
	return nil
}

// cutSlack is room above transcript.MaxLine for the line the runner writes in place of a cut one.
const cutSlack = 64 << 10

// transcriptHead is the transcript's first n lines, as a fork copies them.
func (s *Service) transcriptHead(sess *session.Session, n int) ([]byte, error) {
	var out []byte
	count := 0
	var tooBig bool
	err := s.eachLine(sess, func(line []byte) bool {
		if len(out)+len(line) >= maxForkCopy {
			tooBig = true
			return false
		}
		out = append(append(out, line...), '\n')
		count++
		return count < n
	})
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("session #%d has no transcript yet (it never ran)", sess.ID)
	case err != nil:
		return nil, err
	case tooBig:
		return nil, fmt.Errorf("the first %d messages of session #%d's transcript exceed %d MiB; fork at an earlier message", n, sess.ID, maxForkCopy>>20)
	case count < n:
		return nil, fmt.Errorf("message_index %d is past the end of the transcript (%d messages)", n-1, count)
	}
	return out, nil
}

// transcriptWindow is the end of a session's transcript, at most window bytes from a line
// boundary on; when the file is longer a transcript.Cut line first says how much is left out.
func (s *Service) transcriptWindow(sess *session.Session, window int64) (data []byte, cut bool, err error) {
	data, _, cut, err = s.transcriptFrom(sess.ID, 0, window)
	return data, cut, err
}

// Refresh re-reads the session's transcript from disk and re-ingests its token usage (the
// ledger is idempotent on request id, so nothing is counted twice). It reports how many lines
// and ledger rows it read.
func (s *Service) Refresh(ctx context.Context, id int64) (*session.Session, string, error) {
	sess, err := s.store.GetSession(ctx, id)
	if err != nil {
		return nil, "", err
	}
	if _, ok := sess.Metadata[session.MetaTranscriptPath].(string); !ok {
		return nil, "", invalid("Cannot refresh", fmt.Sprintf("Session #%d has no transcript path: it never ran", sess.ID))
	}
	usages, lines, err := s.transcriptUsage(sess)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", &NotFoundError{Message: err.Error()}
	}
	if err != nil {
		return nil, "", err
	}
	if err := s.RecordUsage(ctx, sess, usages, s.now().UTC()); err != nil {
		return nil, "", err
	}
	return sess, fmt.Sprintf("Transcript re-read: %d messages, %d model requests in the ledger", lines, len(usages)), nil
}

// Transcript returns the session's raw transcript (JSONL): its last 8 MiB at most, behind a
// zimmer_cut line saying how much came before when it is longer. A session that never ran, or
// whose file is gone, is a NotFoundError.
func (s *Service) Transcript(ctx context.Context, id int64) ([]byte, error) {
	sess, err := s.store.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	if path := session.BagString(sess.Metadata, session.MetaTranscriptPath); path == "" {
		return nil, &NotFoundError{Message: fmt.Sprintf("Session #%d has no transcript: it never ran", sess.ID)}
	}
	data, _, err := s.transcriptWindow(sess, maxTranscriptWindow)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &NotFoundError{Message: fmt.Sprintf("Session #%d's transcript file is gone", sess.ID)}
	}
	if err != nil {
		return nil, fmt.Errorf("read transcript of session %d: %w", sess.ID, err)
	}
	return data, nil
}

// RenderTranscript is the transcript as readable text.
func (s *Service) RenderTranscript(ctx context.Context, id int64) (string, error) {
	data, err := s.Transcript(ctx, id)
	if err != nil {
		return "", err
	}
	return transcript.Render(data), nil
}
