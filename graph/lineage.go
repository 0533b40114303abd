package graph

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
)

// UncleResult is what RecordUncleEdge decided, named as in the decision table.
type UncleResult string

// Results of RecordUncleEdge.
const (
	UncleNoActor  UncleResult = "no_actor_declared"
	UncleSelf     UncleResult = "self"
	UncleAlready  UncleResult = "already_senior"
	UncleInverted UncleResult = "inverted"
	UncleCycle    UncleResult = "would_create_cycle"
	UncleCreated  UncleResult = "created"
)

// errInversionRefused rolls back an inversion whose re-check found a longer path.
var errInversionRefused = errors.New("inversion refused")

// RecordUncleEdge records senior as an additional senior of junior, following the decision
// table: nothing for self or when senior already reaches junior; inversion of a direct
// junior → senior edge, rolled back if junior still reaches senior by a longer path; refusal
// when junior reaches senior; otherwise a new edge. An unknown senior is "no actor"; an
// unknown junior is ErrNotFound. One statement locks both ends and decides the senior's side;
// the cycle check and the write follow in a second (see guardEdge).
func (s *Store) RecordUncleEdge(ctx context.Context, senior, junior int64, source string) (UncleResult, error) {
	if senior == junior {
		return UncleSelf, nil
	}
	res, err := write(ctx, s, "record_uncle_edge", func(tx txn) (UncleResult, error) {
		rec, err := tx.single("record_uncle_edge", queries.RecordUncleEdge, map[string]any{"senior": senior, "junior": junior})
		if err != nil {
			return "", err
		}
		f := rec.AsMap()
		switch {
		case f["junior_exists"] != true:
			return "", fmt.Errorf("junior session %d: %w", junior, ErrNotFound)
		case f["senior_exists"] != true:
			return UncleNoActor, nil
		case f["senior_reaches"] == true:
			return UncleAlready, nil
		case f["direct_reverse"] == true:
			return invert(tx, senior, junior, source, s.now().UTC())
		}
		cycle, err := guardEdge(tx, senior, junior, &newUncle{source: source, at: s.now().UTC()})
		switch {
		case err != nil:
			return "", err
		case cycle:
			return UncleCycle, nil
		}
		return UncleCreated, nil
	})
	if errors.Is(err, errInversionRefused) {
		s.log.Info(fmt.Sprintf("Refused to invert #%d → #%d: #%d stays senior to #%d by another path, so the reverse would close a cycle",
			junior, senior, junior, senior))
		return UncleCycle, nil
	}
	if err != nil {
		return "", fmt.Errorf("record uncle edge %d→%d: %w", senior, junior, err)
	}
	return res, nil
}

// invert replaces the direct edge junior → senior by senior → junior, unless junior still
// reaches senior by a longer path once the direct edge is gone: then the whole transaction is
// rolled back (errInversionRefused), because the reverse edge would close a cycle. The replaced
// edge is retired, not deleted, so the lineage before the inversion can still be read.
func invert(tx txn, senior, junior int64, source string, at time.Time) (UncleResult, error) {
	by := fmt.Sprintf("inversion: #%d queued or interrupted #%d", senior, junior)
	if _, err := retireUncle(tx, junior, senior, at, by, source); err != nil {
		return "", err
	}
	cycle, err := guardEdge(tx, senior, junior, &newUncle{source: source, at: at})
	switch {
	case err != nil:
		return "", err
	case cycle:
		return "", errInversionRefused
	}
	return UncleInverted, nil
}

// newUncle is the uncle edge guardEdge writes once it knows the edge closes no cycle.
type newUncle struct {
	source string
	at     time.Time
}

// guardRounds bounds how often guardEdge widens its search before it gives up (an error, so
// nothing is written): the side it locks grows only while other writers extend it, and every
// round holds the locks of the previous ones, so it settles in one round unless the graph is
// being rebuilt around it.
const guardRounds = 8

// guardEdge decides whether the edge senior → junior would close a cycle, exactly and safely
// under concurrent writers, and writes it as an uncle edge when it would not and add is given.
// Both sessions exist and this transaction holds their locks (every edge writer locks both ends
// first). The check locks no lineage-wide lock, only one side of the edge (lineage_guard):
//
// Claim: no commit ever leaves a cycle. Suppose one did, and let T be the transaction that
// committed the last edge e = a → b of some cycle C; every other edge of C committed before T.
// Say T locked the down side S: the sessions reachable from b, found again after every one of
// them was locked with a ∉ S. Walk C from b to a: b = v0 → v1 → … → vk = a. If vi ∈ S, the
// transaction U that added vi → vi+1 held vi's lock, as T did from before its second search
// until its commit; U committed before T did, so U released vi before T took it, and T's second
// search saw vi → vi+1: vi+1 ∈ S. By induction a ∈ S, a contradiction. The up side (the
// sessions that reach a, b outside them) is the mirror image, walking C backwards from a.
// Removing edges never closes a cycle; a session created with a spawn parent locks the parent.
func guardEdge(tx txn, senior, junior int64, add *newUncle) (cycle bool, err error) {
	params := map[string]any{"senior": senior, "junior": junior, "create": add != nil, "source": "", "at": nil}
	if add != nil {
		params["source"], params["at"] = add.source, add.at
	}
	limit := 256
	for range guardRounds {
		params["limit"] = limit
		rec, err := tx.single("lineage_guard", queries.LineageGuard, params)
		if err != nil {
			return false, err
		}
		f := rec.AsMap()
		switch {
		case f["reaches"] == true:
			return true, nil
		case f["settled"] != true:
			limit *= 8
			continue
		case add != nil && f["created"] != true:
			return false, fmt.Errorf("uncle edge %d→%d was neither refused nor written", senior, junior)
		}
		return false, nil
	}
	return false, fmt.Errorf("cycle check of %d→%d did not settle: the lineage around it kept growing", senior, junior)
}

// UncleEdge describes one recorded uncle edge.
type UncleEdge struct {
	Senior, Junior int64
	Source         string
	CreatedAt      time.Time
}

// RemoveUncleEdge takes exactly the edge senior → junior out of the lineage, keeping it as a
// former edge with the time, by (who removed it) and via (the entry point). A missing edge is
// ErrNotFound, and then reverse says whether junior → senior exists instead (it is never touched).
func (s *Store) RemoveUncleEdge(ctx context.Context, senior, junior int64, by, via string) (removed UncleEdge, reverse bool, err error) {
	type result struct {
		edge           UncleEdge
		found, reverse bool
	}
	out, err := write(ctx, s, "remove_uncle_edge", func(tx txn) (result, error) {
		edge, err := retireUncle(tx, senior, junior, s.now().UTC(), by, via)
		if errors.Is(err, ErrNotFound) {
			back, berr := tx.collect("uncle_edge", queries.UncleEdge, map[string]any{"senior": junior, "junior": senior})
			return result{reverse: len(back) > 0}, berr
		}
		return result{edge: edge, found: true}, err
	})
	if err != nil {
		return UncleEdge{}, false, fmt.Errorf("remove uncle edge %d→%d: %w", senior, junior, err)
	}
	if !out.found {
		return UncleEdge{}, out.reverse, fmt.Errorf("remove uncle edge %d→%d: %w", senior, junior, ErrNotFound)
	}
	return out.edge, false, nil
}

// retireUncle turns the live edge senior → junior into a former one; ErrNotFound when there is none.
func retireUncle(tx txn, senior, junior int64, at time.Time, by, via string) (UncleEdge, error) {
	rec, err := tx.single("retire_uncle_edge", queries.RetireUncleEdge, map[string]any{
		"senior": senior, "junior": junior, "at": at, "by": by, "via": via})
	if err != nil {
		return UncleEdge{}, err
	}
	created, _, _ := neo4j.GetRecordValue[time.Time](rec, "created_at")
	src, _ := rec.Get("source")
	return UncleEdge{Senior: senior, Junior: junior, Source: asString(src), CreatedAt: created.UTC()}, nil
}
