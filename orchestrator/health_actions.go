package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/agentproc"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
)

// The health actions every surface shares (action_health, POST /api/v1/health/…). The three
// that change sessions or processes run at most once per HealthCooldown per action and caller,
// recorded in Redis so switching surface buys nothing; when Redis cannot enforce that they do
// not run at all. Queue recovery mode and the queued-job levers are never throttled: the way
// out of a halt has to work on the first try.

// HealthCooldown is the least time between two runs of one throttled action by one caller.
const HealthCooldown = 30 * time.Second

// The throttled actions.
const (
	ActionCleanupProcesses = "cleanup_processes"
	ActionRetrySessions    = "retry_sessions"
	ActionArchiveOld       = "archive_old"
)

// The queue levers' action names (the throttled ones are above).
const (
	ActionEnterQueueRecovery   = "enter_queue_recovery_mode"
	ActionExitQueueRecovery    = "exit_queue_recovery_mode"
	ActionPreviewQueuedJobs    = "preview_queued_jobs"
	ActionDiscardQueuedJobs    = "discard_queued_jobs"
	ActionRescheduleQueuedJobs = "reschedule_queued_jobs"
)

// HealthActionObserver counts health actions by outcome; metrics implement it (optional on
// Observer). Counted here, where every surface's action runs, so REST and MCP add up.
type HealthActionObserver interface {
	ObserveHealthAction(action, outcome string)
}

// counted reports action's outcome to the observer and returns err unchanged.
func (s *Service) counted(action string, err error) error {
	o, ok := s.obs.(HealthActionObserver)
	if !ok {
		return err
	}
	var limited *RateLimitedError
	var invalid *ValidationError
	outcome := "ok"
	switch {
	case err == nil:
	case errors.As(err, &limited):
		outcome = "rate_limited"
	case errors.Is(err, ErrRateLimitUnavailable), errors.Is(err, ErrQueueRecoveryUnavailable):
		outcome = "unavailable"
	case errors.As(err, &invalid):
		outcome = "refused"
	default:
		outcome = "error"
	}
	o.ObserveHealthAction(action, outcome)
	return err
}

// RateLimitedError refuses a throttled action run again within the cooldown.
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("rate limited: retry in %s", e.RetryAfter.Round(time.Second))
}

// ErrRateLimitUnavailable refuses a throttled action when Redis cannot enforce the cooldown.
var ErrRateLimitUnavailable = errors.New("rate limiting unavailable")

// ErrQueueRecoveryUnavailable means Redis could not record or apply queue recovery mode.
var ErrQueueRecoveryUnavailable = tasks.ErrRecoveryUnavailable

// throttled runs action under the caller's cooldown; a run that fails does not count.
func (s *Service) throttled(ctx context.Context, action string, run func() error) error {
	caller := callerOf(ctx)
	ok, left, err := s.queue.TakeCooldown(ctx, action, caller, HealthCooldown)
	if err != nil {
		s.log.Warn("health action refused: the cooldown cannot be enforced", "action", action, "err", err)
		return fmt.Errorf("%w: %v", ErrRateLimitUnavailable, err)
	}
	if !ok {
		return &RateLimitedError{RetryAfter: left}
	}
	if err := run(); err != nil {
		if rerr := s.queue.ReleaseCooldown(context.WithoutCancel(ctx), action, caller); rerr != nil {
			s.log.Warn("health action failed and its cooldown stays", "action", action, "err", rerr)
		}
		return err
	}
	return nil
}

// SessionProblem is a session an action could not act on, and why.
type SessionProblem struct {
	SessionID int64  `json:"session_id"`
	Reason    string `json:"reason"`
}

// PIDProblem is an agent process cleanup could not end.
type PIDProblem struct {
	PID       int    `json:"pid"`
	SessionID int64  `json:"session_id"`
	Reason    string `json:"reason"`
}

// ProcessCleanup is what cleanup_processes did.
type ProcessCleanup struct {
	Host        string       `json:"host"`
	Terminated  []int        `json:"terminated"`
	Failed      []PIDProblem `json:"failed"`
	AlreadyDead []int        `json:"already_dead"`
}

// maxCleanupPerCall bounds the sessions one cleanup looks at; the next call takes the rest.
const maxCleanupPerCall = 200

// cleanupGrace is how long an agent has between SIGTERM and SIGKILL.
const cleanupGrace = 5 * time.Second

// CleanupProcesses ends the agent processes on this host whose session no longer runs. A
// session's recorded pid is released under its lock first, and only while the session is still
// not running with that pid, so a pid whose session runs is never signalled; a pid that is
// gone, or now belongs to a process outside the session's workspace, is not signalled either.
func (s *Service) CleanupProcesses(ctx context.Context) (ProcessCleanup, error) {
	out := ProcessCleanup{Host: s.host, Terminated: []int{}, Failed: []PIDProblem{}, AlreadyDead: []int{}}
	err := s.throttled(ctx, ActionCleanupProcesses, func() error {
		left, err := s.store.LeftoverProcesses(ctx, s.host, s.fleetScope, maxCleanupPerCall)
		if err != nil {
			return err
		}
		for _, sess := range left {
			pid := session.BagInt(sess.Metadata, session.MetaProcessPID)
			if err := s.releaseProcess(ctx, sess.ID, pid); err != nil {
				if !errors.Is(err, ErrNotOwner) {
					out.Failed = append(out.Failed, PIDProblem{PID: pid, SessionID: sess.ID, Reason: err.Error()})
				}
				continue
			}
			switch {
			case !agentproc.Alive(pid) || !agentproc.OwnedBy(pid, agentproc.WorkspaceRoot(s.dataDir, sess.ID)):
				out.AlreadyDead = append(out.AlreadyDead, pid)
			case agentproc.Terminate(pid, cleanupGrace):
				out.Terminated = append(out.Terminated, pid)
				s.timeline(ctx, sess.ID, session.LogWarning, fmt.Sprintf("Health cleanup ended agent process %d, left running after the session stopped", pid))
			default:
				out.Failed = append(out.Failed, PIDProblem{PID: pid, SessionID: sess.ID, Reason: "still alive after SIGKILL"})
			}
		}
		return nil
	})
	return out, s.counted(ActionCleanupProcesses, err)
}

// releaseProcess drops a session's record of pid, unless the session runs again or records
// another process now (ErrNotOwner).
func (s *Service) releaseProcess(ctx context.Context, id int64, pid int) error {
	_, err := s.update(ctx, id, func(u *session.Session) error {
		if u.Status == session.StatusRunning || session.BagInt(u.Metadata, session.MetaProcessPID) != pid ||
			session.BagString(u.Metadata, session.MetaProcessHost) != s.host {
			return ErrNotOwner
		}
		delete(u.Metadata, session.MetaProcessPID)
		delete(u.Metadata, session.MetaProcessHost)
		return nil
	})
	return err
}

// SessionRetry is what retry_sessions did.
type SessionRetry struct {
	Retried []int64          `json:"retried"`
	Failed  []SessionProblem `json:"failed"`
	Skipped []SessionProblem `json:"skipped"`
}

// Bounds of retry_sessions: the named sessions one call accepts, and the recent failures it
// retries when none are named (failed within retryWindow, outside frozen categories).
const (
	maxRetryIDs     = 50
	defaultRetries  = 10
	retryWindow     = 24 * time.Hour
	retryNotFailed  = "not failed (it is %s); only a failed session is retried"
	retryNotFoundAs = "Session not found"
)

// RetrySessions resumes failed sessions the way a restart does (the recovery nudge, or the
// original prompt when the agent never started): the named ones, or the recent failures.
func (s *Service) RetrySessions(ctx context.Context, ids []int64) (SessionRetry, error) {
	out := SessionRetry{Retried: []int64{}, Failed: []SessionProblem{}, Skipped: []SessionProblem{}}
	if len(ids) > maxRetryIDs {
		return out, s.counted(ActionRetrySessions, invalid("Invalid session_ids", fmt.Sprintf("at most %d sessions per call (got %d)", maxRetryIDs, len(ids))))
	}
	err := s.throttled(ctx, ActionRetrySessions, func() error {
		if len(ids) == 0 {
			recent, err := s.store.RecentFailedSessions(ctx, s.now().Add(-retryWindow), s.fleetScope, defaultRetries)
			if err != nil {
				return err
			}
			for _, sess := range recent {
				ids = append(ids, sess.ID)
			}
		}
		for _, id := range ids {
			sess, err := s.store.GetSession(ctx, id)
			switch {
			case errors.Is(err, ErrNotFound):
				out.Failed = append(out.Failed, SessionProblem{id, retryNotFoundAs})
				continue
			case err != nil:
				return err
			case sess.Status != session.StatusFailed:
				out.Skipped = append(out.Skipped, SessionProblem{id, fmt.Sprintf(retryNotFailed, sess.Status)})
				continue
			}
			if _, err := s.Restart(ctx, id); err != nil {
				out.Failed = append(out.Failed, SessionProblem{id, problemText(err)})
				continue
			}
			out.Retried = append(out.Retried, id)
			s.timeline(ctx, id, session.LogInfo, "Retried by a health action")
		}
		return nil
	})
	return out, s.counted(ActionRetrySessions, err)
}

// problemText is an operation's refusal as one sentence for a result list.
func problemText(err error) string {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return strings.Join(ve.Messages, ", ")
	}
	return err.Error()
}

// OldArchive is what archive_old did. More: the call reached its bound and untouched sessions
// remain (run it again after the cooldown).
type OldArchive struct {
	Days     int              `json:"days"`
	Archived []int64          `json:"archived"`
	Failed   []SessionProblem `json:"failed"`
	More     bool             `json:"more"`
}

// maxArchivePerCall bounds the sessions one archive_old archives.
const maxArchivePerCall = 500

// ClampArchiveDays is archive_old's age: 1..365 days, 7 when not given (0).
func ClampArchiveDays(days int) int {
	if days == 0 {
		return 7
	}
	return min(max(days, 1), 365)
}

// ArchiveOld archives every session outside the trash untouched for days (clamped), running
// ones and ones with queued messages included (those are retired, as a forced archive does).
func (s *Service) ArchiveOld(ctx context.Context, days int) (OldArchive, error) {
	days = ClampArchiveDays(days)
	out := OldArchive{Days: days, Archived: []int64{}, Failed: []SessionProblem{}}
	err := s.throttled(ctx, ActionArchiveOld, func() error {
		old, err := s.store.UntouchedSessions(ctx, s.now().Add(-time.Duration(days)*24*time.Hour), s.fleetScope, maxArchivePerCall)
		if err != nil {
			return err
		}
		out.More = len(old) == maxArchivePerCall
		actor := fmt.Sprintf("Zimmer's stale-session sweep (untouched for %d days)", days)
		for _, sess := range old {
			if _, err := s.Archive(ctx, sess.ID, ArchiveParams{Force: true, Actor: actor}); err != nil {
				out.Failed = append(out.Failed, SessionProblem{sess.ID, problemText(err)})
				continue
			}
			out.Archived = append(out.Archived, sess.ID)
		}
		return nil
	})
	return out, s.counted(ActionArchiveOld, err)
}

// Queue recovery mode's window: 60 minutes unless told, 5 to 240.
const (
	DefaultRecoveryMinutes = 60
	minRecoveryMinutes     = 5
	maxRecoveryMinutes     = 240
)

// EnterQueueRecovery halts every lane but agents for ttlMinutes (clamped; 0 is the default).
// Entering again while it is on extends it from now.
func (s *Service) EnterQueueRecovery(ctx context.Context, reason string, ttlMinutes int, by string) (RecoveryReport, error) {
	if ttlMinutes == 0 {
		ttlMinutes = DefaultRecoveryMinutes
	}
	ttl := time.Duration(min(max(ttlMinutes, minRecoveryMinutes), maxRecoveryMinutes)) * time.Minute
	st, err := s.queue.EnterRecovery(ctx, s.now(), ttl, strings.TrimSpace(reason), by)
	if err != nil {
		return recoveryReport(st, err), s.counted(ActionEnterQueueRecovery, err)
	}
	s.log.Warn("queue recovery mode on", "halted", tasks.HaltedLanes(), "expires_at", st.Mode.ExpiresAt, "reason", st.Mode.Reason, "by", st.Mode.EnteredBy)
	return recoveryReport(st, nil), s.counted(ActionEnterQueueRecovery, nil)
}

// ExitQueueRecovery resumes the halted lanes; wasOn reports whether a halt was in force.
func (s *Service) ExitQueueRecovery(ctx context.Context) (report RecoveryReport, wasOn bool, err error) {
	st, wasOn, err := s.queue.ExitRecovery(ctx, s.now())
	if err != nil {
		return recoveryReport(st, err), wasOn, s.counted(ActionExitQueueRecovery, err)
	}
	if wasOn {
		s.log.Warn("queue recovery mode off: lanes resumed", "lanes", tasks.HaltedLanes())
	}
	return recoveryReport(st, nil), wasOn, s.counted(ActionExitQueueRecovery, nil)
}

// PreviewQueuedJobs counts what a maintenance scope selects now.
func (s *Service) PreviewQueuedJobs(sc tasks.JobScope) (tasks.JobMatch, error) {
	m, err := s.queue.MatchQueued(sc)
	return m, s.counted(ActionPreviewQueuedJobs, refusal(err))
}

// DiscardQueuedJobs deletes the tasks a scope selects when expected is exactly the count a
// preview gives now; otherwise nothing is deleted. Not recoverable.
func (s *Service) DiscardQueuedJobs(ctx context.Context, sc tasks.JobScope, expected int) (tasks.JobResult, error) {
	r, err := s.queue.DiscardQueued(sc, expected)
	if err == nil {
		s.log.Warn("queued jobs discarded", "job_class", sc.Type, "queue_name", sc.Lane, "discarded", r.Affected,
			"by_job_class", r.Breakdown(), "skipped", len(r.Skipped), "caller", callerOf(ctx))
	}
	return r, s.counted(ActionDiscardQueuedJobs, refusal(err))
}

// MaxRescheduleMinutes is the furthest a reschedule moves tasks: seven days.
const MaxRescheduleMinutes = 7 * 24 * 60

// RescheduleQueuedJobs moves the tasks a scope selects to run delayMinutes from now (clamped
// 0..7 days), under the same checks as DiscardQueuedJobs; it returns when they now run.
func (s *Service) RescheduleQueuedJobs(ctx context.Context, sc tasks.JobScope, expected, delayMinutes int) (tasks.JobResult, time.Time, error) {
	at := s.now().Add(time.Duration(min(max(delayMinutes, 0), MaxRescheduleMinutes)) * time.Minute).UTC()
	r, err := s.queue.RescheduleQueued(ctx, sc, expected, at)
	if err == nil {
		s.log.Warn("queued jobs rescheduled", "job_class", sc.Type, "queue_name", sc.Lane, "rescheduled", r.Affected,
			"scheduled_at", at, "by_job_class", r.Breakdown(), "skipped", len(r.Skipped), "caller", callerOf(ctx))
	}
	return r, at, s.counted(ActionRescheduleQueuedJobs, refusal(err))
}

// refusal turns the queue's refusals into the operations' validation error.
func refusal(err error) error {
	var jr *tasks.JobsRefused
	if errors.As(err, &jr) {
		return invalid("Refused", jr.Error())
	}
	return err
}
