package graph

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// Hierarchy walks the bounded lineage graph around a session in one read transaction.
func (s *Store) Hierarchy(ctx context.Context, id int64) (*lineage.Hierarchy, error) {
	h, err := read(ctx, s, "hierarchy", func(tx txn) (*lineage.Hierarchy, error) {
		return lineage.Walk(lineageSource{tx}, id)
	})
	if err != nil {
		return nil, fmt.Errorf("hierarchy of session %d: %w", id, err)
	}
	return h, nil
}

// SessionHierarchy reads a session and walks its hierarchy in one read
// transaction: what GET /sessions/:id and get_session show.
func (s *Store) SessionHierarchy(ctx context.Context, id int64) (*session.Session, *lineage.Hierarchy, error) {
	type both struct {
		s *session.Session
		h *lineage.Hierarchy
	}
	out, err := read(ctx, s, "session_hierarchy", func(tx txn) (both, error) {
		sess, err := getSession(tx, id)
		if err != nil {
			return both{}, err
		}
		h, err := lineage.Walk(lineageSource{tx}, sess.ID)
		return both{sess, h}, err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("session %d with its hierarchy: %w", id, err)
	}
	return out.s, out.h, nil
}

// lineageSource answers the walk's questions inside one transaction.
type lineageSource struct{ tx txn }

func (l lineageSource) SpawnChain(id int64) ([]int64, error) {
	rec, err := l.tx.single("spawn_chain", queries.SpawnChain, map[string]any{"id": id})
	if err != nil {
		return nil, err
	}
	raw, _, err := neo4j.GetRecordValue[[]any](rec, "chain")
	if err != nil {
		return nil, err
	}
	return int64s(raw), nil
}

func (l lineageSource) Seniors(ids []int64) ([]lineage.Link, error) {
	rows, err := l.rows("lineage_seniors", queries.LineageSeniors, map[string]any{"ids": ids}, "links")
	if err != nil {
		return nil, err
	}
	links := make([]lineage.Link, 0, len(rows))
	for _, m := range rows {
		links = append(links, lineage.Link{From: asInt(m["from"]), To: asInt(m["to"]), Kind: asString(m["kind"])})
	}
	return links, nil
}

func (l lineageSource) Juniors(ids, seen []int64, limit int) ([]lineage.Link, error) {
	rows, err := l.rows("lineage_juniors", queries.LineageJuniors, map[string]any{"ids": ids, "seen": seen, "limit": limit}, "juniors")
	if err != nil {
		return nil, err
	}
	var links []lineage.Link
	for _, m := range rows {
		to := asInt(m["to"])
		for _, raw := range m["links"].([]any) {
			lk := raw.(map[string]any)
			links = append(links, lineage.Link{From: asInt(lk["from"]), To: to, Kind: asString(lk["kind"])})
		}
	}
	return links, nil
}

func (l lineageSource) Nodes(ids []int64) (map[int64]lineage.NodeData, error) {
	rows, err := l.rows("lineage_nodes", queries.LineageNodes, map[string]any{"ids": ids}, "nodes")
	if err != nil {
		return nil, err
	}
	out := make(map[int64]lineage.NodeData, len(rows))
	for _, m := range rows {
		n := lineage.NodeData{
			ID: asInt(m["id"]), Title: asString(m["title"]), AgentRoot: asString(m["agent_root"]),
			Status: asString(m["status"]), Genesis: asString(m["genesis"]), ParentID: optInt(m["parent_id"]),
			UncleIDs: int64s(m["uncle_ids"].([]any)),
		}
		class := session.Genesis(n.Genesis).DefaultClass()
		if c := asString(m["scheduling_class"]); c != "" {
			class = session.Class(c)
		}
		n.Class = string(class)
		out[n.ID] = n
	}
	return out, nil
}

// rows runs a statement that returns one record holding a list of maps under key.
func (l lineageSource) rows(name, cypher string, params map[string]any, key string) ([]map[string]any, error) {
	rec, err := l.tx.single(name, cypher, params)
	if err != nil {
		return nil, err
	}
	list, _, err := neo4j.GetRecordValue[[]any](rec, key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := make([]map[string]any, 0, len(list))
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %s holds a %T, not a map", name, key, item)
		}
		out = append(out, m)
	}
	return out, nil
}

func int64s(raw []any) []int64 {
	out := make([]int64, 0, len(raw))
	for _, v := range raw {
		out = append(out, asInt(v))
	}
	return out
}
