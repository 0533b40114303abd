package graph

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/queries"
)

// ImportSession is one session of a bulk import (a synthetic fleet).
type ImportSession struct {
	ID                     int64
	Title, Status, Genesis string
	AgentRoot              string
	ParentID               int64 // 0: none
}

// ImportEdge is one lineage edge of a bulk import, senior → junior.
type ImportEdge struct{ From, To int64 }

// ImportSessions bulk-creates sessions in one transaction. It exists for benchmarks and
// migrations; it writes no edges.
func (s *Store) ImportSessions(ctx context.Context, rows []ImportSession) error {
	params := make([]map[string]any, len(rows))
	var maxID int64
	for i, r := range rows {
		var parent any
		if r.ParentID > 0 {
			parent = r.ParentID
		}
		params[i] = map[string]any{"id": r.ID, "title": r.Title, "status": r.Status, "genesis": r.Genesis,
			"agent_root_key": r.AgentRoot, "parent_session_id": parent}
		maxID = max(maxID, r.ID)
	}
	_, err := write(ctx, s, "import_sessions", func(tx txn) (struct{}, error) {
		_, err := tx.collect("import_sessions", queries.ImportSessions, map[string]any{"rows": params, "at": s.now().UTC(), "max_id": maxID})
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("import %d sessions: %w", len(rows), err)
	}
	return nil
}

// ImportEdges bulk-creates lineage edges in one transaction without cycle checks: the caller
// guarantees acyclicity (a synthetic fleet only ever points from lower to higher ids).
func (s *Store) ImportEdges(ctx context.Context, spawns, uncles []ImportEdge) error {
	conv := func(es []ImportEdge) []map[string]any {
		out := make([]map[string]any, len(es))
		for i, e := range es {
			out[i] = map[string]any{"from": e.From, "to": e.To}
		}
		return out
	}
	_, err := write(ctx, s, "import_edges", func(tx txn) (struct{}, error) {
		_, err := tx.collect("import_edges", queries.ImportEdges, map[string]any{"spawns": conv(spawns), "uncles": conv(uncles), "at": s.now().UTC(), "wide": wideSenior})
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("import %d spawn and %d uncle edges: %w", len(spawns), len(uncles), err)
	}
	return nil
}

// LineageEdges returns every spawn and uncle edge as (senior, junior) pairs, for whole-graph
// verification such as an independent acyclicity check.
func (s *Store) LineageEdges(ctx context.Context) ([][2]int64, error) {
	edges, err := read(ctx, s, "lineage_edges", func(tx txn) ([][2]int64, error) {
		rec, err := tx.single("lineage_edges", queries.LineageEdges, nil)
		if err != nil {
			return nil, err
		}
		froms, tos := list(rec.Values[0]), list(rec.Values[1])
		out := make([][2]int64, len(froms))
		for i := range froms {
			out[i] = [2]int64{asInt(froms[i]), asInt(tos[i])}
		}
		return out, nil
	})
	if err != nil {
		return nil, fmt.Errorf("lineage edges: %w", err)
	}
	return edges, nil
}
