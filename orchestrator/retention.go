package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// Retention: the trash is emptied once its restore window has passed, and a clone may be
// evicted to keep the workspaces within their disk budget. The files (clones, transcripts) are
// the runner's; these operations decide, under the session's lock, what may go.

// errKept refuses a deletion whose reason no longer holds (restored, or archived again with a
// new window, since it was listed).
var errKept = errors.New("kept")

// PurgeTrash hard-deletes up to the scope's limit of archived sessions whose trash_after has
// passed, each re-checked under its lock, and returns the ids it deleted; their token ledger
// rows stay (spend is history). The caller removes their files.
func (s *Service) PurgeTrash(ctx context.Context, scope SweepScope) ([]int64, error) {
	now := s.now()
	due, err := s.store.TrashDue(ctx, now, scope.Text, scope.limit())
	if err != nil {
		return nil, fmt.Errorf("list the trash due for purging: %w", err)
	}
	var purged []int64
	var errs []error
	for _, sess := range due {
		err := s.store.DeleteSessionIf(ctx, sess.ID, func(u *session.Session) error {
			if u.Status != session.StatusArchived || u.TrashAfter == nil || !u.TrashAfter.Before(now) {
				return errKept
			}
			return nil
		})
		switch {
		case err == nil:
			purged = append(purged, sess.ID)
			s.log.Info("trashed session purged", "session_id", sess.ID, "trash_after", sess.TrashAfter)
		case !errors.Is(err, errKept) && !errors.Is(err, graph.ErrNotFound):
			errs = append(errs, err)
		}
	}
	return purged, errors.Join(errs...)
}

// SessionExists reports whether a session has the id (the runner's orphaned-directory sweep).
func (s *Service) SessionExists(ctx context.Context, id int64) (bool, error) {
	return s.store.SessionExists(ctx, id)
}

// CloneEvictable reports whether the session's clone may be removed to save disk: the session
// rests (needs_input, failed, or waiting with no job due) and nothing is about to run in it. A
// later turn clones afresh.
func (s *Service) CloneEvictable(ctx context.Context, id int64) (bool, error) {
	sess, err := s.store.GetSession(ctx, id)
	if errors.Is(err, graph.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, pending := pendingOf(sess)
	resting := slices.Contains([]session.Status{session.StatusNeedsInput, session.StatusFailed, session.StatusWaiting}, sess.Status)
	return resting && sess.RunningJobID == nil && !pending, nil
}
