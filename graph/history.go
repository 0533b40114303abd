package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// ProvenanceAsOf reads a session's provenance as it stood at asOf: the hierarchy over the spawn
// edges and the uncle edges live then (a removed edge counts until its removal), and the human
// messages recorded by then. The walk is package lineage's own, a level per statement, inside one
// read transaction; an audit read, so round trips are not counted. The session and the nodes'
// titles and statuses are today's. A session created after asOf is ErrNotFound.
func (s *Store) ProvenanceAsOf(ctx context.Context, id int64, asOf time.Time) (Provenance, error) {
	asOf = asOf.UTC()
	p, err := read(ctx, s, "provenance_as_of", func(tx txn) (Provenance, error) {
		rec, err := tx.single("get_session", queries.GetSession, map[string]any{"id": id})
		if err != nil {
			return Provenance{}, err
		}
		sess, err := tx.session(rec, "s")
		if err != nil {
			return Provenance{}, err
		}
		src := asOfSource{tx: tx, at: asOf}
		// The walk's own "not found" is no sentinel; a session not yet created must be ErrNotFound.
		if chain, err := src.SpawnChain(id); err != nil {
			return Provenance{}, err
		} else if len(chain) == 0 {
			return Provenance{}, ErrNotFound
		}
		h, err := lineage.Walk(src, id)
		if err != nil {
			return Provenance{}, err
		}
		msgs, err := humanMessages(tx, h.SessionIDs(), asOf)
		if err != nil {
			return Provenance{}, err
		}
		users, err := listUsers(tx)
		return Provenance{Session: sess, Hierarchy: h, Messages: msgs, Users: users}, err
	})
	if err != nil {
		return Provenance{}, fmt.Errorf("provenance of session %d as of %s: %w", id, asOf.Format(time.RFC3339), err)
	}
	return p, nil
}

// asOfSource answers the walk's questions about the lineage as it stood at one time.
type asOfSource struct {
	tx txn
	at time.Time
}

func (a asOfSource) SpawnChain(id int64) ([]int64, error) {
	rec, err := a.tx.single("as_of_spawn_chain", queries.AsOfSpawnChain, map[string]any{"id": id, "as_of": a.at})
	if errors.Is(err, ErrNotFound) {
		return nil, nil // the walk says the session is missing
	}
	if err != nil {
		return nil, err
	}
	ids, _ := rec.Get("ids")
	return int64s(list(ids)), nil
}

func (a asOfSource) Seniors(ids []int64) ([]lineage.Link, error) {
	return a.links("as_of_seniors", queries.AsOfSeniors, map[string]any{"ids": ids, "as_of": a.at})
}

func (a asOfSource) Juniors(ids, seen []int64, limit int) ([]lineage.Link, error) {
	return a.links("as_of_juniors", queries.AsOfJuniors, map[string]any{"ids": ids, "seen": seen, "limit": limit, "as_of": a.at})
}

func (a asOfSource) links(name, cypher string, params map[string]any) ([]lineage.Link, error) {
	recs, err := a.tx.collect(name, cypher, params)
	if err != nil {
		return nil, err
	}
	out := make([]lineage.Link, 0, len(recs))
	for _, r := range recs {
		m := r.AsMap()
		out = append(out, lineage.Link{From: asInt(m["from"]), To: asInt(m["to"]), Kind: asString(m["kind"])})
	}
	return out, nil
}

func (a asOfSource) Nodes(ids []int64) (map[int64]lineage.NodeData, error) {
	recs, err := a.tx.collect("as_of_nodes", queries.AsOfNodes, map[string]any{"ids": ids, "as_of": a.at})
	if err != nil {
		return nil, err
	}
	o, err := a.tx.overrides()
	if err != nil {
		return nil, err
	}
	out := make(map[int64]lineage.NodeData, len(recs))
	for _, r := range recs {
		d := nodeData(r.Values, o)
		out[d.ID] = d
	}
	return out, nil
}

// nodeFields is how many values begin every walk node as both lineage reads return it: id,
// title, agent_root, status, genesis, scheduling_class, parent_id, uncle_ids.
const nodeFields = 8

// nodeData reads one walk node from its first nodeFields values; the scheduling class is the
// session's own, else the one its genesis derives under the overrides o.
func nodeData(v []any, o session.ClassOverrides) lineage.NodeData {
	d := lineage.NodeData{
		ID: asInt(v[0]), Title: asString(v[1]), AgentRoot: asString(v[2]), Status: asString(v[3]),
		Genesis: asString(v[4]), ParentID: optInt(v[6]), UncleIDs: int64s(list(v[7])),
	}
	slices.Sort(d.UncleIDs) // session_provenance returns them as the edges come
	class := o.Of(session.Genesis(d.Genesis))
	if c := asString(v[5]); c != "" {
		class = session.Class(c)
	}
	d.Class = string(class)
	return d
}
