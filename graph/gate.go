package graph

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// InsertGateDecision stores a decision as an agent recorded it. Its HumanFeedback is not
// written: the browser's SetGateFeedback is the one writer of that field.
func (s *Store) InsertGateDecision(ctx context.Context, d session.GateDecision) (session.GateDecision, error) {
	details, err := json.Marshal(d.Details)
	if err != nil {
		return session.GateDecision{}, fmt.Errorf("gate decision details: %w", err)
	}
	out, err := write(ctx, s, "insert_gate_decision", func(tx txn) (session.GateDecision, error) {
		rec, err := tx.single("insert_gate_decision", queries.InsertGateDecision, map[string]any{"props": map[string]any{
			"surface": d.Surface, "decision": d.Decision, "rationale": d.Rationale, "details_json": string(details),
			"session_id": optValue(d.SessionID), "recorded_by": optValue(d.RecordedBy), "recorded_by_root": d.RecordedByRoot,
			"created_at": s.now().UTC(),
		}})
		if err != nil {
			return session.GateDecision{}, err
		}
		return recordGateDecision(rec)
	})
	if err != nil {
		return session.GateDecision{}, fmt.Errorf("record gate decision: %w", err)
	}
	return out, nil
}

// GateQuery filters the ledger; empty fields match everything.
type GateQuery struct {
	ID                       int64
	Surface, Decision, Query string // Query: a case-insensitive substring
	WithFeedback             bool
	Offset, Limit            int
}

// SearchGateDecisions returns one page of matching decisions, newest first, and how many match.
func (s *Store) SearchGateDecisions(ctx context.Context, q GateQuery) ([]session.GateDecision, int, error) {
	type found struct {
		list  []session.GateDecision
		total int
	}
	out, err := read(ctx, s, "search_gate_decisions", func(tx txn) (found, error) {
		rec, err := tx.single("search_gate_decisions", queries.SearchGateDecisions, map[string]any{
			"id": nonZero(q.ID), "surface": nonBlank(q.Surface), "decision": nonBlank(q.Decision), "query": nonBlank(q.Query),
			"with_feedback": q.WithFeedback, "skip": q.Offset, "limit": q.Limit,
		})
		if err != nil {
			return found{}, err
		}
		total, _, _ := neo4j.GetRecordValue[int64](rec, "total")
		nodes, _, err := neo4j.GetRecordValue[[]any](rec, "page")
		if err != nil {
			return found{}, fmt.Errorf("read gate decisions: %w", err)
		}
		f := found{total: int(total)}
		for _, n := range nodes {
			node, _ := n.(neo4j.Node)
			f.list = append(f.list, gateDecisionFromProps(node.Props))
		}
		return f, nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("search gate decisions: %w", err)
	}
	return out.list, out.total, nil
}

// SetGateFeedback records a human's correction of a decision (ErrNotFound for an unknown id).
func (s *Store) SetGateFeedback(ctx context.Context, id int64, feedback, by string) (session.GateDecision, error) {
	out, err := write(ctx, s, "set_gate_feedback", func(tx txn) (session.GateDecision, error) {
		rec, err := tx.single("set_gate_feedback", queries.SetGateFeedback, map[string]any{
			"id": id, "feedback": feedback, "by": by, "at": s.now().UTC()})
		if err != nil {
			return session.GateDecision{}, err
		}
		return recordGateDecision(rec)
	})
	if err != nil {
		return session.GateDecision{}, fmt.Errorf("gate decision %d feedback: %w", id, err)
	}
	return out, nil
}

func nonZero(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

func nonBlank(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func recordGateDecision(rec *neo4j.Record) (session.GateDecision, error) {
	node, _, err := neo4j.GetRecordValue[neo4j.Node](rec, "g")
	if err != nil {
		return session.GateDecision{}, fmt.Errorf("read gate decision node: %w", err)
	}
	return gateDecisionFromProps(node.Props), nil
}

func gateDecisionFromProps(p map[string]any) session.GateDecision {
	var details map[string]any
	_ = json.Unmarshal([]byte(asString(p["details_json"])), &details) // written by InsertGateDecision from a map
	return session.GateDecision{
		ID: asInt(p["id"]), Surface: asString(p["surface"]), Decision: asString(p["decision"]), Rationale: asString(p["rationale"]),
		Details: details, SessionID: optInt(p["session_id"]), RecordedBy: optInt(p["recorded_by"]),
		RecordedByRoot: asString(p["recorded_by_root"]), CreatedAt: asTime(p["created_at"]),
		HumanFeedback: asString(p["human_feedback"]), FeedbackBy: asString(p["feedback_by"]), FeedbackAt: optTime(p["feedback_at"]),
	}
}
