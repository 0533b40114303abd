package runner_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/jobs/runner"
	"github.com/zimmerhq/zimmer/session"
)

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// old makes path look untouched for a day.
func old(t *testing.T, path string) {
	t.Helper()
	day := time.Now().Add(-24 * time.Hour)
	if err := os.Chtimes(path, day, day); err != nil {
		t.Fatal(err)
	}
}

// The trash is emptied once its restore window has passed — the session's nodes, clone and
// transcript — and nothing else: not a session still inside its window, not a restored one, not
// a young directory whose session is being created. Leftovers of deleted sessions and preserved
// clones past the retention go too.
func TestRetentionPurgesTheTrashPastItsWindowAndNothingElse(t *testing.T) {
	e := private(t, envOptions{})
	ctx := context.Background()
	turned := func() int64 {
		id := e.create(t, map[string]any{"prompt": "work", "agent_root": "parent"})
		e.waitStatus(t, id, session.StatusNeedsInput)
		return id
	}
	due, inWindow, restored := turned(), turned(), turned()
	for _, id := range []int64{due, inWindow} {
		if st, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/archive", nil); st != http.StatusOK {
			t.Fatalf("archive: %d %v", st, out)
		}
	}
	past := time.Now().Add(-time.Hour)
	for _, id := range []int64{due, restored} { // restored: as if archived, past its window, then restored
		if _, err := e.store.UpdateSession(ctx, id, func(u *session.Session) error { u.TrashAfter = &past; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	ws := func(id int64) string { return filepath.Join(e.dataDir, "workspaces", itoa(id)) }
	tr := func(id int64) string { return filepath.Join(e.dataDir, "transcripts", itoa(id)+".jsonl") }
	ghost, young := int64(9_000_000_001), int64(9_000_000_002)
	for _, dir := range []string{ws(ghost), ws(young), filepath.Join(e.dataDir, "preserved")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(tr(ghost), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old(t, ws(ghost))
	old(t, tr(ghost))
	stale := filepath.Join(e.dataDir, "preserved", itoa(inWindow)+"-"+strconv.FormatInt(time.Now().Add(-5*24*time.Hour).Unix(), 10))
	fresh := filepath.Join(e.dataDir, "preserved", itoa(inWindow)+"-"+strconv.FormatInt(time.Now().Unix(), 10))
	for _, dir := range []string{stale, fresh} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}

	rep, err := e.runner.Retain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Purged != 1 || rep.Orphans != 2 || rep.Preserved != 1 {
		t.Fatalf("report %+v; want 1 purged, 2 orphans (a workspace and a transcript), 1 preserved clone", rep)
	}
	if ok, _ := e.ops.SessionExists(ctx, due); ok || exists(ws(due)) || exists(tr(due)) {
		t.Fatalf("the session past its window is gone with its files: exists %v, workspace %v, transcript %v", ok, exists(ws(due)), exists(tr(due)))
	}
	for _, id := range []int64{inWindow, restored} {
		if ok, _ := e.ops.SessionExists(ctx, id); !ok || !exists(tr(id)) {
			t.Fatalf("session %d is kept with its transcript", id)
		}
	}
	if !exists(ws(restored)) || exists(ws(ghost)) || exists(tr(ghost)) || !exists(ws(young)) {
		t.Fatalf("restored clone kept %v; ghost workspace gone %v, transcript gone %v; young directory kept %v",
			exists(ws(restored)), !exists(ws(ghost)), !exists(tr(ghost)), exists(ws(young)))
	}
	if exists(stale) || !exists(fresh) {
		t.Fatalf("a preserved clone past the retention goes (%v), a fresh one stays (%v)", !exists(stale), exists(fresh))
	}
}

// Over the budget, clean clones of resting sessions are evicted least recently used first; a
// clone with work that exists nowhere else stays, and the next turn clones afresh.
func TestTheWorkspaceBudgetEvictsCleanClonesOfRestingSessionsOldestFirst(t *testing.T) {
	e := private(t, envOptions{})
	ctx := context.Background()
	var ids []int64
	for range 3 {
		id := e.create(t, map[string]any{"prompt": "work", "agent_root": "parent"})
		e.waitStatus(t, id, session.StatusNeedsInput)
		ids = append(ids, id)
	}
	oldest, newest, dirty := ids[0], ids[1], ids[2]
	ws := func(id int64) string { return filepath.Join(e.dataDir, "workspaces", itoa(id)) }
	if err := os.WriteFile(filepath.Join(ws(dirty), "repo", "notes.txt"), []byte("wip"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids { // oldest first by use
		at := time.Now().Add(time.Duration(i-10) * time.Hour)
		if err := os.Chtimes(ws(id), at, at); err != nil {
			t.Fatal(err)
		}
	}
	budget := func(b int64) *runner.Runner {
		r, err := runner.New(e.ops, e.queue, logger(), runner.Options{DataDir: e.dataDir, SweepScope: e.dataDir, WorkspaceBudget: b})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// A budget one clone short: only the least recently used clean clone goes.
	size := int64(0)
	for _, id := range ids {
		size += runner.DirSize(ws(id))
	}
	rep, err := budget(size - 1).Retain(ctx)
	if err != nil || rep.Evicted != 1 || exists(ws(oldest)) || !exists(ws(newest)) {
		t.Fatalf("one short: %+v %v; oldest evicted %v, newest kept %v", rep, err, !exists(ws(oldest)), exists(ws(newest)))
	}
	// A budget of nothing: every clean clone goes, the dirty one stays.
	if rep, err := budget(1).Retain(ctx); err != nil || rep.Evicted != 1 || exists(ws(newest)) || !exists(ws(dirty)) {
		t.Fatalf("no room: %+v %v; newest evicted %v, dirty kept %v", rep, err, !exists(ws(newest)), exists(ws(dirty)))
	}
	// The evicted session's next turn clones afresh.
	if st, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(oldest)+"/follow_up", map[string]any{"prompt": "more"}); st != http.StatusOK {
		t.Fatalf("follow-up: %d %v", st, out)
	}
	e.waitFor(t, oldest, "a second turn in a fresh clone", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && exists(filepath.Join(ws(oldest), "repo", ".git"))
	})
}
