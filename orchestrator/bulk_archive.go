package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// MaxBulkArchive bounds one bulk archive: a page of the board at most, so one request holds
// no session lock for long.
const MaxBulkArchive = 100

// BulkArchiveFailure is one session a bulk archive left alone, and why.
type BulkArchiveFailure struct {
	ID      int64  `json:"id"`
	Message string `json:"message"`
}

// BulkArchive moves each session to the trash in turn with the same options (force applies
// to the whole batch). A session that cannot be archived is reported and the rest go on; a
// store failure is logged and reported without its detail.
func (s *Service) BulkArchive(ctx context.Context, ids []int64, p ArchiveParams) (int, []BulkArchiveFailure, error) {
	switch {
	case len(ids) == 0:
		return 0, nil, invalid("Validation failed", "session_ids must list at least one session id")
	case len(ids) > MaxBulkArchive:
		return 0, nil, invalid("Validation failed", fmt.Sprintf("session_ids lists %d sessions; at most %d", len(ids), MaxBulkArchive))
	}
	archived, failures := 0, []BulkArchiveFailure{}
	for _, id := range ids {
		_, err := s.Archive(ctx, id, p)
		var ve *ValidationError
		var nf *NotFoundError
		switch {
		case err == nil:
			archived++
		case errors.As(err, &ve):
			failures = append(failures, BulkArchiveFailure{id, ve.Label + ": " + strings.Join(ve.Messages, ", ")})
		case errors.As(err, &nf):
			failures = append(failures, BulkArchiveFailure{id, nf.Message})
		case errors.Is(err, ErrNotFound):
			failures = append(failures, BulkArchiveFailure{id, fmt.Sprintf("Session %d not found", id)})
		case errors.Is(err, ErrConflict):
			failures = append(failures, BulkArchiveFailure{id, "The session changed meanwhile; try again"})
		default:
			s.log.Error("bulk archive", "session_id", id, "err", err)
			failures = append(failures, BulkArchiveFailure{id, "The session could not be archived; the error was logged"})
		}
	}
	return archived, failures, nil
}
