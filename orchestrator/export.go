package orchestrator

import (
	"context"
	"time"

	"github.com/zimmerhq/zimmer/provenance"
)

// ExportProvenance is a session's provenance as a W3C PROV-JSON document: its hierarchy (now,
// or as of asOf when that is not zero) with every edge between its sessions — removed uncle
// edges with when and by whom — and the human-message records with their chain digests.
// baseURL names the sessions by their REST URLs.
func (s *Service) ExportProvenance(ctx context.Context, id int64, asOf time.Time, baseURL string) (map[string]any, error) {
	var rec provenance.Record
	var err error
	if asOf.IsZero() {
		rec, err = s.Provenance(ctx, id)
	} else {
		rec, err = s.ProvenanceAsOf(ctx, id, asOf)
	}
	if err != nil {
		return nil, err
	}
	edges, records, err := s.store.ProvenanceRecords(ctx, rec.Hierarchy.SessionIDs(), asOf)
	if err != nil {
		return nil, err
	}
	if !asOf.IsZero() {
		edges = provenance.EdgesAsOf(edges, asOf)
	}
	users, err := s.store.Users(ctx)
	if err != nil {
		return nil, err
	}
	return provenance.ProvJSON(provenance.Export{BaseURL: baseURL, Nodes: rec.Hierarchy.Nodes, Edges: edges,
		Records: records, Users: users}), nil
}
