package orchestrator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
)

// The fleet health report (get_system_health, GET /api/v1/health): what the queues hold and
// since when, what the workers execute, sessions by status, the stores, the disk and the
// secrets servers lack. Each section that cannot be read says so instead of failing the report.

// HealthReport is the whole report; Recovery comes first because every queue number means
// something else while the lanes are halted.
type HealthReport struct {
	At                      time.Time
	Recovery                RecoveryReport
	Lanes                   []tasks.LaneHealth
	LanesErr                error
	Sessions                map[session.Status]int64
	SessionsErr             error
	Neo4j, Redis            Dependency
	Workspaces, Transcripts DiskUsage
	Secrets                 SecretsReport
}

// Dependency is one store: how long a ping took, or why it failed.
type Dependency struct {
	Latency time.Duration
	Err     error
}

// DiskUsage is what one directory under ZIMMER_DATA_DIR holds. Truncated: the walk stopped at
// its bound, so the numbers are a floor.
type DiskUsage struct {
	Path      string
	Bytes     int64
	Files     int64
	Truncated bool
	Err       error
}

// SecretsReport names (never values) what the catalog's MCP servers need and cannot have.
type SecretsReport struct {
	File             string // ZIMMER_SECRETS_FILE ("" when none is configured)
	FileErr          error
	Missing, Refused []string
}

// RecoveryReport is queue recovery mode as it stands, with the lanes it halts and leaves live.
type RecoveryReport struct {
	tasks.RecoveryStatus
	Halted, Live []string
	Err          error
}

// Bounds of the disk walk: a data directory with millions of files reports a floor quickly
// rather than holding the report.
const (
	diskWalkEntries = 200_000
	diskWalkBudget  = 2 * time.Second
)

// SystemHealth gathers the report.
func (s *Service) SystemHealth(ctx context.Context) HealthReport {
	r := HealthReport{At: s.now().UTC()}
	r.Recovery = s.QueueRecovery(ctx)
	r.Lanes, r.LanesErr = s.queue.Health()
	r.Sessions, r.SessionsErr = s.store.SessionsByStatus(ctx)
	start := time.Now()
	r.Neo4j.Err = s.store.Ping(ctx)
	r.Neo4j.Latency = time.Since(start)
	r.Redis.Latency, r.Redis.Err = s.queue.Latency(ctx)
	r.Workspaces = diskUsage(filepath.Join(s.dataDir, "workspaces"))
	r.Transcripts = diskUsage(filepath.Join(s.dataDir, "transcripts"))
	names := s.Catalog().SecretNames(s.vars)
	r.Secrets = SecretsReport{File: s.vars.SecretsFile, FileErr: names.StoreErr, Missing: names.Missing, Refused: names.Refused}
	return r
}

// SessionCensus counts the sessions in every status (one index seek each), for the
// sessions-by-status gauge.
func (s *Service) SessionCensus(ctx context.Context) (map[string]int64, error) {
	byStatus, err := s.store.SessionsByStatus(ctx)
	out := make(map[string]int64, len(byStatus))
	for status, n := range byStatus {
		out[string(status)] = n
	}
	return out, err
}

// QueueRecoveryOn reports whether queue recovery mode halts the lanes now.
func (s *Service) QueueRecoveryOn(ctx context.Context) (bool, error) {
	st, err := s.queue.Recovery(ctx, s.now())
	return st.Active(), err
}

// Now is the service's clock, in UTC.
func (s *Service) Now() time.Time { return s.now().UTC() }

// QueueRecovery reads queue recovery mode; a read that fails is stated in Err.
func (s *Service) QueueRecovery(ctx context.Context) RecoveryReport {
	st, err := s.queue.Recovery(ctx, s.now())
	return recoveryReport(st, err)
}

func recoveryReport(st tasks.RecoveryStatus, err error) RecoveryReport {
	return RecoveryReport{RecoveryStatus: st, Halted: tasks.HaltedLanes(), Live: []string{tasks.LaneAgents}, Err: err}
}

// diskUsage sums the regular files under dir without following links, within the walk's bounds.
func diskUsage(dir string) DiskUsage {
	u := DiskUsage{Path: dir}
	deadline := time.Now().Add(diskWalkBudget)
	entries := 0
	stop := errors.New("bound reached")
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable corner is left out, not the whole walk
		}
		entries++
		if entries > diskWalkEntries || time.Now().After(deadline) {
			u.Truncated = true
			return stop
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				u.Bytes += info.Size()
				u.Files++
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, stop) && !errors.Is(err, fs.ErrNotExist) {
		u.Err = err
	}
	return u
}

// CallerDigest is the health actions' name for an API key: the first 32 hex characters of its
// SHA-256, so the key itself never reaches Redis.
func CallerDigest(apiKey string) string {
	if apiKey == "" {
		return "anonymous"
	}
	d := sha256.Sum256([]byte(apiKey))
	return hex.EncodeToString(d[:16])
}

// callerOf is the digest of the key the request authenticated with, for the cooldown.
func callerOf(ctx context.Context) string {
	if d := CallerFrom(ctx).KeyDigest; d != "" {
		return d
	}
	return "anonymous"
}

// SecretKeys names the secrets Zimmer knows (catalog placeholders, secrets file keys), never a
// value; fileErr says why the secrets file's keys are missing from the list.
func (s *Service) SecretKeys() (keys []catalog.SecretKey, fileErr error) {
	return s.Catalog().SecretKeys(s.vars)
}
