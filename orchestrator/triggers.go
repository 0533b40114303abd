package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/trigger"
)

// Triggers: a session template plus OR-ed conditions (trigger package). Here are the operations
// REST, MCP and the web page share — create, edit, delete, toggle, read — each fenced by the
// caller's allowed agent roots (nil means unrestricted). Firing is in trigger_fire.go; the wake
// tools are in wakes.go.

// ConditionEdit is one element of a conditions upsert: with an ID it edits (or, with Remove,
// deletes) that condition; without, it appends one.
type ConditionEdit struct {
	ID     int64
	Type   trigger.Type
	Config map[string]any // nil: leave the configuration as it is
	Remove bool
}

// TriggerParams are a create's or an update's fields; a nil pointer is "not sent".
type TriggerParams struct {
	Name, AgentRootName, PromptTemplate, Status *string
	Goal                                        Opt[string]
	ReuseSession, EnqueueMessages               *bool
	ResuscitateArchived                         *bool
	LastSessionID                               Opt[int64]
	MaxSessionsPerMinute, Precedence            Opt[int64]
	SchedulingClass                             Opt[string]
	MCPServers, CatalogSkills                   *[]string
	CatalogHooks, CatalogPlugins                *[]string
	// Conditions is upserted on update; on create every element is new.
	Conditions []ConditionEdit
}

// TriggerWarning is said beside a stored trigger whose agent root the catalog does not carry.
func (s *Service) triggerWarnings(t *trigger.Trigger) []string {
	if _, ok := s.Catalog().Roots[t.AgentRootName]; ok {
		return nil
	}
	return []string{fmt.Sprintf("⚠️ agent_root_name %q does not resolve in the catalog; every fire that has to spawn a session fails until it does.", t.AgentRootName)}
}

// triggerNotFound is what a missing trigger, or one outside the caller's roots, reads as.
func triggerNotFound(id int64) error {
	return &NotFoundError{Message: fmt.Sprintf("Trigger not found: %d", id), Kind: ErrTriggerNotFound}
}

// ErrTriggerNotFound is wrapped by every missing-trigger error.
var ErrTriggerNotFound = errors.New("trigger not found")

func fenced(roots []string, root string) bool { return roots != nil && !slices.Contains(roots, root) }

func fenceRefusal(roots []string, root string) error {
	return invalid("Forbidden", fmt.Sprintf("ALLOWED_AGENT_ROOTS is set — agent root %q is not in the allowed list [%s].", root, strings.Join(roots, ", ")))
}

// CreateTrigger validates and stores a new trigger.
func (s *Service) CreateTrigger(ctx context.Context, p TriggerParams, roots []string) (*trigger.Trigger, []string, error) {
	t := &trigger.Trigger{Status: trigger.StatusEnabled}
	if err := s.applyTriggerParams(t, p, true); err != nil {
		return nil, nil, err
	}
	if fenced(roots, t.AgentRootName) {
		return nil, nil, fenceRefusal(roots, t.AgentRootName)
	}
	if err := s.validateTriggerTarget(ctx, t); err != nil {
		return nil, nil, err
	}
	saved, err := s.store.SaveTrigger(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	return saved, s.triggerWarnings(saved), nil
}

// GetTrigger reads a trigger the caller may see.
func (s *Service) GetTrigger(ctx context.Context, id int64, roots []string) (*trigger.Trigger, error) {
	t, err := s.store.GetTrigger(ctx, id)
	if errors.Is(err, graph.ErrNotFound) || (err == nil && fenced(roots, t.AgentRootName)) {
		return nil, triggerNotFound(id)
	}
	return t, err
}

// TriggerListParams filter and page the trigger list.
type TriggerListParams struct {
	Type, Status  string
	Roots         []string
	Page, PerPage int
}

// ListTriggers returns one page of triggers, newest first.
func (s *Service) ListTriggers(ctx context.Context, p TriggerListParams) ([]*trigger.Trigger, Page, error) {
	page := Page{Page: max(p.Page, 1), PerPage: p.PerPage}
	if page.PerPage < 1 || page.PerPage > MaxPerPage {
		page.PerPage = DefaultPerPage
	}
	list, total, err := s.store.ListTriggers(ctx, graph.TriggerFilter{Type: p.Type, Status: p.Status, Roots: p.Roots,
		Skip: (page.Page - 1) * page.PerPage, Limit: page.PerPage})
	if err != nil {
		return nil, Page{}, err
	}
	page.TotalCount, page.TotalPages = total, (total+page.PerPage-1)/page.PerPage
	return list, page, nil
}

// UpdateTrigger applies the fields sent; conditions are upserted.
func (s *Service) UpdateTrigger(ctx context.Context, id int64, p TriggerParams, roots []string) (*trigger.Trigger, []string, error) {
	if _, err := s.GetTrigger(ctx, id, roots); err != nil {
		return nil, nil, err
	}
	if p.AgentRootName != nil && fenced(roots, *p.AgentRootName) {
		return nil, nil, fenceRefusal(roots, *p.AgentRootName)
	}
	updated, err := s.store.UpdateTrigger(ctx, id, func(t *trigger.Trigger) error {
		if fenced(roots, t.AgentRootName) {
			return triggerNotFound(id)
		}
		return s.applyTriggerParams(t, p, false)
	})
	if errors.Is(err, graph.ErrNotFound) {
		return nil, nil, triggerNotFound(id)
	}
	if err != nil {
		return nil, nil, unwrapValidation(err)
	}
	return updated, s.triggerWarnings(updated), nil
}

// unwrapValidation returns the ValidationError or NotFoundError inside a store error, so a
// surface shows its message rather than the store's context.
func unwrapValidation(err error) error {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return ve
	}
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return nf
	}
	return err
}

// DeleteTrigger deletes a trigger and its conditions.
func (s *Service) DeleteTrigger(ctx context.Context, id int64, roots []string) error {
	if _, err := s.GetTrigger(ctx, id, roots); err != nil {
		return err
	}
	n, err := s.store.DeleteTriggers(ctx, []int64{id})
	if err == nil && n == 0 {
		return triggerNotFound(id)
	}
	return err
}

// ToggleTrigger flips enabled and disabled; a failed trigger is re-armed.
func (s *Service) ToggleTrigger(ctx context.Context, id int64, roots []string) (*trigger.Trigger, error) {
	if _, err := s.GetTrigger(ctx, id, roots); err != nil {
		return nil, err
	}
	t, err := s.store.UpdateTrigger(ctx, id, func(t *trigger.Trigger) error {
		t.Toggle()
		return nil
	})
	if errors.Is(err, graph.ErrNotFound) {
		return nil, triggerNotFound(id)
	}
	return t, err
}

// validateTriggerTarget: a reuse trigger's target must exist.
func (s *Service) validateTriggerTarget(ctx context.Context, t *trigger.Trigger) error {
	if t.LastSessionID == nil {
		return nil
	}
	if ok, err := s.store.SessionExists(ctx, *t.LastSessionID); err != nil || !ok {
		if err != nil {
			return err
		}
		return invalid("Validation failed", fmt.Sprintf("Target session %d not found", *t.LastSessionID))
	}
	return nil
}

// applyTriggerParams writes the sent fields onto t and validates the result. It is pure (an
// update runs it under the trigger's lock, perhaps more than once).
func (s *Service) applyTriggerParams(t *trigger.Trigger, p TriggerParams, creating bool) error {
	setStr := func(into *string, v *string) {
		if v != nil {
			*into = strings.TrimSpace(*v)
		}
	}
	setStr(&t.Name, p.Name)
	setStr(&t.AgentRootName, p.AgentRootName)
	if p.PromptTemplate != nil {
		t.PromptTemplate = *p.PromptTemplate
	}
	if p.Status != nil {
		st := trigger.Status(*p.Status)
		if st == trigger.StatusFailed || !slices.Contains(trigger.Statuses, st) {
			return invalid("Validation failed", "status must be enabled or disabled (failed is Zimmer's to set)")
		}
		if st != t.Status {
			t.Status, t.FailedAt, t.LastError = st, nil, ""
		}
	}
	if p.Goal.Set {
		t.Goal = blankToNil(p.Goal.Value)
	}
	for _, b := range []struct {
		into *bool
		v    *bool
	}{{&t.ReuseSession, p.ReuseSession}, {&t.EnqueueMessages, p.EnqueueMessages}, {&t.ResuscitateArchived, p.ResuscitateArchived}} {
		if b.v != nil {
			*b.into = *b.v
		}
	}
	if p.LastSessionID.Set {
		t.LastSessionID = p.LastSessionID.Value
	}
	if p.MaxSessionsPerMinute.Set {
		t.MaxSessionsPerMinute = p.MaxSessionsPerMinute.Value
		t.ResetBurst() // a re-saved cap starts a fresh window
	}
	if p.Precedence.Set {
		t.Precedence = p.Precedence.Value
	}
	if p.SchedulingClass.Set {
		t.SchedulingClass = p.SchedulingClass.Value
	}
	var bad problems
	cat := s.Catalog()
	for _, l := range []struct {
		name  string
		v     *[]string
		into  *[]string
		known func(string) bool
	}{
		{"mcp_servers", p.MCPServers, &t.MCPServers, func(id string) bool { _, ok := cat.MCPServers[id]; return ok }},
		{"catalog_skills", p.CatalogSkills, &t.CatalogSkills, func(id string) bool { _, ok := cat.Skills[id]; return ok }},
		{"catalog_hooks", p.CatalogHooks, &t.CatalogHooks, func(id string) bool { _, ok := cat.Hooks[id]; return ok }},
		{"catalog_plugins", p.CatalogPlugins, &t.CatalogPlugins, func(id string) bool { _, ok := cat.Plugins[id]; return ok }},
	} {
		if l.v == nil {
			continue
		}
		for _, id := range *l.v {
			if !l.known(id) {
				bad.add(fmt.Sprintf("Unknown %s id %q", l.name, id))
			}
		}
		*l.into = slices.Clone(*l.v)
	}
	if err := upsertConditions(t, p.Conditions, creating); err != nil {
		return err
	}
	for _, msg := range trigger.Validate(t) {
		bad.add(msg)
	}
	return bad.err("Validation failed")
}

// pollerStateKeys are a condition's keys Zimmer's pollers own; an edit that omits them keeps them.
var pollerStateKeys = []string{"channel_timestamps", "thread_timestamps", "bot_activity_timestamps", "participating_threads",
	"dm_timestamps", "seen_items", "seen_missing_counts", "last_issue_at", "seen_issue_keys", "baselined"}

// upsertConditions applies a conditions upsert (see ConditionEdit).
func upsertConditions(t *trigger.Trigger, edits []ConditionEdit, creating bool) error {
	seen := map[int64]bool{}
	for i, e := range edits {
		switch {
		case e.ID == 0 && e.Remove:
			return invalid("Validation failed", fmt.Sprintf("conditions[%d] has remove without an id: name the condition to delete.", i))
		case e.ID != 0 && creating:
			return invalid("Validation failed", fmt.Sprintf("conditions[%d] carries an id; a new trigger's conditions are all new.", i))
		case e.ID != 0 && seen[e.ID]:
			return invalid("Validation failed", fmt.Sprintf("conditions[%d] names condition %d a second time.", i, e.ID))
		case e.Type != "" && !e.Type.Valid():
			return invalid("Validation failed", fmt.Sprintf("conditions[%d] has an unknown trigger_type %q.", i, e.Type))
		}
		seen[e.ID] = true
		if e.ID == 0 {
			if e.Type == "" {
				return invalid("Validation failed", fmt.Sprintf("conditions[%d] is missing \"trigger_type\".", i))
			}
			if e.Config == nil {
				return invalid("Validation failed", fmt.Sprintf("conditions[%d] is missing \"configuration\".", i))
			}
			for _, c := range t.Conditions {
				if c.Type == e.Type && equalConfig(c.Config, e.Config) {
					return invalid("Validation failed", fmt.Sprintf("conditions[%d] is identical to condition %d; send its id to edit it instead.", i, c.ID))
				}
			}
			t.Conditions = append(t.Conditions, trigger.Condition{Type: e.Type, Config: maps.Clone(e.Config)})
			continue
		}
		c, ok := t.Condition(e.ID)
		if !ok {
			ids := make([]string, len(t.Conditions))
			for j, c := range t.Conditions {
				ids[j] = fmt.Sprint(c.ID)
			}
			return invalid("Validation failed", fmt.Sprintf("conditions[%d] references condition %d, which does not belong to trigger %d (its conditions are: %s).",
				i, e.ID, t.ID, strings.Join(ids, ", ")))
		}
		if e.Remove {
			t.Conditions = slices.DeleteFunc(t.Conditions, func(c trigger.Condition) bool { return c.ID == e.ID })
			continue
		}
		if e.Type != "" && e.Type != c.Type {
			c.Type, c.Config = e.Type, map[string]any{}
		}
		if e.Config != nil {
			merged := maps.Clone(e.Config)
			for _, k := range pollerStateKeys {
				if _, sent := merged[k]; !sent && c.Config[k] != nil {
					merged[k] = c.Config[k]
				}
			}
			c.Config = merged
		}
	}
	return nil
}

func equalConfig(a, b map[string]any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }
