package graph

import (
	"context"
	"fmt"
	"slices"

	"github.com/zimmerhq/zimmer/queries"
)

// Census is a cheap summary of the whole graph: equal censuses before and after an operation
// mean it created or deleted no node, no relationship and drew no id from any sequence.
type Census struct {
	Nodes, Relationships int64
	Counters             []string // "name=value", sorted
}

// Census counts the graph.
func (s *Store) Census(ctx context.Context) (Census, error) {
	out, err := read(ctx, s, "census", func(tx txn) (Census, error) {
		rec, err := tx.single("census", queries.Census, nil)
		if err != nil {
			return Census{}, err
		}
		m := rec.AsMap()
		c := Census{Nodes: asInt(m["nodes"]), Relationships: asInt(m["relationships"])}
		c.Counters = asStrings(m["counters"])
		slices.Sort(c.Counters)
		return c, nil
	})
	if err != nil {
		return Census{}, fmt.Errorf("census: %w", err)
	}
	return out, nil
}
