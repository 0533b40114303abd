package orchestrator

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// The runner-bound actions a human or script takes on a session: pause, sleep, restart, fork,
// refresh, and reading the transcript. The runner itself notices pause, archive and restart
// through ownership: its monitor loop ends a turn it no longer owns.

// Pause halts a running session: needs_input with paused_by=user. The runner sees it within a
// tick and terminates the turn's process group. A message already queued is then drained, as
// after any pause.
func (s *Service) Pause(ctx context.Context, id int64) (*session.Session, error) {
	sess, err := s.transition(ctx, id, session.EventPause, "Cannot pause", func(u *session.Session) {
		u.RunningJobID = nil
		u.Metadata["paused_by"] = PausedByUser
	})
	if err != nil {
		return nil, err
	}
	s.timeline(ctx, sess.ID, graph.LogInfo, "Paused by hand; the running turn is being terminated")
	if n, err := s.store.CountPendingMessages(ctx, sess.ID); err == nil && n > 0 {
		if err := s.queue.EnqueueDrainMessages(ctx, sess.ID); err != nil {
			s.log.Warn("paused with queued messages but no drain was scheduled", "session_id", sess.ID, "err", err)
		}
	}
	return sess, nil
}

// Sleep sends an idle session to waiting now; a running one sleeps when its turn ends.
func (s *Service) Sleep(ctx context.Context, id int64) (*session.Session, error) {
	return s.store.UpdateSession(ctx, id, func(u *session.Session) error {
		if u.Status == session.StatusRunning {
			u.Metadata["pending_sleep"] = true
			return nil
		}
		return applyEvent(u, session.EventSleep, "Cannot sleep")
	})
}

// prePromptFailures failed before the agent ever saw its prompt, so a restart re-sends it.
var prePromptFailures = []string{"mcp_connection_failed", "oauth_required", FailureSpawn, FailureGitClone, FailureCloneValidation, FailureSecret}

// staleRetryKeys belong to the attempt a restart abandons (the original's STALE_RETRY_METADATA_KEYS
// that this rebuild writes); setupKeys are cleared too when the runtime never started, so the
// next run prepares the clone from scratch.
var (
	staleRetryKeys = []string{"failure_reason", "failure_message", "exit_status", "failure_detail", "unresolved_variables",
		"exception_class", "exception_message", "paused_by", "recovery_continue_attempts", "recovery_continue_abandoned", "pending_sleep"}
	setupKeys = []string{MetaClonePath, MetaWorkDir, "full_clone_path", MetaConfigPath, MetaRuntimeEnv, MetaProcessPID, MetaRuntimeStarted}
)

// Restart resumes a failed, idle or waiting session with the SYSTEM_RECOVERY nudge, or with
// its original prompt when it failed before the agent saw a prompt (restarting from scratch
// when the runtime never started).
func (s *Service) Restart(ctx context.Context, id int64) (*session.Session, error) {
	token := rand.Text()
	var h *handOff
	sess, err := s.store.UpdateSession(ctx, id, func(u *session.Session) error {
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
		u.Metadata[MetaNextTurnReason] = "restart"
		return s.handOff(u, nil, h, "Cannot restart")
	})
	if err != nil {
		return nil, err
	}
	return sess, s.dispatch(ctx, sess, h)
}

func restartPrompt(u *session.Session) (prompt string, fromScratch bool) {
	reason, _ := u.Metadata["failure_reason"].(string)
	started := u.Metadata[MetaRuntimeStarted] == true
	if started && !slices.Contains(prePromptFailures, reason) {
		return SystemRecoveryPrompt, false
	}
	return deref(u.Prompt, ""), !started
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
	lines, path, err := transcriptLines(src)
	if err != nil {
		return nil, invalid("Fork failed", err.Error())
	}
	if *messageIndex >= len(lines) {
		return nil, invalid("Fork failed", fmt.Sprintf("message_index %d is past the end of the transcript (%d messages)", *messageIndex, len(lines)))
	}
	created, err := s.Create(ctx, forkParams(src))
	if err != nil {
		return nil, err
	}
	fork := created.Session
	forkPath := filepath.Join(filepath.Dir(path), strconv.FormatInt(fork.ID, 10)+".jsonl")
	if err := os.WriteFile(forkPath, append(bytes.Join(lines[:*messageIndex+1], []byte("\n")), '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("fork session %d: copy transcript: %w", src.ID, err)
	}
	fork, err = s.store.UpdateSession(ctx, fork.ID, func(u *session.Session) error {
		u.Metadata["forked_from_session_id"], u.Metadata["forked_at_message_index"] = src.ID, *messageIndex
		u.Metadata[MetaTranscriptPath] = forkPath
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.timeline(ctx, src.ID, graph.LogInfo, fmt.Sprintf("Forked at message %d into session #%d", *messageIndex, fork.ID))
	return fork, nil
}

func forkParams(src *session.Session) CreateParams {
	title := "Fork of " + src.DisplayTitle()
	if len([]rune(title)) > session.MaxTitle {
		title = string([]rune(title)[:session.MaxTitle])
	}
	p := CreateParams{AgentRuntime: &src.AgentRuntime, GitRoot: &src.GitRoot, Branch: &src.Branch, Subdirectory: src.Subdirectory,
		Title: &title, Goal: src.Goal, MCPServers: &src.MCPServers, CatalogSkills: &src.CatalogSkills,
		CatalogHooks: &src.CatalogHooks, CatalogPlugins: &src.CatalogPlugins, Config: src.Config, Genesis: src.Genesis}
	if root, ok := src.Metadata["agent_root_key"].(string); ok && root != "" {
		p.AgentRoot = &root
	}
	return p
}

// transcriptLines reads a session's transcript file into its JSONL lines.
func transcriptLines(sess *session.Session) ([][]byte, string, error) {
	path, _ := sess.Metadata[MetaTranscriptPath].(string)
	if path == "" {
		return nil, "", fmt.Errorf("session #%d has no transcript yet (it never ran)", sess.ID)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, path, fmt.Errorf("session #%d's transcript cannot be read: %w", sess.ID, err)
	}
	var lines [][]byte
	for line := range bytes.SplitSeq(bytes.TrimRight(data, "\n"), []byte("\n")) {
		if len(line) > 0 {
			lines = append(lines, line)
		}
	}
	return lines, path, nil
}

// Refresh re-reads the session's transcript from disk and re-ingests its token usage (the
// ledger is idempotent on request id, so nothing is counted twice). It reports how many lines
// and ledger rows it read.
func (s *Service) Refresh(ctx context.Context, id int64) (*session.Session, string, error) {
	sess, err := s.store.GetSession(ctx, id)
	if err != nil {
		return nil, "", err
	}
	if _, ok := sess.Metadata[MetaTranscriptPath].(string); !ok {
		return nil, "", invalid("Cannot refresh", fmt.Sprintf("Session #%d has no transcript path: it never ran", sess.ID))
	}
	lines, _, err := transcriptLines(sess)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", &NotFoundError{Message: err.Error()}
	}
	if err != nil {
		return nil, "", err
	}
	var usages []transcript.Usage
	for i, line := range lines {
		if ev := transcript.Parse(sess.ID, i+1, line); ev.Usage != nil {
			usages = append(usages, *ev.Usage)
		}
	}
	if err := s.RecordUsage(ctx, sess, usages, s.now().UTC()); err != nil {
		return nil, "", err
	}
	return sess, fmt.Sprintf("Transcript re-read: %d messages, %d model requests in the ledger", len(lines), len(usages)), nil
}

// Transcript returns the session's raw transcript (JSONL); a session that never ran, or whose
// file is gone, is a NotFoundError.
func (s *Service) Transcript(ctx context.Context, id int64) ([]byte, error) {
	sess, err := s.store.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	path, _ := sess.Metadata[MetaTranscriptPath].(string)
	if path == "" {
		return nil, &NotFoundError{Message: fmt.Sprintf("Session #%d has no transcript: it never ran", sess.ID)}
	}
	data, err := os.ReadFile(path)
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
