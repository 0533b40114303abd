package graph

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// RecordTokenUsage upserts the rows on request_id and attaches them to the session; a row
// another session recorded first stays that session's, and rows already in the ledger keep
// their volumes (a stamped row may still correct an older row's flush time). The days it
// touched are re-summed into the session's spend summaries in the same transaction. It
// returns how many of the rows the session owns.
func (s *Store) RecordTokenUsage(ctx context.Context, sessionID int64, rows []session.TokenUsage) (int, error) {
	if len(rows) == 0 {
		return 0, nil
	}
	params := make([]map[string]any, len(rows))
	for i, r := range rows {
		params[i] = map[string]any{
			"request_id": r.RequestID, "model": r.Model, "agent_runtime": r.AgentRuntime, "agent_root": r.AgentRoot,
			"runtime_session_id": r.RuntimeSessionID, "transcript_path": r.TranscriptPath, "service_tier": r.ServiceTier,
			"called_at": r.CalledAt.UTC(), "stamped": r.Stamped,
			"input_tokens": r.InputTokens, "output_tokens": r.OutputTokens,
			"cache_read_tokens": r.CacheReadTokens, "cache_creation_tokens": r.CacheCreationTokens,
			"cache_creation_5m_tokens": r.CacheCreation5mTokens, "cache_creation_1h_tokens": r.CacheCreation1hTokens,
			"web_search_requests": r.WebSearchRequests, "web_fetch_requests": r.WebFetchRequests,
		}
	}
	n, err := write(ctx, s, "record_token_usage", func(tx txn) (int64, error) {
		at := s.now().UTC()
		rec, err := tx.single("record_token_usage", queries.RecordTokenUsage, map[string]any{"session_id": sessionID, "rows": params, "at": at})
		if err != nil {
			return 0, err
		}
		n, _, err := neo4j.GetRecordValue[int64](rec, "recorded")
		if err != nil {
			return 0, err
		}
		days, _ := rec.Get("days")
		return n, tx.summarizeSpend([]any{sessionID}, daySpans(list(days)), at)
	})
	if err != nil {
		return 0, fmt.Errorf("record token usage of session %d: %w", sessionID, err)
	}
	return int(n), nil
}

// summarizeSpend re-sums the sessions' ledger rows on spans into their spend summaries and
// repacks their cost summaries, in the caller's transaction: the summaries commit with the rows
// they sum. summarize_spend takes each session's lock before reading its ledger.
func (t txn) summarizeSpend(sessionIDs []any, spans []any, at time.Time) error {
	if len(sessionIDs) == 0 || len(spans) == 0 {
		return nil
	}
	if _, err := t.single("summarize_spend", queries.SummarizeSpend, map[string]any{"session_ids": sessionIDs, "spans": spans, "at": at}); err != nil {
		return err
	}
	return t.rebuildCostSummaries(sessionIDs)
}

// daySpans turns days (dates, repeats allowed) into one [day, next day) span each.
func daySpans(days []any) []any {
	seen := map[neo4j.Date]bool{}
	spans := make([]any, 0, len(days))
	for _, d := range days {
		day, ok := d.(neo4j.Date)
		if !ok || seen[day] {
			continue
		}
		seen[day] = true
		spans = append(spans, []any{day, neo4j.DateOf(day.Time().AddDate(0, 0, 1))})
	}
	return spans
}

// everyDay spans every day a ledger row can fall on.
var everyDay = []any{[]any{neo4j.DateOf(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)), neo4j.DateOf(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))}}

// summarizeLedger builds the spend summaries of a ledger written before they existed; a
// migration step that runs once and, if interrupted, starts over on the next start.
func (s *Store) summarizeLedger(ctx context.Context) error {
	return s.migrateSessions(ctx, "summarize_ledger", queries.UnsummarizedSessions, "Summarizing the token ledger by day for the cost reports", 200,
		func(tx txn, ids []any, at time.Time) error { return tx.summarizeSpend(ids, everyDay, at) })
}

// packCostSummaries packs the cost summaries of sessions recorded before summaries existed or
// in an older format, and drops the CostSummary nodes summaries were once kept on; a migration
// step like summarizeLedger, after it.
func (s *Store) packCostSummaries(ctx context.Context) error {
	return s.migrateSessions(ctx, "pack_cost_summaries", queries.UncostedSessions, "Packing each session's cost summary for the cost reports", 200,
		func(tx txn, ids []any, _ time.Time) error {
			if err := tx.rebuildCostSummaries(ids); err != nil {
				return err
			}
			_, err := tx.collect("drop_cost_summary_nodes", queries.DropCostSummaryNodes, map[string]any{"session_ids": ids})
			return err
		})
}

// migrateSessions runs a once-only migration over sessions, batch sessions per transaction:
// page returns the next batch after $after (none when done, and marks it so; $migration is op),
// step migrates it. It says how far it got every few thousand sessions.
func (s *Store) migrateSessions(ctx context.Context, op, page, what string, batch int, step func(tx txn, ids []any, at time.Time) error) error {
	every := 25 * batch
	after, total := int64(math.MinInt64), 0
	for {
		ids, err := write(ctx, s, op, func(tx txn) ([]any, error) {
			at := s.now().UTC()
			rec, err := tx.single(op, page, map[string]any{"migration": op, "after": after, "limit": batch, "at": at})
			if err != nil {
				return nil, err
			}
			v, _ := rec.Get("ids")
			ids := list(v)
			if len(ids) == 0 {
				return nil, nil
			}
			return ids, step(tx, ids, at)
		})
		if err != nil {
			return fmt.Errorf("%s after session %d: %w", what, after, err)
		}
		if len(ids) == 0 {
			if total > 0 {
				s.log.Info(what+": done", "sessions", total)
			}
			return nil
		}
		if total == 0 {
			s.log.Info(what + " (once, after an upgrade)")
		}
		total += len(ids)
		if total%every < batch {
			s.log.Info(what, "sessions_done", total)
		}
		after = asInt(ids[len(ids)-1])
	}
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
			rows = append(rows, usageOf(node.Props))
		}
		return rows, nil
	})
	if err != nil {
		return nil, fmt.Errorf("token usage of session %d: %w", sessionID, err)
	}
	return out, nil
}

// usageOf reads a ledger row's properties.
func usageOf(p map[string]any) session.TokenUsage {
	return session.TokenUsage{
		RequestID: asString(p["request_id"]), SessionID: asInt(p["session_id"]), Model: asString(p["model"]), AgentRuntime: asString(p["agent_runtime"]),
		AgentRoot: asString(p["agent_root"]), RuntimeSessionID: asString(p["runtime_session_id"]),
		TranscriptPath: asString(p["transcript_path"]), ServiceTier: asString(p["service_tier"]), CalledAt: asTime(p["called_at"]),
		Stamped: p["stamped"] == true, TokenCounts: tokenCounts(p),
	}
}

// tokenCounts reads the volume columns a ledger row or a cost group carries.
func tokenCounts(p map[string]any) session.TokenCounts {
	return session.TokenCounts{InputTokens: asInt(p["input_tokens"]), OutputTokens: asInt(p["output_tokens"]),
		CacheReadTokens: asInt(p["cache_read_tokens"]), CacheCreationTokens: asInt(p["cache_creation_tokens"]),
		CacheCreation5mTokens: asInt(p["cache_creation_5m_tokens"]), CacheCreation1hTokens: asInt(p["cache_creation_1h_tokens"]),
		WebSearchRequests: asInt(p["web_search_requests"]), WebFetchRequests: asInt(p["web_fetch_requests"])}
}
