package graph

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/queries"
)

// StatusSummary is a session's cached "where things stand" blurb and the state of its
// generation. It lives on a node of its own so writing it never touches the session's
// updated_at (which the stale-session sweep reads).
type StatusSummary struct {
	Summary *string
	Error   *string
	// State is idle (never asked for), pending (asked for, none ready yet), ready or failed
	// (the last generation failed; Summary keeps the one before, if any).
	State string
	// Generating: a generation is queued or under way.
	Generating  bool
	RequestedAt *time.Time
	GeneratedAt *time.Time
	// CoveredBytes is how much of the transcript file the summary read: what came after it is new.
	CoveredBytes int64
}

// StatusSummary reads session id's status summary; a session never summarized reads as idle.
func (s *Store) StatusSummary(ctx context.Context, id int64) (StatusSummary, error) {
	out, err := read(ctx, s, "get_status_summary", func(tx txn) (StatusSummary, error) {
		rec, err := tx.single("get_status_summary", queries.GetStatusSummary, map[string]any{"session_id": id})
		if errors.Is(err, ErrNotFound) {
			return StatusSummary{State: "idle"}, nil
		}
		if err != nil {
			return StatusSummary{}, err
		}
		return statusSummaryFrom(rec.AsMap()), nil
	})
	if err != nil {
		return StatusSummary{}, fmt.Errorf("read status summary of session %d: %w", id, err)
	}
	return out, nil
}

// statusSummaryFrom reads a summary's columns; none (a nil map) is idle.
func statusSummaryFrom(m map[string]any) StatusSummary {
	if m == nil {
		return StatusSummary{State: "idle"}
	}
	return StatusSummary{Summary: optString(m["summary"]), Error: optString(m["error"]), State: asString(m["state"]),
		Generating: asBool(m["generating"]), RequestedAt: optTime(m["requested_at"]), GeneratedAt: optTime(m["generated_at"]),
		CoveredBytes: asInt(m["covered_bytes"])}
}

// SaveStatusSummary writes session id's status summary whole; a deleted session is ErrNotFound.
func (s *Store) SaveStatusSummary(ctx context.Context, id int64, ss StatusSummary) error {
	props := map[string]any{"summary": deref(ss.Summary), "error": deref(ss.Error), "state": ss.State, "generating": ss.Generating,
		"requested_at": deref(ss.RequestedAt), "generated_at": deref(ss.GeneratedAt), "covered_bytes": ss.CoveredBytes}
	saved, err := write(ctx, s, "save_status_summary", func(tx txn) (bool, error) {
		rec, err := tx.single("save_status_summary", queries.SaveStatusSummary, map[string]any{"session_id": id, "props": props})
		if err != nil {
			return false, err
		}
		return asBool(rec.AsMap()["saved"]), nil
	})
	if err != nil {
		return fmt.Errorf("save status summary of session %d: %w", id, err)
	}
	if !saved {
		return fmt.Errorf("save status summary of session %d: %w", id, ErrNotFound)
	}
	return nil
}
