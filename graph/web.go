package graph

import (
	"context"
	"fmt"
	"slices"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// ChangeVersion is a fingerprint of the sessions, edges, human messages, queues and timelines:
// it differs whenever any of them changed (a deletion included), so a reader that keeps the last
// one knows when to look again without reading what changed.
func (s *Store) ChangeVersion(ctx context.Context) (string, error) {
	return read(ctx, s, "web_change_version", func(tx txn) (string, error) {
		rec, err := tx.single("web_change_version", queries.WebChangeVersion, nil)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%v", rec.Values), nil
	})
}

// RecentLogs is the last limit entries of a session's timeline (oldest of them first) and how
// many entries the timeline holds.
func (s *Store) RecentLogs(ctx context.Context, sessionID int64, limit int) ([]session.LogEntry, int, error) {
	type tail struct {
		entries []session.LogEntry
		total   int
	}
	out, err := read(ctx, s, "web_recent_logs", func(tx txn) (tail, error) {
		recs, err := tx.collect("web_recent_logs", queries.WebRecentLogs, map[string]any{"session_id": sessionID, "limit": limit})
		if err != nil {
			return tail{}, err
		}
		var t tail
		for _, r := range recs {
			t.entries = append(t.entries, logEntry(r, sessionID))
			t.total = int(asInt(r.AsMap()["total"]))
		}
		return t, nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("recent logs of session %d: %w", sessionID, err)
	}
	return out.entries, out.total, nil
}

// UsageTotals sums a session's token ledger.
func (s *Store) UsageTotals(ctx context.Context, sessionID int64) (session.UsageTotals, error) {
	out, err := read(ctx, s, "web_usage_totals", func(tx txn) (session.UsageTotals, error) {
		rec, err := tx.single("web_usage_totals", queries.WebUsageTotals, map[string]any{"session_id": sessionID})
		if err != nil {
			return session.UsageTotals{}, err
		}
		m := rec.AsMap()
		t := session.UsageTotals{Requests: int(asInt(m["requests"])), Input: asInt(m["input"]), Output: asInt(m["output"]),
			CacheRead: asInt(m["cache_read"]), CacheCreation: asInt(m["cache_creation"])}
		models, _ := m["models"].([]any)
		for _, model := range models {
			t.Models = append(t.Models, asString(model))
		}
		slices.Sort(t.Models)
		return t, nil
	})
	if err != nil {
		return session.UsageTotals{}, fmt.Errorf("usage totals of session %d: %w", sessionID, err)
	}
	return out, nil
}
