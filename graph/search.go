package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// SearchFilter selects sessions for quick search. Query is the lowercased phrase for titles and
// JSONQuery the same phrase in the JSON columns' stored spelling; empty strings and an empty
// Statuses list match everything.
type SearchFilter struct {
	Query, JSONQuery                                 string
	Statuses                                         []string
	AgentRuntime, Genesis, PriorityClass, Visibility string
	ShowArchived, ByPrecedence                       bool
	// The web UI's list filters (SearchSessions only): "" / nil / false match every session.
	AgentRoot     string
	CategoryID    *int64
	FavoritesOnly bool
}

func (f SearchFilter) params() map[string]any {
	statuses := f.Statuses
	if statuses == nil {
		statuses = []string{}
	}
	return map[string]any{
		"query": f.Query, "json_query": f.JSONQuery, "statuses": statuses, "agent_runtime": f.AgentRuntime,
		"genesis": f.Genesis, "priority_class": f.PriorityClass, "visibility": f.Visibility,
		"show_archived": f.ShowArchived, "by_precedence": f.ByPrecedence,
		"agent_root": f.AgentRoot, "category_id": f.CategoryID, "favorites_only": f.FavoritesOnly,
	}
}

// SearchSessions returns one page of matches and the total count of the filter.
func (s *Store) SearchSessions(ctx context.Context, f SearchFilter, skip, limit int) ([]*session.Session, int, error) {
	p := f.params()
	p["skip"], p["limit"] = skip, limit
	return s.sessionPage(ctx, "search_sessions", queries.SearchSessions, p)
}

// Scanned is one candidate of a content scan and whether its title or JSON columns matched.
type Scanned struct {
	Session *session.Session
	Matched bool
}

// ScanSessions returns up to limit sessions passing f with an id below before, newest first.
func (s *Store) ScanSessions(ctx context.Context, f SearchFilter, before int64, limit int) ([]Scanned, error) {
	out, err := read(ctx, s, "scan_sessions", func(tx txn) ([]Scanned, error) {
		p := f.params()
		p["before"], p["limit"] = before, limit
		geneses, err := tx.spotGeneses()
		if err != nil {
			return nil, err
		}
		p["spot_geneses"] = geneses
		recs, err := tx.collect("scan_sessions", queries.ScanSessions, p)
		if err != nil {
			return nil, err
		}
		batch := make([]Scanned, 0, len(recs))
		for _, rec := range recs {
			sess, err := tx.session(rec, "s")
			if err != nil {
				return nil, err
			}
			matched, _, _ := neo4j.GetRecordValue[bool](rec, "matched")
			batch = append(batch, Scanned{Session: sess, Matched: matched})
		}
		return batch, nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan sessions below %d: %w", before, err)
	}
	return out, nil
}

func (t txn) nodeSessions(nodes []any) ([]*session.Session, error) {
	out := make([]*session.Session, 0, len(nodes))
	for _, n := range nodes {
		node, ok := n.(neo4j.Node)
		if !ok {
			return nil, errors.New("session row is not a node")
		}
		sess, err := t.sessionOf(node.Props)
		if err != nil {
			return nil, err
		}
		out = append(out, sess)
	}
	return out, nil
}
