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
// unknown junior is ErrNotFound. One statement decides and writes the common case; it takes
// the lineage lock only when the edge could close a cycle at all (see record_uncle_edge.cypher).
func (s *Store) RecordUncleEdge(ctx context.Context, senior, junior int64, source string) (UncleResult, error) {
	if senior == junior {
		return UncleSelf, nil
	}
	res, err := write(ctx, s, "record_uncle_edge", func(tx txn) (UncleResult, error) {
		rec, err := tx.single("record_uncle_edge", queries.RecordUncleEdge, map[string]any{
			"senior": senior, "junior": junior, "source": source, "at": s.now().UTC()})
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
			return invert(tx, senior, junior, source, s.now)
		case f["junior_reaches"] == true:
			return UncleCycle, nil
		case f["created"] != true:
			return "", fmt.Errorf("uncle edge %d→%d was neither refused nor written", senior, junior)
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

// invert replaces the direct edge junior → senior by senior → junior (under the lineage lock,
// which record_uncle_edge took: a direct reverse edge makes the write risky), unless junior still
// reaches senior by a longer path once the direct edge is gone: then the whole transaction is
// rolled back (errInversionRefused), because the reverse edge would close a cycle. The replaced
// edge is retired, not deleted, so the lineage before the inversion can still be read.
func invert(tx txn, senior, junior int64, source string, now func() time.Time) (UncleResult, error) {
	by := fmt.Sprintf("inversion: #%d queued or interrupted #%d", senior, junior)
	if _, err := retireUncle(tx, junior, senior, now().UTC(), by, source); err != nil {
		return "", err
	}
	if ok, err := reaches(tx, junior, senior); err != nil {
		return "", err
	} else if ok {
		return "", errInversionRefused
	}
	return UncleInverted, createUncle(tx, senior, junior, source, now)
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
		if err := lockLineage(tx); err != nil {
			return result{}, err
		}
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

func lockLineage(tx txn) error {
	_, err := tx.single("lock_lineage", queries.LockLineage, nil)
	return err
}

// reaches reports whether from reaches to over spawn and uncle edges; completely, at any depth.
func reaches(tx txn, from, to int64) (bool, error) {
	if from == to {
		return true, nil
	}
	rec, err := tx.single("reaches", queries.Reaches, map[string]any{"from": from, "to": to})
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	ok, _, err := neo4j.GetRecordValue[bool](rec, "reaches")
	return ok, err
}

func createUncle(tx txn, senior, junior int64, source string, now func() time.Time) error {
	_, err := tx.single("create_uncle_edge", queries.CreateUncleEdge, map[string]any{
		"senior": senior, "junior": junior, "source": source, "at": now().UTC(),
	})
	return err
}
