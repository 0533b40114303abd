package orchestrator

import (
	"slices"
	"time"

	"github.com/zimmerhq/zimmer/jobs/tasks"
)

// The health report as every surface shows it (REST's JSON, MCP's details block): durations in
// seconds, times in UTC, a section that could not be read carried as its error text.

// HealthView is the report's JSON shape.
type HealthView struct {
	Timestamp         time.Time           `json:"timestamp"`
	QueueRecoveryMode RecoveryView        `json:"queue_recovery_mode"`
	Queues            []LaneView          `json:"queues"`
	QueuesError       string              `json:"queues_error,omitempty"`
	LongestWaiting    *WaitView           `json:"longest_waiting"`
	SessionsByStatus  map[string]int64    `json:"sessions_by_status"`
	SessionsError     string              `json:"sessions_error,omitempty"`
	Dependencies      map[string]DepView  `json:"dependencies"`
	Disk              map[string]DiskView `json:"disk"`
	Secrets           SecretsView         `json:"secrets"`
}

// RecoveryView is queue recovery mode's status JSON.
type RecoveryView struct {
	Active           bool       `json:"active"`
	EnteredAt        *time.Time `json:"entered_at"`
	ExpiresAt        *time.Time `json:"expires_at"`
	ExpiresInSeconds int64      `json:"expires_in_seconds"`
	Reason           string     `json:"reason"`
	EnteredBy        string     `json:"entered_by"`
	HaltedQueues     []string   `json:"halted_queues"`
	PausedQueues     []string   `json:"paused_queues"`
	LiveQueues       []string   `json:"live_queues"`
	Error            string     `json:"error,omitempty"`
}

// LaneView is one lane.
type LaneView struct {
	Queue                  string         `json:"queue"`
	Ready                  int            `json:"ready"`
	Scheduled              int            `json:"scheduled"`
	Retry                  int            `json:"retry"`
	Active                 int            `json:"active"`
	Archived               int            `json:"archived"`
	Paused                 bool           `json:"paused"`
	HeadOfLineAgeSeconds   float64        `json:"head_of_line_age_seconds"`
	HeadJobClass           string         `json:"head_job_class,omitempty"`
	ReadyByJobClass        map[string]int `json:"ready_by_job_class"`
	ReadyCounted           int            `json:"ready_counted_by_class"`
	Concurrency            int            `json:"concurrency"`
	Workers                int            `json:"workers"`
	InFlight               int            `json:"in_flight"`
	OldestExecutionSeconds *float64       `json:"oldest_execution_age_seconds"`
	YoungestExecutionSecs  *float64       `json:"youngest_execution_age_seconds"`
}

// WaitView is the single longest-waiting ready task.
type WaitView struct {
	Queue      string  `json:"queue"`
	JobClass   string  `json:"job_class"`
	AgeSeconds float64 `json:"age_seconds"`
}

// DepView is one store.
type DepView struct {
	State     string  `json:"state"` // up, down
	LatencyMS float64 `json:"latency_ms"`
	Error     string  `json:"error,omitempty"`
}

// DiskView is one directory's usage.
type DiskView struct {
	Bytes     int64  `json:"bytes"`
	Files     int64  `json:"files"`
	Truncated bool   `json:"truncated"`
	Error     string `json:"error,omitempty"`
}

// SecretsView names what is missing, never a value.
type SecretsView struct {
	SecretsFileConfigured bool     `json:"secrets_file_configured"`
	SecretsFileError      string   `json:"secrets_file_error,omitempty"`
	Missing               []string `json:"missing"`
	Refused               []string `json:"not_readable_by_mcp_servers"`
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func seconds(d time.Duration) float64 { return float64(d.Milliseconds()) / 1000 }

// View is the report's JSON shape.
func (r HealthReport) View() HealthView {
	v := HealthView{Timestamp: r.At, QueueRecoveryMode: r.Recovery.View(r.At), QueuesError: errText(r.LanesErr),
		Queues: []LaneView{}, SessionsByStatus: map[string]int64{}, SessionsError: errText(r.SessionsErr),
		Dependencies: map[string]DepView{"neo4j": depView(r.Neo4j), "redis": depView(r.Redis)},
		Disk:         map[string]DiskView{"workspaces": diskView(r.Workspaces), "transcripts": diskView(r.Transcripts)},
		Secrets: SecretsView{SecretsFileConfigured: r.Secrets.File != "", SecretsFileError: errText(r.Secrets.FileErr),
			Missing: nonNilList(r.Secrets.Missing), Refused: nonNilList(r.Secrets.Refused)}}
	for st, n := range r.Sessions {
		v.SessionsByStatus[string(st)] = n
	}
	for _, l := range r.Lanes {
		lv := LaneView{Queue: l.Lane, Ready: l.Pending, Scheduled: l.Scheduled, Retry: l.Retry, Active: l.Active,
			Archived: l.Archived, Paused: l.Paused, HeadOfLineAgeSeconds: seconds(l.HeadAge), HeadJobClass: l.HeadType,
			ReadyByJobClass: l.PendingByType, ReadyCounted: l.TypesCounted, Concurrency: l.Concurrency, Workers: l.Servers, InFlight: l.InFlight}
		if !l.OldestStart.IsZero() {
			o, y := seconds(r.At.Sub(l.OldestStart)), seconds(r.At.Sub(l.YoungestStart))
			lv.OldestExecutionSeconds, lv.YoungestExecutionSecs = &o, &y
		}
		v.Queues = append(v.Queues, lv)
	}
	if l, ok := tasks.LongestWaiting(r.Lanes); ok {
		v.LongestWaiting = &WaitView{Queue: l.Lane, JobClass: l.HeadType, AgeSeconds: seconds(l.HeadAge)}
	}
	return v
}

// View is recovery mode's status JSON at now.
func (r RecoveryReport) View(now time.Time) RecoveryView {
	v := RecoveryView{Active: r.Active(), HaltedQueues: r.Halted, PausedQueues: nonNilList(r.Paused), LiveQueues: r.Live, Error: errText(r.Err)}
	if m := r.Mode; m != nil {
		entered, expires := m.EnteredAt, m.ExpiresAt
		v.EnteredAt, v.ExpiresAt, v.Reason, v.EnteredBy = &entered, &expires, m.Reason, m.EnteredBy
		v.ExpiresInSeconds = max(int64(expires.Sub(now).Seconds()), 0)
	}
	return v
}

func depView(d Dependency) DepView {
	v := DepView{State: "up", LatencyMS: float64(d.Latency.Microseconds()) / 1000}
	if d.Err != nil {
		v.State, v.Error = "down", d.Err.Error()
	}
	return v
}

func diskView(d DiskUsage) DiskView {
	return DiskView{Bytes: d.Bytes, Files: d.Files, Truncated: d.Truncated, Error: errText(d.Err)}
}

func nonNilList(l []string) []string {
	if l == nil {
		return []string{}
	}
	return slices.Clone(l)
}
