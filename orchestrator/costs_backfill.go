package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/graph"
)

// BackfillSliceBudget is how long one slice of the ledger sweep reads transcripts before it
// records its cursor and queues the next slice.
const BackfillSliceBudget = 90 * time.Second

// BackfillTokenUsage starts a sweep of every transcript on disk into the token ledger, or joins
// the one in flight (joined). It is idempotent twice over: a second call joins the sweep, and
// the ledger counts a request once however often it is read.
func (s *Service) BackfillTokenUsage(ctx context.Context, trigger string) (graph.Backfill, bool, error) {
	ids, err := s.transcriptIDs()
	if err != nil {
		return graph.Backfill{}, false, err
	}
	b, joined, err := s.store.StartBackfill(ctx, s.dataDir, int64(len(ids)), trigger)
	if err != nil {
		return graph.Backfill{}, false, err
	}
	// Asked again of a sweep in flight, this is the slice already queued (one id per cursor).
	if err := s.queue.EnqueueLedgerBackfill(ctx, b.Run, b.Cursor); err != nil {
		return graph.Backfill{}, false, err
	}
	return b, joined, nil
}

// LedgerBackfill is the current or last sweep (the zero value before the first).
func (s *Service) LedgerBackfill(ctx context.Context) (graph.Backfill, error) {
	return s.store.BackfillStatus(ctx, s.dataDir)
}

// BackfillSlice runs one slice of the sweep in flight, if any and no other slice holds it:
// transcripts in session-id order from the cursor, for up to budget, then the progress is
// recorded and the next slice queued. A transcript whose session is gone is skipped; one that
// cannot be read is named in last_error and skipped, so one bad file cannot stall the sweep.
func (s *Service) BackfillSlice(ctx context.Context, budget time.Duration) (graph.Backfill, bool, error) {
	b, ok, err := s.store.ClaimBackfill(ctx, s.dataDir, s.now().Add(budget+time.Minute))
	if err != nil || !ok {
		return b, false, err
	}
	ids, err := s.transcriptIDs()
	if err != nil {
		return b, false, err
	}
	start := time.Now()
	step := graph.BackfillStep{Key: s.dataDir, Run: b.Run, Cursor: b.Cursor}
	rest := ids[sortedIndex(ids, b.Cursor):]
	for len(rest) > 0 && time.Since(start) < budget {
		id := rest[0]
		n, err := s.backfillTranscript(ctx, id)
		if err != nil {
			step.Error = err.Error()
		}
		step.Files, step.Rows, step.Cursor = step.Files+1, step.Rows+int64(n), id
		rest = rest[1:]
	}
	step.Finished = len(rest) == 0
	b, err = s.store.RecordBackfill(ctx, step)
	if err != nil {
		return b, true, err
	}
	if !step.Finished {
		if err := s.queue.EnqueueLedgerBackfill(ctx, b.Run, b.Cursor); err != nil {
			return b, true, err
		}
	}
	return b, true, nil
}

// sortedIndex is where the ids after cursor start.
func sortedIndex(ids []int64, cursor int64) int {
	i, found := slices.BinarySearch(ids, cursor)
	if found {
		i++
	}
	return i
}

// backfillTranscript ingests one session's transcript; a request the file does not time is
// recorded at the file's last change.
func (s *Service) backfillTranscript(ctx context.Context, id int64) (int, error) {
	sess, err := s.store.GetSession(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	info, err := os.Stat(s.transcriptPath(id))
	if err != nil {
		return 0, fmt.Errorf("session #%d's transcript: %w", id, err)
	}
	usages, _, err := s.transcriptUsage(sess)
	if err != nil {
		return 0, err
	}
	return s.recordUsage(ctx, sess, usages, info.ModTime().UTC())
}

// transcriptIDs are the sessions with a transcript on disk, in id order.
func (s *Service) transcriptIDs() ([]int64, error) {
	entries, err := os.ReadDir(filepath.Join(s.dataDir, "transcripts"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the transcripts: %w", err)
	}
	var ids []int64
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if id, err := strconv.ParseInt(name, 10, 64); ok && err == nil && id > 0 && e.Type().IsRegular() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
