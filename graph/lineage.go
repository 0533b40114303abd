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
// unknown junior is ErrNotFound. One statement (guard_lineage_edge) locks, decides exactly and
// writes, in an auto-commit transaction; a managed transaction takes over only for an
// inversion, when a concurrent writer moved the ground under the statement, or on a failure
// the driver would retry.
func (s *Store) RecordUncleEdge(ctx context.Context, senior, junior int64, source string) (UncleResult, error) {
	if senior == junior {
		return UncleSelf, nil
	}
	res, ok, err := s.recordUncleAlone(ctx, senior, junior, source)
	if err != nil {
		return "", fmt.Errorf("record uncle edge %d→%d: %w", senior, junior, err)
	}
	if ok {
		return res, nil
	}
	res, err = write(ctx, s, "record_uncle_edge", func(tx txn) (UncleResult, error) {
		g, err := guardEdge(tx, senior, junior, source, true)
		if err != nil {
			return "", err
		}
		res, err := g.uncleResult(senior, junior)
		if res == UncleInverted {
			return invert(tx, senior, junior, source)
		}
		return res, err
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

// recordUncleAlone runs guard_lineage_edge once as its own transaction: the statement locks,
// decides and writes, so its commit is the transaction's, and an explicit one would only add a
// round trip. ok is false, with nothing written, when the managed path must take over: an
// inversion (two statements that stand or fall together), an unstable pass, or a failure the
// driver would retry.
func (s *Store) recordUncleAlone(ctx context.Context, senior, junior int64, source string) (res UncleResult, ok bool, err error) {
	tx, done := s.alone(ctx, neo4j.AccessModeWrite, "record_uncle_edge")
	defer done()
	g, stable, err := guardOnce(tx, senior, junior, source, true)
	switch {
	case retriable(err):
		return "", false, nil
	case err != nil:
		return "", false, translate(err)
	case !stable:
		return "", false, nil
	}
	res, err = g.uncleResult(senior, junior)
	if res == UncleInverted {
		return "", false, nil
	}
	return res, true, err
}

// uncleResult reads the decision table off a settled guard; UncleInverted means an inversion is
// due, which the caller makes.
func (g edgeGuard) uncleResult(senior, junior int64) (UncleResult, error) {
	switch {
	case !g.juniorExists:
		return "", fmt.Errorf("junior session %d: %w", junior, ErrNotFound)
	case !g.seniorExists:
		return UncleNoActor, nil
	case g.seniorReaches:
		return UncleAlready, nil
	case g.reverse:
		return UncleInverted, nil
	case g.juniorReaches:
		return UncleCycle, nil
	case !g.created:
		return "", fmt.Errorf("uncle edge %d→%d was neither refused nor written", senior, junior)
	}
	return UncleCreated, nil
}

// invert replaces the direct edge junior → senior by senior → junior, unless junior still
// reaches senior by a longer path once the direct edge is gone: then the whole transaction is
// rolled back (errInversionRefused), because the reverse edge would close a cycle. The replaced
// edge is retired, not deleted, so the lineage before the inversion can still be read.
func invert(tx txn, senior, junior int64, source string) (UncleResult, error) {
	by := fmt.Sprintf("inversion: #%d queued or interrupted #%d", senior, junior)
	if _, err := retireUncle(tx, junior, senior, tx.s.now().UTC(), by, source); err != nil {
		return "", err
	}
	g, err := guardEdge(tx, senior, junior, source, true)
	switch {
	case err != nil:
		return "", err
	case g.juniorReaches:
		return "", errInversionRefused
	case !g.created:
		return "", fmt.Errorf("inverted uncle edge %d→%d was neither refused nor written", senior, junior)
	}
	return UncleInverted, nil
}

// edgeGuard is guard_lineage_edge's decision on a new lineage edge senior → junior.
type edgeGuard struct {
	seniorExists, juniorExists, seniorReaches, reverse, juniorReaches, created bool
}

// certificateCap is how many sessions on each side guard_lineage_edge reads before it settles
// for the junior's whole side: enough that an ordinary edge locks its smaller side, few enough
// that the first read of a very wide side stops early.
const certificateCap = 1000

// certificateSmall is the size of the junior's side below which guard_lineage_edge takes it
// without reading the senior's: locking a few more sessions costs less than a second read.
const certificateSmall = 64

// guardEdge locks the ends of the new lineage edge senior → junior and decides it exactly until
// the transaction commits (guard_lineage_edge.cypher says why); with uncle, it writes the uncle
// edge when that is safe. It runs the statement again only when another writer changed the side
// between the statement's read and its locks; the locks taken stay held, and a pass can be
// unstable only when some other writer committed meanwhile, so there is no budget after which the
// answer lapses.
func guardEdge(tx txn, senior, junior int64, source string, uncle bool) (edgeGuard, error) {
	for {
		g, stable, err := guardOnce(tx, senior, junior, source, uncle)
		if err != nil || stable {
			return g, err
		}
		if err := tx.ctx.Err(); err != nil {
			return edgeGuard{}, err
		}
	}
}

// guardOnce runs guard_lineage_edge once; stable is false when its answer does not hold yet.
func guardOnce(tx txn, senior, junior int64, source string, uncle bool) (g edgeGuard, stable bool, err error) {
	rec, err := tx.single("guard_lineage_edge", queries.GuardLineageEdge, map[string]any{
		"senior": senior, "junior": junior, "uncle": uncle, "source": source, "at": tx.s.now().UTC(), "cap": certificateCap, "small": certificateSmall,
		"wide": wideSenior})
	if err != nil {
		return edgeGuard{}, false, fmt.Errorf("guard lineage edge %d→%d: %w", senior, junior, err)
	}
	f := rec.AsMap()
	g = edgeGuard{seniorExists: f["senior_exists"] == true, juniorExists: f["junior_exists"] == true,
		seniorReaches: f["senior_reaches"] == true, reverse: f["direct_reverse"] == true,
		juniorReaches: f["junior_reaches"] == true, created: f["created"] == true}
	return g, f["stable"] == true || g.juniorReaches, nil
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
		// No lineage lock: taking an edge away cannot close a cycle.
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
