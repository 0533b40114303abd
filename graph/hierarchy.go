package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
)

// Hierarchy walks the bounded lineage graph around a session.
func (s *Store) Hierarchy(ctx context.Context, id int64) (*lineage.Hierarchy, error) {
	v, err := s.view(ctx, id, 0)
	if err != nil {
		return nil, fmt.Errorf("hierarchy of session %d: %w", id, err)
	}
	return v.Hierarchy, nil
}

// SessionHierarchy reads a session and walks its hierarchy: what GET /sessions/:id and
// get_session show.
func (s *Store) SessionHierarchy(ctx context.Context, id int64) (*session.Session, *lineage.Hierarchy, error) {
	p, err := s.SessionProvenance(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return p.Session, p.Hierarchy, nil
}

// view runs the one statement behind every lineage read: the session, its walk, the human
// messages said anywhere in it, the roster, the head of its queue, its category and its
// status summary. One round trip and a commit, so the counts, the tree and the roster describe
// the same moment.
func (s *Store) view(ctx context.Context, id int64, queuePreview int) (SessionView, error) {
	return read(ctx, s, "session_provenance", func(tx txn) (SessionView, error) {
		rec, err := tx.single("session_provenance", queries.SessionProvenance, map[string]any{
			"id": id, "max_depth": lineage.MaxDepth, "max_nodes": lineage.MaxNodes,
			"pending": session.MessagePending, "queue_preview": max(queuePreview, 0)})
		if err != nil {
			return SessionView{}, err
		}
		return tx.decodeView(rec)
	})
}

// decodeView reads the statement's one record; the values are walked once, in place.
func (tx txn) decodeView(rec *neo4j.Record) (SessionView, error) {
	sess, err := tx.session(rec, "s")
	if err != nil {
		return SessionView{}, err
	}
	get := func(key string) any { v, _ := rec.Get(key); return v }
	h := &lineage.Hierarchy{SessionID: sess.ID, OriginID: asInt(get("origin")), RootIDs: int64s(list(get("roots"))),
		Truncated: get("truncated") == true}
	o, err := tx.overrides()
	if err != nil {
		return SessionView{}, err
	}
	nodes := list(get("nodes"))
	h.Nodes = make([]lineage.Node, 0, len(nodes))
	for _, raw := range nodes {
		row := list(raw)
		if len(row) != nodeFields+2 {
			return SessionView{}, fmt.Errorf("session_provenance: a walk node of %d values, want %d", len(row), nodeFields+2)
		}
		n := lineage.Node{NodeData: nodeData(row, o), Depth: int(asInt(row[nodeFields]))}
		if u := optInt(row[nodeFields+1]); u != nil {
			n.Under = *u
		}
		h.Nodes = append(h.Nodes, n)
	}
	h.Complete()
	msgs := list(get("messages"))
	p := Provenance{Session: sess, Hierarchy: h, Messages: make([]roster.Message, 0, len(msgs))}
	for _, raw := range msgs {
		m, _ := raw.(map[string]any)
		p.Messages = append(p.Messages, messageFrom(m))
	}
	users := list(get("users"))
	p.Users = make([]roster.User, 0, len(users))
	for _, raw := range users {
		m, _ := raw.(map[string]any)
		p.Users = append(p.Users, userFrom(m))
	}
	summary, _ := get("status_summary").(map[string]any)
	v := SessionView{Provenance: p, PendingTotal: int(asInt(get("pending_total"))),
		StatusSummary: statusSummaryFrom(summary)}
	if c, ok := get("category").(neo4j.Node); ok {
		cat := categoryFrom(c.Props)
		v.Category = &cat
	}
	for _, raw := range list(get("pending")) {
		if node, ok := raw.(neo4j.Node); ok {
			v.Pending = append(v.Pending, nodeMessage(node.Props))
		}
	}
	return v, nil
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func timeOf(v any) time.Time {
	t, _ := v.(time.Time)
	return t.UTC()
}

func int64s(raw []any) []int64 {
	out := make([]int64, 0, len(raw))
	for _, v := range raw {
		out = append(out, asInt(v))
	}
	return out
}
