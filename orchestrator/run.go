package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// The steps the session runner takes on a session it owns. Ownership is running_job_id: every
// step below re-checks it under the session's lock, so a run that was superseded (an interrupt
// handed the session to another job, a human paused or archived it) can never move the
// session again, whatever it is doing when it finds out.

// ErrNotOwner means the run no longer owns the session: another job does, or it left running.
var ErrNotOwner = errors.New("the run does not own the session")

// Failure reasons the runner records (metadata.failure_reason).
const (
	FailureGitClone        = "git_clone_failed"
	FailureCloneValidation = "clone_validation_failed"
	FailureSpawn           = "spawn_failed"
	FailureProcess         = "process_failed"
	FailureSecret          = "air_secret_unresolvable"
	FailureException       = "exception"
)

// ClaimRun makes taskID the owner of the session's turn: a waiting session it was queued for
// starts (waiting → running), a running one handed to it is taken over. Anything else — the
// session was handed to another job, paused, failed or archived meanwhile — is ErrNotOwner and
// the task stands down. The claimed session comes back with the turn's reason in
// metadata.next_turn_reason (removed from the stored record). A spot session's first start is
// asked of the spot gate first: held, it stays waiting for a retry task and the claim is
// ErrSpotHeld.
func (s *Service) ClaimRun(ctx context.Context, sessionID int64, taskID, prompt string) (*session.Session, error) {
	d, err := s.gateStart(ctx, sessionID, taskID)
	if err != nil {
		return nil, fmt.Errorf("ask the spot gate about session %d: %w", sessionID, err)
	}
	if d != nil && !d.Admit {
		if err := s.holdStart(ctx, sessionID, taskID, *d); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("claim session %d for %s: %w (%s)", sessionID, taskID, ErrSpotHeld, d.Reason)
	}
	var reason string
	sess, err := s.update(ctx, sessionID, func(u *session.Session) error {
		if !claimable(u, taskID) {
			return ErrNotOwner
		}
		if u.Status == session.StatusWaiting {
			if err := s.applyEvent(u, session.EventStart, "Cannot start"); err != nil {
				return err
			}
			clearHold(u)
		}
		u.JobID, u.RunningJobID = &taskID, &taskID
		reason = session.BagString(u.Metadata, session.MetaNextTurnReason)
		u.Metadata[session.MetaJobStartedAt] = s.now().UTC().Format(time.RFC3339Nano)
		u.Metadata[session.MetaActivePrompt] = prompt
		u.Metadata[session.MetaTurnCount] = session.BagInt(u.Metadata, session.MetaTurnCount) + 1
		// The interrupt flag was for the run this one replaces; it has been seen or is moot.
		delete(u.Metadata, session.MetaInterruptRequestedAt)
		delete(u.Metadata, session.MetaNextTurnReason)
		delete(u.Metadata, session.MetaPendingDispatch) // delivered: this run has the prompt
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim session %d for %s: %w", sessionID, taskID, err)
	}
	if reason != "" {
		sess.Metadata[session.MetaNextTurnReason] = reason
	}
	return sess, nil
}

// claimable: the task already owns the session, or the session waits for its first run and no
// other job owns it (create records job_id only after queueing, so a fast worker may get there
// first).
func claimable(u *session.Session, taskID string) bool {
	if u.RunningJobID != nil {
		return *u.RunningJobID == taskID && (u.Status == session.StatusRunning || u.Status == session.StatusWaiting)
	}
	return u.Status == session.StatusWaiting && (u.JobID == nil || *u.JobID == taskID)
}

// Owns reports whether taskID still owns the session's running turn.
func Owns(u *session.Session, taskID string) bool {
	return u.Status == session.StatusRunning && u.RunningJobID != nil && *u.RunningJobID == taskID
}

// updateOwned applies mutate only while taskID owns the session's running turn.
func (s *Service) updateOwned(ctx context.Context, sessionID int64, taskID string, mutate func(*session.Session) error) (*session.Session, error) {
	return s.update(ctx, sessionID, func(u *session.Session) error {
		if !Owns(u, taskID) {
			return ErrNotOwner
		}
		return mutate(u)
	})
}

// Setup is what preparing a turn produced.
type Setup struct {
	ClonePath, WorkDir, ConfigPath, TranscriptPath string
	Injected                                       []string          // custom_metadata.injected_mcp_servers, with ConfigPath
	RuntimeEnv                                     map[string]string // process environment the config asks for, with ConfigPath
	RuntimeSessionID                               string            // a conversation id minted for the runtime ("" keeps the stored one)
}

// RecordSetup stores where the turn runs: clone, working directory, MCP config, transcript.
func (s *Service) RecordSetup(ctx context.Context, sessionID int64, taskID string, st Setup) (*session.Session, error) {
	return s.updateOwned(ctx, sessionID, taskID, func(u *session.Session) error {
		u.Metadata[session.MetaClonePath], u.Metadata[session.MetaWorkDir] = st.ClonePath, st.WorkDir
		u.Metadata[session.MetaTranscriptPath] = st.TranscriptPath
		if st.ConfigPath != "" {
			u.Metadata[session.MetaConfigPath] = st.ConfigPath
			u.Metadata[session.MetaRuntimeEnv] = st.RuntimeEnv
			u.CustomMetadata[session.CustomInjectedMCPServers] = anyList(st.Injected)
		}
		if st.RuntimeSessionID != "" && u.RuntimeSessionID == nil {
			rid := st.RuntimeSessionID
			u.RuntimeSessionID = &rid
		}
		return nil
	})
}

// RecordSpawn stores the agent process (its pid is its process group) and that the runtime
// has started, so later turns resume its conversation.
func (s *Service) RecordSpawn(ctx context.Context, sessionID int64, taskID string, pid int, host string) error {
	_, err := s.updateOwned(ctx, sessionID, taskID, func(u *session.Session) error {
		u.Metadata[session.MetaProcessPID], u.Metadata[session.MetaProcessHost] = pid, host
		u.Metadata[session.MetaRuntimeStarted] = true
		return nil
	})
	return err
}

// RecordRuntimeSessionID stores a conversation id the runtime minted itself (Codex).
func (s *Service) RecordRuntimeSessionID(ctx context.Context, sessionID int64, taskID, id string) error {
	_, err := s.updateOwned(ctx, sessionID, taskID, func(u *session.Session) error {
		u.RuntimeSessionID = &id
		return nil
	})
	return err
}

// Failure is why a run failed: the reason and the details stored beside it in metadata.
type Failure struct {
	Reason  string
	Message string         // one readable sentence, stored as failure_message
	Details map[string]any // e.g. exit_status, unresolved_variables
}

func (f Failure) Error() string { return f.Reason + ": " + f.Message }

// FailRun moves the session it owns to failed with the reason, and writes it to the timeline.
func (s *Service) FailRun(ctx context.Context, sessionID int64, taskID string, f Failure) (*session.Session, error) {
	sess, err := s.updateOwned(ctx, sessionID, taskID, func(u *session.Session) error {
		if err := s.applyEvent(u, session.EventFail, "Cannot fail"); err != nil {
			return err
		}
		u.RunningJobID = nil
		delete(u.Metadata, session.MetaProcessPID)
		u.Metadata[session.MetaFailureReason], u.Metadata[session.MetaFailureMessage] = f.Reason, f.Message
		maps.Copy(u.Metadata, f.Details)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.timeline(ctx, sessionID, session.LogError, fmt.Sprintf("Session failed (%s): %s", f.Reason, f.Message))
	return sess, nil
}

// HandBack parks a session whose worker is shutting down mid-turn: needs_input with
// paused_by=recovery, which the orphan sweep continues on whichever worker runs next.
// undelivered is the turn's prompt when the agent never received it (the shutdown came before
// the process started), so the recovery delivers it instead of a nudge.
func (s *Service) HandBack(ctx context.Context, sessionID int64, taskID, undelivered string) error {
	_, err := s.updateOwned(ctx, sessionID, taskID, func(u *session.Session) error {
		if undelivered != "" {
			u.Metadata[session.MetaUndeliveredPrompt] = undelivered
		}
		return s.park(u)
	})
	if err == nil {
		s.timeline(ctx, sessionID, session.LogWarning, "The worker running this session shut down mid-turn; it is parked for recovery")
	}
	return err
}

// park is the recovery parking shared by hand-back and the orphan sweep.
func (s *Service) park(u *session.Session) error {
	if err := s.applyEvent(u, session.EventPause, "Cannot park"); err != nil {
		return err
	}
	u.RunningJobID = nil
	u.Metadata[session.MetaPausedBy] = PausedByRecovery
	delete(u.Metadata, session.MetaProcessPID)
	return nil
}

// RecordUsage adds model requests read from the session's transcript to the token ledger. A
// request the transcript does not time is recorded at `at`, when Zimmer read it.
func (s *Service) RecordUsage(ctx context.Context, sess *session.Session, usages []transcript.Usage, at time.Time) error {
	_, err := s.recordUsage(ctx, sess, usages, at)
	return err
}

// recordUsage is RecordUsage reporting how many of the requests the session owns.
func (s *Service) recordUsage(ctx context.Context, sess *session.Session, usages []transcript.Usage, at time.Time) (int, error) {
	if len(usages) == 0 {
		return 0, nil
	}
	rows := make([]session.TokenUsage, len(usages))
	model := sess.Model()
	root := sess.AgentRoot()
	path := s.transcriptPath(sess.ID)
	for i, u := range usages {
		rows[i] = session.TokenUsage{RequestID: u.RequestID, Model: u.Model, AgentRuntime: sess.AgentRuntime, AgentRoot: root,
			RuntimeSessionID: deref(sess.RuntimeSessionID, ""), TranscriptPath: path, ServiceTier: u.ServiceTier,
			CalledAt: at, TokenCounts: u.TokenCounts}
		if !u.At.IsZero() {
			rows[i].CalledAt, rows[i].Stamped = u.At, true
		}
		if rows[i].Model == "" {
			rows[i].Model = model // Codex reports usage without the model; the session's is the one it ran
		}
	}
	return s.store.RecordTokenUsage(ctx, sess.ID, rows)
}

// TokenUsage reads a session's ledger.
func (s *Service) TokenUsage(ctx context.Context, sessionID int64) ([]session.TokenUsage, error) {
	return s.store.SessionTokenUsage(ctx, sessionID)
}

// maxTimeline bounds one timeline read.
const maxTimeline = 10_000

// Timeline is a session's log, oldest first (at most maxTimeline entries).
func (s *Service) Timeline(ctx context.Context, sessionID int64) ([]session.LogEntry, error) {
	return s.store.Logs(ctx, sessionID, "", 0, maxTimeline)
}

// AppendTimeline writes one best-effort line to the session's log.
func (s *Service) AppendTimeline(ctx context.Context, sessionID int64, level, line string) {
	s.timeline(ctx, sessionID, level, line)
}

// timeline writes one best-effort line to the session's log.
func (s *Service) timeline(ctx context.Context, sessionID int64, level, line string) {
	if _, err := s.store.AppendLog(ctx, level, line, sessionID); err != nil {
		s.log.Warn("timeline line not written", "session_id", sessionID, "line", line, "err", err)
	}
}

func anyList(list []string) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = v
	}
	return out
}
