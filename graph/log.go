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

// CountLogs is how many entries a session's timeline holds; level "" means every level.
func (s *Store) CountLogs(ctx context.Context, sessionID int64, level string) (int, error) {
	n, err := read(ctx, s, "count_logs", func(tx txn) (int, error) {
		rec, err := tx.single("count_logs", queries.CountLogs, map[string]any{"session_id": sessionID, "level": level})
		if err != nil {
			return 0, err
		}
		return int(asInt(rec.AsMap()["total"])), nil
	})
	if err != nil {
		return 0, fmt.Errorf("count logs of session %d: %w", sessionID, err)
	}
	return n, nil
}

// AddLog writes one entry to a session's timeline and returns it (ErrNotFound: no such session).
func (s *Store) AddLog(ctx context.Context, sessionID int64, level, content string) (session.LogEntry, error) {
	out, err := write(ctx, s, "add_log", func(tx txn) (session.LogEntry, error) {
		rec, err := tx.single("append_log", queries.AppendLog, map[string]any{
			"session_ids": []int64{sessionID}, "level": level, "content": content, "at": s.now().UTC(),
		})
		if err != nil {
			return session.LogEntry{}, err
		}
		return logRecord(tx, "get_log", queries.GetLog, map[string]any{"session_id": sessionID, "id": rec.AsMap()["id"]}, sessionID)
	})
	if err != nil {
		return session.LogEntry{}, fmt.Errorf("add log to session %d: %w", sessionID, err)
	}
	return out, nil
}

// GetLog reads one entry of a session's timeline (ErrNotFound when the session has none by id).
func (s *Store) GetLog(ctx context.Context, sessionID int64, id string) (session.LogEntry, error) {
	out, err := read(ctx, s, "get_log", func(tx txn) (session.LogEntry, error) {
		return logRecord(tx, "get_log", queries.GetLog, map[string]any{"session_id": sessionID, "id": id}, sessionID)
	})
	if err != nil {
		return session.LogEntry{}, fmt.Errorf("log %s of session %d: %w", id, sessionID, err)
	}
	return out, nil
}

// UpdateLog changes an entry's level and/or content (nil leaves it) and returns it.
func (s *Store) UpdateLog(ctx context.Context, sessionID int64, id string, level, content *string) (session.LogEntry, error) {
	out, err := write(ctx, s, "update_log", func(tx txn) (session.LogEntry, error) {
		return logRecord(tx, "update_log", queries.UpdateLog,
			map[string]any{"session_id": sessionID, "id": id, "level": level, "content": content}, sessionID)
	})
	if err != nil {
		return session.LogEntry{}, fmt.Errorf("update log %s of session %d: %w", id, sessionID, err)
	}
	return out, nil
}

// DeleteLog removes one entry of a session's timeline (ErrNotFound when there is none).
func (s *Store) DeleteLog(ctx context.Context, sessionID int64, id string) error {
	_, err := write(ctx, s, "delete_log", func(tx txn) (*neo4j.Record, error) {
		return tx.single("delete_log", queries.DeleteLog, map[string]any{"session_id": sessionID, "id": id})
	})
	if err != nil {
		return fmt.Errorf("delete log %s of session %d: %w", id, sessionID, err)
	}
	return nil
}

func logRecord(tx txn, name, cypher string, params map[string]any, sessionID int64) (session.LogEntry, error) {
	rec, err := tx.single(name, cypher, params)
	if err != nil {
		return session.LogEntry{}, err
	}
	return logEntry(rec, sessionID), nil
}

// logEntry reads one timeline row {id, level, content, created_at}.
func logEntry(r *neo4j.Record, sessionID int64) session.LogEntry {
	at, _, _ := neo4j.GetRecordValue[time.Time](r, "created_at")
	m := r.AsMap()
	return session.LogEntry{ID: asString(m["id"]), SessionID: sessionID, Level: asString(m["level"]),
		Content: asString(m["content"]), CreatedAt: at.UTC()}
}
