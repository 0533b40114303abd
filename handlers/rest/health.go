package rest

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
)

// healthRoutes are the fleet health report and the health actions.
var healthRoutes = []Route{
	{http.MethodGet, "/health", (*Handler).showHealth},
	{http.MethodPost, "/health/cleanup_processes", (*Handler).cleanupProcesses},
	{http.MethodPost, "/health/retry_sessions", (*Handler).retrySessions},
	{http.MethodPost, "/health/archive_old", (*Handler).archiveOld},
	{http.MethodGet, "/health/queue_recovery_mode", (*Handler).showQueueRecovery},
	{http.MethodPost, "/health/enter_queue_recovery_mode", (*Handler).enterQueueRecovery},
	{http.MethodPost, "/health/exit_queue_recovery_mode", (*Handler).exitQueueRecovery},
	{http.MethodGet, "/health/queued_jobs", (*Handler).previewQueuedJobs},
	{http.MethodPost, "/health/discard_queued_jobs", (*Handler).discardQueuedJobs},
	{http.MethodPost, "/health/reschedule_queued_jobs", (*Handler).rescheduleQueuedJobs},
}

// showHealth is GET /health: the whole report, recovery mode also at the top level.
func (h *Handler) showHealth(c *gin.Context) error {
	v := h.ops.SystemHealth(c.Request.Context()).View()
	c.JSON(http.StatusOK, gin.H{"health_report": v, "queue_recovery_mode": v.QueueRecoveryMode, "timestamp": v.Timestamp})
	return nil
}

// throttledResult answers a cooldown-guarded action: its result, 429 with retry_after within the
// cooldown, 503 when the cooldown cannot be enforced.
func throttledResult(c *gin.Context, result any, err error) error {
	var limited *orchestrator.RateLimitedError
	switch {
	case errors.As(err, &limited):
		c.JSON(http.StatusTooManyRequests, gin.H{"error": "Rate limited", "message": "Please wait 30 seconds between actions",
			"messages": []string{"Please wait 30 seconds between actions"}, "retry_after": int(math.Ceil(limited.RetryAfter.Seconds()))})
		return nil
	case errors.Is(err, orchestrator.ErrRateLimitUnavailable):
		msg := "The cache is unavailable, so the 30-second cooldown cannot be enforced. Refusing to run health maintenance actions."
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": "Rate limiting unavailable", "message": msg, "messages": []string{msg}})
		return nil
	case err != nil:
		return err
	}
	c.JSON(http.StatusOK, result)
	return nil
}

// cleanupProcesses is POST /health/cleanup_processes.
func (h *Handler) cleanupProcesses(c *gin.Context) error {
	out, err := h.ops.CleanupProcesses(c.Request.Context())
	return throttledResult(c, out, err)
}

// retrySessions is POST /health/retry_sessions: session_ids (optional; the recent failures).
func (h *Handler) retrySessions(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	var ids []int64
	if b.present("session_ids") {
		if err := json.Unmarshal(b.raw["session_ids"], &ids); err != nil {
			b.fail("session_ids", "an array of session ids")
		}
	}
	if err := b.err(); err != nil {
		return err
	}
	out, err := h.ops.RetrySessions(c.Request.Context(), ids)
	return throttledResult(c, out, err)
}

// archiveOld is POST /health/archive_old: days (1..365, default 7).
func (h *Handler) archiveOld(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	days := b.integer("days")
	if err := b.err(); err != nil {
		return err
	}
	n := 0
	if days != nil {
		n = int(min(max(*days, -1), 1000)) // clamped below; no overflow on the way
	}
	out, err := h.ops.ArchiveOld(c.Request.Context(), n)
	return throttledResult(c, out, err)
}

// showQueueRecovery is GET /health/queue_recovery_mode.
func (h *Handler) showQueueRecovery(c *gin.Context) error {
	r := h.ops.QueueRecovery(c.Request.Context())
	if r.Err != nil {
		return r.Err
	}
	c.JSON(http.StatusOK, r.View(h.ops.Now()))
	return nil
}

// recoveryResult answers enter/exit: the status, or 503 when Redis could not apply it.
func (h *Handler) recoveryResult(c *gin.Context, r orchestrator.RecoveryReport, err error) error {
	if errors.Is(err, orchestrator.ErrQueueRecoveryUnavailable) {
		msg := "Queue recovery mode could not be applied: the job queue's Redis did not answer."
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": "Queue recovery mode unavailable", "message": msg, "messages": []string{msg}})
		return nil
	}
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, r.View(h.ops.Now()))
	return nil
}

// enterQueueRecovery is POST /health/enter_queue_recovery_mode: reason, ttl_minutes (5..240,
// default 60). Entering again extends it.
func (h *Handler) enterQueueRecovery(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	reason, ttl := b.str("reason"), b.integer("ttl_minutes")
	if err := b.err(); err != nil {
		return err
	}
	minutes := 0
	if ttl != nil {
		minutes = int(min(max(*ttl, 1), 100000)) // clamped to 5..240 below
	}
	r, err := h.ops.EnterQueueRecovery(c.Request.Context(), deref(reason), minutes, "the REST API")
	return h.recoveryResult(c, r, err)
}

// exitQueueRecovery is POST /health/exit_queue_recovery_mode (idempotent).
func (h *Handler) exitQueueRecovery(c *gin.Context) error {
	r, _, err := h.ops.ExitQueueRecovery(c.Request.Context())
	return h.recoveryResult(c, r, err)
}

// previewQueuedJobs is GET /health/queued_jobs?job_class=&queue_name=.
func (h *Handler) previewQueuedJobs(c *gin.Context) error {
	m, err := h.ops.PreviewQueuedJobs(tasks.JobScope{Type: c.Query("job_class"), Lane: c.Query("queue_name")})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, m)
	return nil
}

// jobsRequest reads a discard or reschedule body: the scope and the required expected_count.
func jobsRequest(c *gin.Context, extra ...string) (tasks.JobScope, int, map[string]*int64, error) {
	b, err := readBody(c.Request)
	if err != nil {
		return tasks.JobScope{}, 0, nil, err
	}
	sc := tasks.JobScope{Type: deref(b.str("job_class")), Lane: deref(b.str("queue_name"))}
	expected := b.integer("expected_count")
	if expected == nil && b.err() == nil {
		b.fail("expected_count", "the count preview reported (GET /health/queued_jobs)")
	}
	more := map[string]*int64{}
	for _, name := range extra {
		more[name] = b.integer(name)
	}
	if err := b.err(); err != nil {
		return sc, 0, nil, err
	}
	return sc, int(min(max(*expected, -1), math.MaxInt32)), more, nil
}

// jobsResult is the receipt of a discard or reschedule, by class, for the caller's records.
type jobsResult struct {
	Action string `json:"action"`
	tasks.JobResult
	Recoverable bool       `json:"recoverable"`
	ScheduledAt *time.Time `json:"scheduled_at,omitempty"`
	PerformedAt time.Time  `json:"performed_at"`
}

// discardQueuedJobs is POST /health/discard_queued_jobs: job_class and/or queue_name,
// expected_count.
func (h *Handler) discardQueuedJobs(c *gin.Context) error {
	sc, expected, _, err := jobsRequest(c)
	if err != nil {
		return err
	}
	r, err := h.ops.DiscardQueuedJobs(c.Request.Context(), sc, expected)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, jobsResult{Action: "discard", JobResult: r, PerformedAt: h.ops.Now()})
	return nil
}

// rescheduleQueuedJobs is POST /health/reschedule_queued_jobs: as discard, plus delay_minutes
// (0..7 days, default 0).
func (h *Handler) rescheduleQueuedJobs(c *gin.Context) error {
	sc, expected, more, err := jobsRequest(c, "delay_minutes")
	if err != nil {
		return err
	}
	delay := 0
	if d := more["delay_minutes"]; d != nil {
		delay = int(min(max(*d, 0), orchestrator.MaxRescheduleMinutes))
	}
	r, at, err := h.ops.RescheduleQueuedJobs(c.Request.Context(), sc, expected, delay)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, jobsResult{Action: "reschedule", JobResult: r, Recoverable: true, ScheduledAt: &at, PerformedAt: h.ops.Now()})
	return nil
}
