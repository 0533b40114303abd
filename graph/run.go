package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// RecordTokenUsage upserts the rows on request_id and attaches them to the session; rows
// already in the ledger are left as they are. It returns how many rows the session now links.
func (s *Store) RecordTokenUsage(ctx context.Context, sessionID int64, rows []session.TokenUsage) (int, error) {
	if len(rows) == 0 {
		return 0, nil
	}
	params := make([]map[string]any, len(rows))
	for i, r := range rows {
		params[i] = map[string]any{
			"request_id": r.RequestID, "model": r.Model, "agent_runtime": r.AgentRuntime, "agent_root": r.AgentRoot,
			"runtime_session_id": r.RuntimeSessionID, "transcript_path": r.TranscriptPath, "called_at": r.CalledAt.UTC(),
			"input_tokens": r.InputTokens, "output_tokens": r.OutputTokens,
			"cache_read_tokens": r.CacheReadTokens, "cache_creation_tokens": r.CacheCreationTokens,
		}
	}
	n, err := write(ctx, s, "record_token_usage", func(tx txn) (int64, error) {
		rec, err := tx.single("record_token_usage", queries.RecordTokenUsage,
			map[string]any{"session_id": sessionID, "rows": params, "at": s.now().UTC()})
		if err != nil {
			return 0, err
		}
		n, _, err := neo4j.GetRecordValue[int64](rec, "recorded")
		return n, err
	})
	if err != nil {
		return 0, fmt.Errorf("record token usage of session %d: %w", sessionID, err)
	}
	return int(n), nil
}

// SessionTokenUsage reads a session's ledger, oldest request first.
func (s *Store) SessionTokenUsage(ctx context.Context, sessionID int64) ([]session.TokenUsage, error) {
	out, err := read(ctx, s, "session_token_usage", func(tx txn) ([]session.TokenUsage, error) {
		recs, err := tx.collect("session_token_usage", queries.SessionTokenUsage, map[string]any{"session_id": sessionID})
		if err != nil {
			return nil, err
		}
		rows := make([]session.TokenUsage, 0, len(recs))
		for _, rec := range recs {
			node, _, err := neo4j.GetRecordValue[neo4j.Node](rec, "u")
			if err != nil {
				return nil, err
			}
			p := node.Props
			rows = append(rows, session.TokenUsage{
				RequestID: asString(p["request_id"]), Model: asString(p["model"]), AgentRuntime: asString(p["agent_runtime"]),
				AgentRoot: asString(p["agent_root"]), RuntimeSessionID: asString(p["runtime_session_id"]),
				TranscriptPath: asString(p["transcript_path"]), CalledAt: asTime(p["called_at"]),
				InputTokens: asInt(p["input_tokens"]), OutputTokens: asInt(p["output_tokens"]),
				CacheReadTokens: asInt(p["cache_read_tokens"]), CacheCreationTokens: asInt(p["cache_creation_tokens"]),
			})
		}
		return rows, nil
	})
	if err != nil {
		return nil, fmt.Errorf("token usage of session %d: %w", sessionID, err)
	}
	return out, nil
}

// StaleRunningSessions lists one page of running sessions whose record has not changed since
// before; a non-empty scope keeps only sessions whose custom_metadata mentions it.
func (s *Store) StaleRunningSessions(ctx context.Context, before time.Time, scope string, skip, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "stale_running_sessions", queries.StaleRunningSessions,
		map[string]any{"before": before.UTC(), "scope": scope, "skip": skip, "limit": limit})
}

// StalePendingDispatches lists waiting or running sessions holding a pending dispatch, unchanged
// since before; scope as for StaleRunningSessions.
func (s *Store) StalePendingDispatches(ctx context.Context, before time.Time, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "stale_pending_dispatches", queries.StalePendingDispatches,
		map[string]any{"before": before.UTC(), "scope": scope, "limit": limit})
}

// StalePendingEffects lists sessions holding transition effects not all run, unchanged since
// before; scope as for StaleRunningSessions.
func (s *Store) StalePendingEffects(ctx context.Context, before time.Time, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "stale_pending_effects", queries.StalePendingEffects,
		map[string]any{"before": before.UTC(), "scope": scope, "limit": limit})
}

// IdleSessionsWithQueuedMessages lists idle, unpaused sessions with a pending queued message,
// unchanged since before; scope as for StaleRunningSessions.
func (s *Store) IdleSessionsWithQueuedMessages(ctx context.Context, before time.Time, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "idle_sessions_with_queued_messages", queries.IdleSessionsWithQueuedMessages,
		map[string]any{"before": before.UTC(), "scope": scope, "limit": limit})
}

// RecoveryParkedSessions lists sessions parked by a recovery path (paused_by = recovery) that
// rest in needs_input or waiting; scope as for StaleRunningSessions.
func (s *Store) RecoveryParkedSessions(ctx context.Context, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "recovery_parked_sessions", queries.RecoveryParkedSessions, map[string]any{"scope": scope, "limit": limit})
}

func (s *Store) sessionsBy(ctx context.Context, name, cypher string, params map[string]any) ([]*session.Session, error) {
	out, err := read(ctx, s, name, func(tx txn) ([]*session.Session, error) {
		recs, err := tx.collect(name, cypher, params)
		if err != nil {
			return nil, err
		}
		list := make([]*session.Session, 0, len(recs))
		for _, rec := range recs {
			sess, err := tx.session(rec, "s")
			if err != nil {
				return nil, err
			}
			list = append(list, sess)
		}
		return list, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}
