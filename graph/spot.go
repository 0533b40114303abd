package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/settings"
)

// classesFresh is how long a store trusts the genesis class overrides it last read. Every
// session read derives its class from them; another process's change reaches this one's
// reads within this long, this process's own at once.
const classesFresh = 2 * time.Second

// classCache holds the overrides the store last read.
type classCache struct {
	mu   sync.Mutex
	o    session.ClassOverrides
	read time.Time
}

func (c *classCache) get() (session.ClassOverrides, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.o, c.o != nil && time.Since(c.read) < classesFresh
}

func (c *classCache) put(o session.ClassOverrides) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.o, c.read = o, time.Now()
}

// overrides are the genesis class overrides in force, read in this transaction unless the
// store's copy is fresh.
func (t txn) overrides() (session.ClassOverrides, error) {
	if o, ok := t.s.classes.get(); ok {
		return o, nil
	}
	p, err := t.spotPolicy()
	if err != nil {
		return nil, err
	}
	return p.GenesisClasses, nil
}

func (t txn) spotPolicy() (settings.Spot, error) {
	rec, err := t.single("get_spot_policy", queries.GetSpotPolicy, map[string]any{"name": t.s.settings})
	if err != nil {
		return settings.Spot{}, err
	}
	p, err := spotPolicyOf(rec)
	if err != nil {
		return settings.Spot{}, err
	}
	t.s.classes.put(p.GenesisClasses)
	return p, nil
}

// session reads the session under key, its class derived under the overrides in force.
func (t txn) session(rec *neo4j.Record, key string) (*session.Session, error) {
	node, _, err := neo4j.GetRecordValue[neo4j.Node](rec, key)
	if err != nil {
		return nil, fmt.Errorf("read session node: %w", err)
	}
	return t.sessionOf(node.Props)
}

func (t txn) sessionOf(props map[string]any) (*session.Session, error) {
	sess, err := nodeSession(props)
	if err != nil {
		return nil, err
	}
	o, err := t.overrides()
	if err != nil {
		return nil, err
	}
	sess.GenesisClass = o.Of(sess.Genesis)
	return sess, nil
}

// spotGeneses are the genesis kinds whose sessions derive spot now: what a statement filtering
// on the class in force compares a session's genesis with.
func (t txn) spotGeneses() ([]string, error) {
	o, err := t.overrides()
	if err != nil {
		return nil, err
	}
	return o.GenesesOfClass(session.ClassSpot), nil
}

// SpotPolicy reads the spot gate's policy; settings never written read as their defaults.
func (s *Store) SpotPolicy(ctx context.Context) (settings.Spot, error) {
	out, err := read(ctx, s, "get_spot_policy", func(tx txn) (settings.Spot, error) { return tx.spotPolicy() })
	if err != nil {
		return settings.Spot{}, fmt.Errorf("read the spot policy: %w", err)
	}
	return out, nil
}

// UpdateSpotPolicy applies a change, validated against the policy as it stands in the same
// transaction, and returns the policy as it now is. An invalid change is ErrInvalid with every
// reason, and writes nothing.
func (s *Store) UpdateSpotPolicy(ctx context.Context, c settings.SpotChange) (settings.Spot, error) {
	out, err := write(ctx, s, "update_spot_policy", func(tx txn) (settings.Spot, error) {
		cur, err := tx.spotPolicy()
		if err != nil {
			return settings.Spot{}, err
		}
		next, bad := cur.Apply(c)
		if len(bad) > 0 {
			return settings.Spot{}, &SpotPolicyError{Messages: bad}
		}
		overrides, err := json.Marshal(next.GenesisClasses)
		if err != nil {
			return settings.Spot{}, err
		}
		rec, err := tx.single("update_spot_policy", queries.UpdateSpotPolicy, map[string]any{"name": s.settings,
			"enabled": next.GatingEnabled, "five_hour_pct": next.FiveHourTargetPct, "weekly_pct": next.WeeklyTargetPct,
			"max_concurrent": next.MaxConcurrent, "overrides": string(overrides), "at": s.now().UTC()})
		if err != nil {
			return settings.Spot{}, err
		}
		return spotPolicyOf(rec)
	})
	if err != nil {
		return settings.Spot{}, fmt.Errorf("update the spot policy: %w", err)
	}
	s.classes.put(out.GenesisClasses)
	return out, nil
}

func spotPolicyOf(rec *neo4j.Record) (settings.Spot, error) {
	p := settings.DefaultSpot()
	get := func(k string) any { v, _ := rec.Get(k); return v }
	if v, ok := get("enabled").(bool); ok {
		p.GatingEnabled = v
	}
	for k, into := range map[string]*int{"five_hour_pct": &p.FiveHourTargetPct, "weekly_pct": &p.WeeklyTargetPct, "max_concurrent": &p.MaxConcurrent} {
		if v, ok := get(k).(int64); ok {
			*into = int(v)
		}
	}
	if raw, ok := get("overrides").(string); ok && raw != "" {
		if err := json.Unmarshal([]byte(raw), &p.GenesisClasses); err != nil {
			return settings.Spot{}, fmt.Errorf("decode genesis_class_overrides: %w", err)
		}
	}
	p.UpdatedAt = optTime(get("updated_at"))
	return p, nil
}

// SpotPolicyError lists why a spot policy change was refused.
type SpotPolicyError struct{ Messages []string }

func (e *SpotPolicyError) Error() string { return fmt.Sprintf("invalid spot policy: %v", e.Messages) }

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *SpotPolicyError) Unwrap() error { return ErrInvalid }

// PoolLoad is how many sessions run on one runtime's account pool, and how many of them are
// parked to leave at the end of their turn.
type PoolLoad struct {
	Running, Leaving int
}

// SpotRunningPools counts running sessions per runtime, within scope (” for all).
func (s *Store) SpotRunningPools(ctx context.Context, scope string) (map[string]PoolLoad, error) {
	out, err := read(ctx, s, "spot_running_pools", func(tx txn) (map[string]PoolLoad, error) {
		recs, err := tx.collect("spot_running_pools", queries.SpotRunningPools, map[string]any{"scope": scope})
		if err != nil {
			return nil, err
		}
		pools := make(map[string]PoolLoad, len(recs))
		for _, r := range recs {
			m := r.AsMap()
			pools[asString(m["runtime"])] = PoolLoad{Running: int(asInt(m["running"])), Leaving: int(asInt(m["leaving"]))}
		}
		return pools, nil
	})
	if err != nil {
		return nil, fmt.Errorf("count running sessions per runtime: %w", err)
	}
	return out, nil
}

// SpotRunningSessions lists up to limit running spot sessions of runtime not yet parked, lowest
// ranked first.
func (s *Store) SpotRunningSessions(ctx context.Context, runtime, scope string, limit int) ([]*session.Session, error) {
	return read(ctx, s, "spot_running_sessions", func(tx txn) ([]*session.Session, error) {
		geneses, err := tx.spotGeneses()
		if err != nil {
			return nil, err
		}
		recs, err := tx.collect("spot_running_sessions", queries.SpotRunningSessions,
			map[string]any{"runtime": runtime, "scope": scope, "spot_geneses": geneses, "limit": limit})
		if err != nil {
			return nil, fmt.Errorf("running spot sessions of %s: %w", runtime, err)
		}
		out := make([]*session.Session, 0, len(recs))
		for _, rec := range recs {
			sess, err := tx.session(rec, "s")
			if err != nil {
				return nil, err
			}
			out = append(out, sess)
		}
		return out, nil
	})
}

// WindowTokens are the tokens one runtime spent in the 5-hour and weekly windows.
type WindowTokens struct {
	FiveHour, Weekly int64
}

// LedgerTokensSince sums the token ledger per runtime over the two windows.
func (s *Store) LedgerTokensSince(ctx context.Context, fiveHour, weekly time.Time) (map[string]WindowTokens, error) {
	out, err := read(ctx, s, "spot_ledger_usage", func(tx txn) (map[string]WindowTokens, error) {
		recs, err := tx.collect("spot_ledger_usage", queries.SpotLedgerUsage,
			map[string]any{"five_hour_since": fiveHour.UTC(), "weekly_since": weekly.UTC()})
		if err != nil {
			return nil, err
		}
		sums := make(map[string]WindowTokens, len(recs))
		for _, r := range recs {
			m := r.AsMap()
			sums[asString(m["runtime"])] = WindowTokens{FiveHour: asInt(m["five_hour"]), Weekly: asInt(m["weekly"])}
		}
		return sums, nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the token ledger's quota windows: %w", err)
	}
	return out, nil
}

// SpotQueue returns one page of the ranked spot queue and its length, within scope.
func (s *Store) SpotQueue(ctx context.Context, scope string, skip, limit int) ([]*session.Session, int, error) {
	return s.sessionPage(ctx, "spot_queue", queries.SpotQueue, map[string]any{"scope": scope, "skip": skip, "limit": limit})
}

// SpotCensus counts the sessions the gate holds, by reason, and the ones parked in the queue.
func (s *Store) SpotCensus(ctx context.Context) (held map[string]int, queued int, err error) {
	type census struct {
		held   map[string]int
		queued int
	}
	out, err := read(ctx, s, "spot_census", func(tx txn) (census, error) {
		rec, err := tx.single("spot_census", queries.SpotCensus, nil)
		if err != nil {
			return census{}, err
		}
		c := census{held: map[string]int{}}
		for _, h := range list(rec.AsMap()["held"]) {
			m, _ := h.(map[string]any)
			c.held[asString(m["reason"])] = int(asInt(m["sessions"]))
		}
		c.queued = int(asInt(rec.AsMap()["queued"]))
		return c, nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("count held and queued spot sessions: %w", err)
	}
	return out.held, out.queued, nil
}
