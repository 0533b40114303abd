package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// AppendLog writes the same line to the timeline of each session given (skipping ids that do
// not exist) and returns how many entries it wrote.
func (s *Store) AppendLog(ctx context.Context, level, content string, sessionIDs ...int64) (int, error) {
	n, err := write(ctx, s, "append_log", func(tx txn) (int, error) {
		recs, err := tx.collect("append_log", queries.AppendLog, map[string]any{
			"session_ids": sessionIDs, "level": level, "content": content, "at": s.now().UTC(),
		})
		return len(recs), err
	})
	if err != nil {
		return 0, fmt.Errorf("append log to %v: %w", sessionIDs, err)
	}
	return n, nil
}

// Logs returns a session's timeline, oldest first; level "" means every level.
func (s *Store) Logs(ctx context.Context, sessionID int64, level string, skip, limit int) ([]session.LogEntry, error) {
	out, err := read(ctx, s, "list_logs", func(tx txn) ([]session.LogEntry, error) {
		recs, err := tx.collect("list_logs", queries.ListLogs, map[string]any{
			"session_id": sessionID, "level": level, "skip": skip, "limit": limit,
		})
		if err != nil {
			return nil, err
		}
		entries := make([]session.LogEntry, 0, len(recs))
		for _, r := range recs {
			entries = append(entries, logEntry(r, sessionID))
		}
		return entries, nil
	})
	if err != nil {
		return nil, fmt.Errorf("logs of session %d: %w", sessionID, err)
	}
	return out, nil
}

// logEntry reads one timeline row {id, level, content, created_at}.
func logEntry(r *neo4j.Record, sessionID int64) session.LogEntry {
	at, _, _ := neo4j.GetRecordValue[time.Time](r, "created_at")
	m := r.AsMap()
	return session.LogEntry{ID: asString(m["id"]), SessionID: sessionID, Level: asString(m["level"]),
		Content: asString(m["content"]), CreatedAt: at.UTC()}
}
