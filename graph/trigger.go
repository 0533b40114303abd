package graph

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/trigger"
)

// ErrFired means a fire's key was already claimed: another poller or an earlier delivery of the
// same task fired it.
var ErrFired = errors.New("already fired")

// SaveTrigger stores a new trigger (ID 0) or overwrites one, giving ids to new conditions.
func (s *Store) SaveTrigger(ctx context.Context, t *trigger.Trigger) (*trigger.Trigger, error) {
	out, err := write(ctx, s, "save_trigger", func(tx txn) (*trigger.Trigger, error) {
		c := cloneTrigger(t)
		if c.ID == 0 {
			last, err := nextIDs(tx, "trigger", 1)
			if err != nil {
				return nil, err
			}
			c.ID = last
			c.CreatedAt = s.now().UTC()
		}
		return s.saveTrigger(tx, c)
	})
	if err != nil {
		return nil, fmt.Errorf("save trigger %q: %w", t.Name, err)
	}
	return out, nil
}

// UpdateTrigger locks a trigger, applies mutate to a copy and stores the result in one
// transaction; mutate may run more than once and must be pure.
func (s *Store) UpdateTrigger(ctx context.Context, id int64, mutate func(*trigger.Trigger) error) (*trigger.Trigger, error) {
	out, err := write(ctx, s, "update_trigger", func(tx txn) (*trigger.Trigger, error) {
		t, err := lockTrigger(tx, id)
		if err != nil {
			return nil, err
		}
		if err := mutate(t); err != nil {
			return nil, err
		}
		t.ID = id
		return s.saveTrigger(tx, t)
	})
	if err != nil {
		return nil, fmt.Errorf("update trigger %d: %w", id, err)
	}
	return out, nil
}

// FireClaim is the mark of one fire; Release gives it back.
type FireClaim struct {
	Key, token string
}

// FireTrigger claims the fire key and, in the same transaction and under the trigger's lock,
// applies mutate (mark the condition fired, count the burst). A key already claimed is
// ErrFired and changes nothing; an error from mutate rolls the claim back too. With a wake
// target, the target session is locked first and mutate also sees the target's other wakes, so
// of two wakes of one session firing at once the second sees the first has fired.
func (s *Store) FireTrigger(ctx context.Context, id int64, key string, wakeTarget int64,
	mutate func(t *trigger.Trigger, siblings []*trigger.Trigger) error) (*trigger.Trigger, FireClaim, error) {
	c := FireClaim{Key: key, token: rand.Text()}
	now := s.now().UTC()
	out, err := write(ctx, s, "fire_trigger", func(tx txn) (*trigger.Trigger, error) {
		rec, err := tx.single("claim_trigger_fire", queries.ClaimTriggerFire,
			map[string]any{"key": key, "token": c.token, "trigger_id": id, "at": now})
		if err != nil {
			return nil, err
		}
		if !asBool(rec.Values[0]) {
			return nil, ErrFired
		}
		var siblings []*trigger.Trigger
		if wakeTarget != 0 {
			if _, err := lockSession(tx, wakeTarget); err != nil {
				return nil, err
			}
			recs, err := tx.collect("wakes_of_session", queries.WakesOfSession, map[string]any{"session_id": wakeTarget})
			if err != nil {
				return nil, err
			}
			for _, r := range recs {
				w, err := recordTrigger(r)
				if err != nil {
					return nil, err
				}
				if w.ID != id {
					siblings = append(siblings, w)
				}
			}
		}
		t, err := lockTrigger(tx, id)
		if err != nil {
			return nil, err
		}
		if err := mutate(t, siblings); err != nil {
			return nil, err
		}
		return s.saveTrigger(tx, t)
	})
	if err != nil {
		return nil, FireClaim{}, fmt.Errorf("fire trigger %d (%s): %w", id, key, err)
	}
	return out, c, nil
}

// ReleaseTriggerFire removes the mark c made, so the fire can happen again.
func (s *Store) ReleaseTriggerFire(ctx context.Context, c FireClaim) error {
	_, err := write(ctx, s, "release_trigger_fire", func(tx txn) (struct{}, error) {
		_, err := tx.collect("release_trigger_fire", queries.ReleaseTriggerFire, map[string]any{"key": c.Key, "token": c.token})
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("release trigger fire %s: %w", c.Key, err)
	}
	return nil
}

// GetTrigger reads one trigger.
func (s *Store) GetTrigger(ctx context.Context, id int64) (*trigger.Trigger, error) {
	out, err := read(ctx, s, "get_trigger", func(tx txn) (*trigger.Trigger, error) {
		rec, err := tx.single("get_trigger", queries.GetTrigger, map[string]any{"id": id})
		if err != nil {
			return nil, err
		}
		return recordTrigger(rec)
	})
	if err != nil {
		return nil, fmt.Errorf("trigger %d: %w", id, err)
	}
	return out, nil
}

// TriggerFilter selects triggers; empty strings and a nil Roots match everything.
type TriggerFilter struct {
	Type, Status string
	Roots        []string
	Skip, Limit  int
}

// ListTriggers returns one page of triggers, newest first, and the filter's total.
func (s *Store) ListTriggers(ctx context.Context, f TriggerFilter) ([]*trigger.Trigger, int, error) {
	var roots any
	if f.Roots != nil {
		roots = f.Roots
	}
	type page struct {
		list  []*trigger.Trigger
		total int
	}
	out, err := read(ctx, s, "list_triggers", func(tx txn) (page, error) {
		recs, err := tx.collect("list_triggers", queries.ListTriggers, map[string]any{"type": f.Type, "status": f.Status,
			"roots": roots, "skip": f.Skip, "limit": f.Limit})
		if err != nil {
			return page{}, err
		}
		var p page
		for _, rec := range recs {
			p.total = int(asInt(rec.Values[0]))
			if rec.Values[1] == nil {
				continue
			}
			t, err := recordTrigger(rec)
			if err != nil {
				return page{}, err
			}
			p.list = append(p.list, t)
		}
		return p, nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list triggers: %w", err)
	}
	return out.list, out.total, nil
}

// EnabledTriggersOfType lists every enabled trigger with a condition of type typ.
func (s *Store) EnabledTriggersOfType(ctx context.Context, typ trigger.Type) ([]*trigger.Trigger, error) {
	return s.triggers(ctx, "enabled_triggers_of_type", queries.EnabledTriggersOfType, map[string]any{"type": string(typ)})
}

// WakesOfSession lists the one-time triggers that resume a session.
func (s *Store) WakesOfSession(ctx context.Context, sessionID int64) ([]*trigger.Trigger, error) {
	return s.triggers(ctx, "wakes_of_session", queries.WakesOfSession, map[string]any{"session_id": sessionID})
}

func (s *Store) triggers(ctx context.Context, name, cypher string, params map[string]any) ([]*trigger.Trigger, error) {
	out, err := read(ctx, s, name, func(tx txn) ([]*trigger.Trigger, error) {
		recs, err := tx.collect(name, cypher, params)
		if err != nil {
			return nil, err
		}
		list := make([]*trigger.Trigger, 0, len(recs))
		for _, rec := range recs {
			t, err := recordTrigger(rec)
			if err != nil {
				return nil, err
			}
			list = append(list, t)
		}
		return list, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// Listener is one ao_event condition a session event reaches.
type Listener struct{ TriggerID, ConditionID int64 }

// AOEventListeners lists the enabled ao_event conditions for event that watch the session, or
// every session when it is autonomous.
func (s *Store) AOEventListeners(ctx context.Context, event string, sessionID int64, autonomous bool) ([]Listener, error) {
	out, err := read(ctx, s, "ao_event_listeners", func(tx txn) ([]Listener, error) {
		recs, err := tx.collect("ao_event_listeners", queries.AOEventListeners,
			map[string]any{"event": event, "session_id": sessionID, "autonomous": autonomous})
		if err != nil {
			return nil, err
		}
		var list []Listener
		for _, r := range recs {
			list = append(list, Listener{TriggerID: asInt(r.Values[0]), ConditionID: asInt(r.Values[1])})
		}
		return list, nil
	})
	if err != nil {
		return nil, fmt.Errorf("listeners of %s on session %d: %w", event, sessionID, err)
	}
	return out, nil
}

// WatchersOfSession lists the ids of the triggers with a condition watching the session.
func (s *Store) WatchersOfSession(ctx context.Context, sessionID int64) ([]int64, error) {
	out, err := read(ctx, s, "watchers_of_session", func(tx txn) ([]int64, error) {
		recs, err := tx.collect("watchers_of_session", queries.WatchersOfSession, map[string]any{"session_id": sessionID})
		if err != nil {
			return nil, err
		}
		ids := make([]int64, 0, len(recs))
		for _, r := range recs {
			ids = append(ids, asInt(r.Values[0]))
		}
		return ids, nil
	})
	if err != nil {
		return nil, fmt.Errorf("watchers of session %d: %w", sessionID, err)
	}
	return out, nil
}

// DeleteTriggers deletes triggers with their conditions and reports how many existed.
func (s *Store) DeleteTriggers(ctx context.Context, ids []int64) (int, error) {
	out, err := write(ctx, s, "delete_triggers", func(tx txn) (int, error) {
		rec, err := tx.single("delete_triggers", queries.DeleteTriggers, map[string]any{"ids": ids})
		if err != nil {
			return 0, err
		}
		return int(asInt(rec.Values[0])), nil
	})
	if err != nil {
		return 0, fmt.Errorf("delete triggers %v: %w", ids, err)
	}
	return out, nil
}

func nextIDs(tx txn, counter string, n int) (int64, error) {
	rec, err := tx.single("next_ids", queries.NextIDs, map[string]any{"name": counter, "n": n})
	if err != nil {
		return 0, fmt.Errorf("%s counter missing (run `zimmer migrate`): %w", counter, err)
	}
	return asInt(rec.Values[0]), nil
}

func lockTrigger(tx txn, id int64) (*trigger.Trigger, error) {
	rec, err := tx.single("lock_trigger", queries.LockTrigger, map[string]any{"id": id})
	if err != nil {
		return nil, err
	}
	return recordTrigger(rec)
}

// saveTrigger gives new conditions ids and writes the trigger.
func (s *Store) saveTrigger(tx txn, t *trigger.Trigger) (*trigger.Trigger, error) {
	fresh := 0
	for _, c := range t.Conditions {
		if c.ID == 0 {
			fresh++
		}
	}
	if fresh > 0 {
		last, err := nextIDs(tx, "trigger_condition", fresh)
		if err != nil {
			return nil, err
		}
		next := last - int64(fresh) + 1
		for i := range t.Conditions {
			if t.Conditions[i].ID == 0 {
				t.Conditions[i].ID = next
				next++
			}
		}
	}
	t.UpdatedAt = s.now().UTC()
	props, conds, err := triggerProps(t)
	if err != nil {
		return nil, err
	}
	if _, err := tx.single("save_trigger", queries.SaveTrigger, map[string]any{"id": t.ID, "props": props, "conditions": conds}); err != nil {
		return nil, err
	}
	return t, nil
}

func triggerProps(t *trigger.Trigger) (map[string]any, []any, error) {
	burst, err := json.Marshal(t.Burst)
	if err != nil {
		return nil, nil, fmt.Errorf("encode burst of trigger %d: %w", t.ID, err)
	}
	p := map[string]any{
		"id": t.ID, "name": t.Name, "status": string(t.Status), "agent_root_name": t.AgentRootName,
		"prompt_template": t.PromptTemplate, "reuse_session": t.ReuseSession, "enqueue_messages": t.EnqueueMessages,
		"resuscitate_archived": t.ResuscitateArchived, "mcp_servers": nonNil(t.MCPServers),
		"catalog_skills": nonNil(t.CatalogSkills), "catalog_hooks": nonNil(t.CatalogHooks), "catalog_plugins": nonNil(t.CatalogPlugins),
		"sessions_created_count": t.SessionsCreatedCount, "burst": string(burst), "one_time": t.OneTime(),
		"created_at": t.CreatedAt.UTC(), "updated_at": t.UpdatedAt.UTC(),
	}
	if t.LastError != "" {
		p["last_error"] = t.LastError
	}
	for k, v := range map[string]any{"failed_at": t.FailedAt, "goal": t.Goal, "last_session_id": t.LastSessionID,
		"max_sessions_per_minute": t.MaxSessionsPerMinute, "scheduling_class": t.SchedulingClass, "precedence": t.Precedence,
		"last_triggered_at": t.LastTriggeredAt} {
		if v := deref(v); v != nil {
			p[k] = v
		}
	}
	conds := make([]any, 0, len(t.Conditions))
	for _, c := range t.Conditions {
		cfg, err := json.Marshal(nonNilMap(c.Config))
		if err != nil {
			return nil, nil, fmt.Errorf("encode condition %d: %w", c.ID, err)
		}
		cp := map[string]any{"id": c.ID, "trigger_id": t.ID, "condition_type": string(c.Type), "configuration": string(cfg)}
		if ev := c.EventName(); ev != "" {
			cp["event_name"] = ev
		}
		if w := c.WatchedSessionID(); w != 0 {
			cp["watched_session_id"] = w
		}
		for k, v := range map[string]*time.Time{"last_triggered_at": c.LastTriggeredAt, "last_polled_at": c.LastPolledAt} {
			if v != nil {
				cp[k] = v.UTC()
			}
		}
		conds = append(conds, map[string]any{"id": c.ID, "props": cp})
	}
	return p, conds, nil
}

func recordTrigger(rec *neo4j.Record) (*trigger.Trigger, error) {
	node, _, err := neo4j.GetRecordValue[neo4j.Node](rec, "t")
	if err != nil {
		return nil, fmt.Errorf("read trigger node: %w", err)
	}
	p := node.Props
	t := &trigger.Trigger{
		ID: asInt(p["id"]), Name: asString(p["name"]), Status: trigger.Status(asString(p["status"])),
		FailedAt: optTime(p["failed_at"]), LastError: asString(p["last_error"]), AgentRootName: asString(p["agent_root_name"]),
		PromptTemplate: asString(p["prompt_template"]), Goal: optString(p["goal"]), ReuseSession: asBool(p["reuse_session"]),
		EnqueueMessages: asBool(p["enqueue_messages"]), ResuscitateArchived: asBool(p["resuscitate_archived"]),
		LastSessionID: optInt(p["last_session_id"]), MaxSessionsPerMinute: optInt(p["max_sessions_per_minute"]),
		SchedulingClass: optString(p["scheduling_class"]), Precedence: optInt(p["precedence"]),
		MCPServers: asStrings(p["mcp_servers"]), CatalogSkills: asStrings(p["catalog_skills"]),
		CatalogHooks: asStrings(p["catalog_hooks"]), CatalogPlugins: asStrings(p["catalog_plugins"]),
		SessionsCreatedCount: asInt(p["sessions_created_count"]), LastTriggeredAt: optTime(p["last_triggered_at"]),
		CreatedAt: asTime(p["created_at"]), UpdatedAt: asTime(p["updated_at"]),
	}
	if raw := asString(p["burst"]); raw != "" {
		if err := json.Unmarshal([]byte(raw), &t.Burst); err != nil {
			return nil, fmt.Errorf("decode burst of trigger %d: %w", t.ID, err)
		}
	}
	nodes, _, _ := neo4j.GetRecordValue[[]any](rec, "conditions")
	for _, n := range nodes {
		cn, ok := n.(neo4j.Node)
		if !ok {
			continue
		}
		c := trigger.Condition{ID: asInt(cn.Props["id"]), Type: trigger.Type(asString(cn.Props["condition_type"])),
			LastTriggeredAt: optTime(cn.Props["last_triggered_at"]), LastPolledAt: optTime(cn.Props["last_polled_at"])}
		if err := json.Unmarshal([]byte(asString(cn.Props["configuration"])), &c.Config); err != nil {
			return nil, fmt.Errorf("decode condition %d: %w", c.ID, err)
		}
		t.Conditions = append(t.Conditions, c)
	}
	slices.SortFunc(t.Conditions, func(a, b trigger.Condition) int { return cmp.Compare(a.ID, b.ID) })
	return t, nil
}

func cloneTrigger(t *trigger.Trigger) *trigger.Trigger {
	c := *t
	c.Conditions = append([]trigger.Condition(nil), t.Conditions...)
	return &c
}

// ClaimFireKeys marks fires as taken without firing them (a poller's first look at a
// condition baselines what is already there); keys already taken stay as they are.
func (s *Store) ClaimFireKeys(ctx context.Context, triggerID int64, keys []string) error {
	now := s.now().UTC()
	_, err := write(ctx, s, "claim_trigger_fires", func(tx txn) (struct{}, error) {
		for _, k := range keys {
			if _, err := tx.single("claim_trigger_fire", queries.ClaimTriggerFire,
				map[string]any{"key": k, "token": "baseline", "trigger_id": triggerID, "at": now}); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	if err != nil {
		return fmt.Errorf("baseline %d fires of trigger %d: %w", len(keys), triggerID, err)
	}
	return nil
}
