package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/provenance"
	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/roster"
)

// ProvenanceRecords reads what the provenance export shows of a set of sessions beyond their
// walk: every edge between them, removed ones included, and their human-message records with
// their chain fields (asOf non-zero: only those recorded by then).
func (s *Store) ProvenanceRecords(ctx context.Context, ids []int64, asOf time.Time) ([]provenance.Edge, []roster.Sealed, error) {
	var at any
	if !asOf.IsZero() {
		at = asOf.UTC()
	}
	type out struct {
		edges   []provenance.Edge
		records []roster.Sealed
	}
	o, err := read(ctx, s, "provenance_records", func(tx txn) (out, error) {
		var o out
		recs, err := tx.collect("lineage_among", queries.LineageAmong, map[string]any{"ids": ids})
		if err != nil {
			return o, err
		}
		for _, r := range recs {
			m := r.AsMap()
			e := provenance.Edge{Kind: asString(m["kind"]), From: asInt(m["from"]), To: asInt(m["to"]), Source: asString(m["source"]),
				CreatedAt: timeOf(m["created_at"]), RemovedBy: asString(m["removed_by"]), RemovedVia: asString(m["removed_via"])}
			if t, ok := m["removed_at"].(time.Time); ok {
				t = t.UTC()
				e.RemovedAt = &t
			}
			o.edges = append(o.edges, e)
		}
		recs, err = tx.collect("sealed_human_messages", queries.SealedHumanMessages, map[string]any{"session_ids": ids, "as_of": at})
		if err != nil {
			return o, err
		}
		for _, r := range recs {
			raw, _ := r.Get("record")
			o.records = append(o.records, sealedFrom(raw.(map[string]any)))
		}
		return o, nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("provenance records of %d sessions: %w", len(ids), err)
	}
	return o.edges, o.records, nil
}
