package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/session"
)

// Retention keeps the data directory from growing without bound. Each tick it purges trashed
// sessions whose restore window has passed (graph nodes first, under the session's lock, then
// their clone, transcript and preserved clones), removes directories and transcripts of sessions
// that no longer exist (a hard delete, a purge whose file removal failed) once an hour old,
// drops preserved clones older than the trash retention, and, with a workspace budget, evicts
// the clones of resting sessions, least recently used first, whose every change exists upstream
// until the workspaces fit. A clone holding work that exists nowhere else is never evicted.

// orphanAge is how old a directory of a session that does not exist must be before it goes:
// a session being created has its workspace before the graph says so for a moment.
const orphanAge = time.Hour

// maxRetentionScan bounds the entries one tick looks at in each directory.
const maxRetentionScan = 2000

// RetentionReport is what one tick did.
type RetentionReport struct {
	Purged, Orphans, Preserved, Evicted int
	WorkspaceBytes                      int64 // the workspaces' size after the tick (0 without a budget)
}

// HandleRetention is the periodic retention task.
func (r *Runner) HandleRetention(ctx context.Context, _ *asynq.Task) error {
	rep, err := r.Retain(ctx)
	if rep.Purged+rep.Orphans+rep.Preserved+rep.Evicted > 0 {
		r.log.Info("retention", "purged", rep.Purged, "orphans_removed", rep.Orphans, "preserved_removed", rep.Preserved,
			"evicted", rep.Evicted, "workspace_bytes", rep.WorkspaceBytes)
	}
	return err
}

// Retain runs one retention tick.
func (r *Runner) Retain(ctx context.Context) (RetentionReport, error) {
	var rep RetentionReport
	var errs []error
	purged, err := r.ops.PurgeTrash(ctx, r.scope())
	if err != nil {
		errs = append(errs, err)
	}
	for _, id := range purged {
		if err := r.removeSessionFiles(id); err != nil {
			errs = append(errs, err)
		}
	}
	rep.Purged = len(purged)
	n, err := r.removeOrphans(ctx)
	rep.Orphans = n
	errs = append(errs, err)
	rep.Preserved, err = r.expirePreserved()
	errs = append(errs, err)
	if r.opt.WorkspaceBudget > 0 {
		rep.Evicted, rep.WorkspaceBytes, err = r.evict(ctx)
		errs = append(errs, err)
	}
	return rep, errors.Join(errs...)
}

// removeSessionFiles removes everything on disk a purged session had.
func (r *Runner) removeSessionFiles(id int64) error {
	kept, _ := filepath.Glob(filepath.Join(r.opt.DataDir, "preserved", strconv.FormatInt(id, 10)+"-*"))
	var errs []error
	for _, p := range append(kept, r.workspaceRoot(id)) {
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, fmt.Errorf("remove %s of purged session %d: %w", p, id, err))
		}
	}
	if err := os.Remove(r.transcriptPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("remove the transcript of purged session %d: %w", id, err))
	}
	return errors.Join(errs...)
}

// entry is one session's file or directory in a data directory.
type entry struct {
	id   int64
	path string
	mod  time.Time
}

// sessionEntries lists dir's entries named after a session id (with suffix), oldest first.
func sessionEntries(dir, suffix string) ([]entry, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, de := range des[:min(len(des), maxRetentionScan)] {
		name, ok := strings.CutSuffix(de.Name(), suffix)
		id, err := strconv.ParseInt(name, 10, 64)
		if !ok || err != nil || id <= 0 {
			continue // not a session's: never touched
		}
		info, err := de.Info()
		if err != nil {
			continue
		}
		out = append(out, entry{id: id, path: filepath.Join(dir, de.Name()), mod: info.ModTime()})
	}
	slices.SortFunc(out, func(a, b entry) int { return a.mod.Compare(b.mod) })
	return out, nil
}

// removeOrphans removes workspaces and transcripts, an hour old, of sessions that do not exist.
func (r *Runner) removeOrphans(ctx context.Context) (int, error) {
	removed := 0
	var errs []error
	for _, d := range []struct{ dir, suffix string }{{"workspaces", ""}, {"transcripts", ".jsonl"}} {
		entries, err := sessionEntries(filepath.Join(r.opt.DataDir, d.dir), d.suffix)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range entries {
			if time.Since(e.mod) < orphanAge {
				break // oldest first: the rest are younger
			}
			exists, err := r.ops.SessionExists(ctx, e.id)
			if err != nil {
				return removed, errors.Join(append(errs, err)...)
			}
			if exists {
				continue
			}
			if err := os.RemoveAll(e.path); err != nil {
				errs = append(errs, err)
				continue
			}
			removed++
		}
	}
	return removed, errors.Join(errs...)
}

// expirePreserved removes preserved clones older than the trash retention.
func (r *Runner) expirePreserved() (int, error) {
	dir := filepath.Join(r.opt.DataDir, "preserved")
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, de := range des[:min(len(des), maxRetentionScan)] {
		_, stamp, ok := strings.Cut(de.Name(), "-")
		at, err := strconv.ParseInt(stamp, 10, 64)
		if !ok || err != nil || time.Since(time.Unix(at, 0)) < session.TrashRetention {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, de.Name())); err != nil {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// evict removes clean clones of resting sessions, least recently used first, until the
// workspaces fit the budget; it returns how many went and the size left.
func (r *Runner) evict(ctx context.Context) (int, int64, error) {
	entries, err := sessionEntries(filepath.Join(r.opt.DataDir, "workspaces"), "")
	if err != nil {
		return 0, 0, err
	}
	sizes := make([]int64, len(entries))
	var total int64
	for i, e := range entries {
		sizes[i] = dirSize(e.path)
		total += sizes[i]
	}
	evicted := 0
	for i, e := range entries {
		if total <= r.opt.WorkspaceBudget {
			break
		}
		ok, err := r.ops.CloneEvictable(ctx, e.id)
		if err != nil {
			return evicted, total, err
		}
		if !ok || r.unpushedWork(ctx, filepath.Join(e.path, "repo")) != "" {
			continue
		}
		if err := os.RemoveAll(e.path); err != nil {
			return evicted, total, fmt.Errorf("evict the clone of session %d: %w", e.id, err)
		}
		total -= sizes[i]
		evicted++
		r.ops.AppendTimeline(ctx, e.id, session.LogInfo, "Clone evicted to keep the workspaces within their disk budget; the next turn clones afresh")
	}
	return evicted, total, nil
}

// dirSize is the bytes of the regular files under dir (links not followed).
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
