package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// SaveOutcomeAnalysis stores a session's new current analysis and reports whether it
// superseded one.
func (s *Store) SaveOutcomeAnalysis(ctx context.Context, a session.OutcomeAnalysis) (session.OutcomeAnalysis, bool, error) {
	tree, err := json.Marshal(a.Root)
	if err != nil {
		return session.OutcomeAnalysis{}, false, fmt.Errorf("outcome tree: %w", err)
	}
	st := a.Root.Stats()
	type saved struct {
		a          session.OutcomeAnalysis
		superseded bool
	}
	out, err := write(ctx, s, "insert_outcome_analysis", func(tx txn) (saved, error) {
		at := s.now().UTC()
		rec, err := tx.single("insert_outcome_analysis", queries.InsertOutcomeAnalysis, map[string]any{
			"session_id": a.SessionID, "at": at, "props": map[string]any{
				"session_id": a.SessionID, "analyzer_session_id": optValue(a.AnalyzerID), "schema_version": a.SchemaVersion,
				"tree_json": string(tree), "notes": optValue(a.Notes), "root_outcome": a.Root.Outcome.Kind,
				"segments": st.Segments, "failures": st.Failures, "successes": st.Successes, "max_depth": st.MaxDepth,
				"agent_root": a.AgentRoot, "agent_runtime": a.AgentRuntime, "model": a.Model, "created_at": at,
			}})
		if err != nil {
			return saved{}, err
		}
		n, _, _ := neo4j.GetRecordValue[int64](rec, "superseded")
		got, err := recordOutcome(rec)
		return saved{got, n > 0}, err
	})
	if err != nil {
		return session.OutcomeAnalysis{}, false, fmt.Errorf("save outcome analysis of session %d: %w", a.SessionID, err)
	}
	return out.a, out.superseded, nil
}

// OutcomeFilter narrows the list; zero fields match everything.
type OutcomeFilter struct {
	From, To                                *time.Time
	AgentRoot, AgentRuntime, Model, Outcome string
	Limit                                   int
}

// ListOutcomeAnalyses returns current analyses, newest first.
func (s *Store) ListOutcomeAnalyses(ctx context.Context, f OutcomeFilter) ([]session.OutcomeAnalysis, error) {
	out, err := read(ctx, s, "list_outcome_analyses", func(tx txn) ([]session.OutcomeAnalysis, error) {
		recs, err := tx.collect("list_outcome_analyses", queries.ListOutcomeAnalyses, map[string]any{
			"from": optValue(f.From), "to": optValue(f.To), "agent_root": nonBlank(f.AgentRoot),
			"agent_runtime": nonBlank(f.AgentRuntime), "model": nonBlank(f.Model), "outcome": nonBlank(f.Outcome), "limit": f.Limit,
		})
		if err != nil {
			return nil, err
		}
		list := make([]session.OutcomeAnalysis, 0, len(recs))
		for _, rec := range recs {
			a, err := recordOutcome(rec)
			if err != nil {
				return nil, err
			}
			list = append(list, a)
		}
		return list, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list outcome analyses: %w", err)
	}
	return out, nil
}

// OutcomeAnalysisOf reads a session's current analysis (ErrNotFound when it has none).
func (s *Store) OutcomeAnalysisOf(ctx context.Context, sessionID int64) (session.OutcomeAnalysis, error) {
	out, err := read(ctx, s, "get_outcome_analysis", func(tx txn) (session.OutcomeAnalysis, error) {
		rec, err := tx.single("get_outcome_analysis", queries.GetOutcomeAnalysis, map[string]any{"session_id": sessionID})
		if err != nil {
			return session.OutcomeAnalysis{}, err
		}
		return recordOutcome(rec)
	})
	if err != nil {
		return session.OutcomeAnalysis{}, fmt.Errorf("outcome analysis of session %d: %w", sessionID, err)
	}
	return out, nil
}

func recordOutcome(rec *neo4j.Record) (session.OutcomeAnalysis, error) {
	node, _, err := neo4j.GetRecordValue[neo4j.Node](rec, "a")
	if err != nil {
		return session.OutcomeAnalysis{}, fmt.Errorf("read outcome analysis node: %w", err)
	}
	p := node.Props
	a := session.OutcomeAnalysis{
		ID: asInt(p["id"]), SessionID: asInt(p["session_id"]), AnalyzerID: optInt(p["analyzer_session_id"]),
		SchemaVersion: asString(p["schema_version"]), Notes: optString(p["notes"]), AgentRoot: asString(p["agent_root"]),
		AgentRuntime: asString(p["agent_runtime"]), Model: asString(p["model"]), CreatedAt: asTime(p["created_at"]),
	}
	if err := json.Unmarshal([]byte(asString(p["tree_json"])), &a.Root); err != nil {
		return session.OutcomeAnalysis{}, fmt.Errorf("outcome analysis %d: tree: %w", a.ID, err)
	}
	return a, nil
}
