package orchestrator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
)

// CreateParams are the arguments of a session create, shared by REST and MCP start_session.
// A nil pointer means "omitted"; for the lists that differs from an explicit empty list.
type CreateParams struct {
	AgentRoot, AgentRuntime, Prompt, GitRoot, Branch, Subdirectory *string
	Title, Slug, Goal, ExecutionProvider, SchedulingClass, Place   *string
	IdempotencyKey                                                 *string
	IsAutonomous                                                   *bool
	ParentSessionID, AutoCompactWindow, Precedence                 *int64
	MCPServers, CatalogSkills, CatalogHooks, CatalogPlugins        *[]string
	Config, CustomMetadata                                         map[string]any
	// Genesis is stamped by the surface (REST: api) and used when no parent is given.
	Genesis session.Genesis
	// ExplicitGenesis is a genesis the creator declares (the web UI, a trigger's fire): it wins
	// over a parent's, and then the parent's explicit class is not inherited either.
	ExplicitGenesis session.Genesis
	// captured runs once a new session is stored and before its first run is queued, so a
	// human message recorded there is in the record the first prompt reads. Only the capture
	// boundaries of this package set it (capture.go); no transport can.
	captured delivered
	// metadata is merged into the new session's metadata: a trigger stamps trigger_id and
	// trigger_name (trigger_fire.go). No transport can set it.
	metadata map[string]any
}

// Created is the outcome of Create.
type Created struct {
	Session *session.Session
	// Existing is true when idempotency_key matched: no new session, no new job.
	Existing bool
	// JobQueued says whether an agent run is queued (or running) for the session.
	JobQueued bool
	Warnings  []string
}

// PlaceTopOfSpot slots a session above every live spot session.
const PlaceTopOfSpot = "top_of_spot"

// topOfSpotMargin is how far above the current top a "top_of_spot" session lands.
const topOfSpotMargin = 5

// Create validates p, stores the session and, when it has a prompt, queues its first run. Every
// surface creates through it (REST, MCP, the web UI, forks, triggers), so it is where creations
// are counted.
func (s *Service) Create(ctx context.Context, p CreateParams) (Created, error) {
	out, err := s.create(ctx, p)
	if err == nil && out.Session != nil {
		result := "created"
		if out.Existing {
			result = "replayed"
		}
		s.obs.ObserveSessionCreated(string(out.Session.Genesis), result)
	}
	return out, err
}

func (s *Service) create(ctx context.Context, p CreateParams) (Created, error) {
	if p.IdempotencyKey != nil {
		if strings.TrimSpace(*p.IdempotencyKey) == "" || len(*p.IdempotencyKey) > session.MaxIdempotencyKey {
			return Created{}, invalid("Validation failed",
				fmt.Sprintf("Idempotency key must be 1 to %d characters", session.MaxIdempotencyKey))
		}
		// A repeat returns the original whatever else it passes, so look before validating.
		if existing, err := s.replay(ctx, *p.IdempotencyKey); err != nil || existing.Session != nil {
			return existing, err
		}
	}
	draft, err := s.buildDraft(ctx, p)
	if err != nil {
		return Created{}, err
	}
	// Naming a spawn parent claims the parent spawned this session.
	if parent, ok := draft.LineageParentID(); ok {
		if err := s.vouch(ctx, "parent_session_id", fmt.Sprint(parent)); err != nil {
			return Created{}, err
		}
	}
	stored, err := s.store.CreateSession(ctx, draft)
	if errors.Is(err, graph.ErrNotFound) {
		return Created{}, invalid("Validation failed", "Parent session not found")
	}
	if errors.Is(err, graph.ErrConflict) {
		return Created{}, invalid("Validation failed", "Slug has already been taken")
	}
	if err != nil {
		return Created{}, err
	}
	if stored.Existing {
		return s.describeExisting(ctx, stored.Session)
	}
	ctx, cancel := afterCommit(ctx)
	defer cancel()
	out := Created{Session: stored.Session}
	if p.captured != nil {
		p.captured(ctx, stored.Session.ID, false)
	}
	if _, pending := pendingOf(stored.Session); pending {
		out.Session, out.JobQueued = s.enqueueStart(ctx, stored.Session)
		if !out.JobQueued {
			out.Warnings = append(out.Warnings, notQueuedWarning)
		}
	}
	if w := s.warnUnstartable(ctx, out.Session); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	return out, nil
}

func (s *Service) replay(ctx context.Context, key string) (Created, error) {
	existing, err := s.store.SessionByIdempotencyKey(ctx, key)
	if errors.Is(err, graph.ErrNotFound) {
		return Created{}, nil
	}
	if err != nil {
		return Created{}, err
	}
	return s.describeExisting(ctx, existing)
}

// describeExisting answers a replayed create. A start still pending dispatch whose job is in
// no queue (the original request could not queue it) is queued now.
func (s *Service) describeExisting(ctx context.Context, sess *session.Session) (Created, error) {
	out := Created{Session: sess, Existing: true}
	p, pending := pendingOf(sess)
	jobID := sess.JobID
	if pending {
		id := p.taskID(sess.ID)
		jobID = &id
	}
	if jobID == nil {
		return out, nil
	}
	queued, err := s.queue.TaskQueued(ctx, tasks.LaneAgents, *jobID)
	if err != nil {
		return Created{}, err
	}
	out.JobQueued = queued
	if pending && !queued {
		ctx, cancel := afterCommit(ctx)
		defer cancel()
		out.Session, out.JobQueued = s.enqueueStart(ctx, sess)
	}
	return out, nil
}

// enqueueStart queues the first run recorded as pending with the new session and records its
// job id; it reports whether the job is queued (if not, the sweep queues it).
func (s *Service) enqueueStart(ctx context.Context, sess *session.Session) (*session.Session, bool) {
	p, _ := pendingOf(sess)
	h := &handOff{taskID: p.taskID(sess.ID), prompt: p.Prompt, reason: p.Reason}
	if err := s.dispatch(ctx, sess.ID, h); err != nil {
		return sess, false
	}
	updated, err := s.update(ctx, sess.ID, func(u *session.Session) error {
		if u.JobID == nil { // a fast worker's claim, or the sweep, may have recorded it already
			u.JobID = &h.taskID
		}
		return nil
	})
	if err != nil {
		s.log.Warn("first run queued but its job id was not recorded", "session_id", sess.ID, "err", err)
		return sess, true
	}
	return updated, true
}

var slugFormat = regexp.MustCompile(`^[a-z0-9-]+$`)

// buildDraft resolves the agent root, fills defaults and validates everything, reporting every
// problem at once.
func (s *Service) buildDraft(ctx context.Context, p CreateParams) (*session.Session, error) {
	cat := s.Catalog()
	var root *catalog.Root
	if p.AgentRoot != nil {
		r, ok := cat.Roots[*p.AgentRoot]
		if !ok {
			return nil, invalid("Invalid agent_root", fmt.Sprintf("Unknown agent_root %q. Valid roots: %s",
				*p.AgentRoot, strings.Join(rootNames(cat), ", ")))
		}
		root = r
	}
	now := s.now().UTC()
	d := &session.Session{
		Status: session.StatusWaiting, ExecutionProvider: session.LocalFilesystem, IsAutonomous: true,
		HeartbeatInterval: session.DefaultHeartbeat, AutoCompactWindow: session.MaxAutoCompactWindow,
		Visibility: "visible", Genesis: cmp.Or(p.ExplicitGenesis, p.Genesis), CreatedAt: now, UpdatedAt: now,
		Config: map[string]any{}, Metadata: map[string]any{}, CustomMetadata: map[string]any{},
		Prompt: p.Prompt, Title: p.Title, Slug: p.Slug, IdempotencyKey: p.IdempotencyKey,
		SchedulingClass: (*session.Class)(p.SchedulingClass), ParentSessionID: p.ParentSessionID,
	}
	if d.Genesis == "" {
		d.Genesis = session.GenesisUnknown
	}
	var bad problems
	s.applyRoot(d, p, root, &bad)
	if p.CustomMetadata != nil {
		d.CustomMetadata = p.CustomMetadata
	}
	maps.Copy(d.Metadata, p.metadata)
	if p.IsAutonomous != nil {
		d.IsAutonomous = *p.IsAutonomous
	}
	if p.ExecutionProvider != nil {
		d.ExecutionProvider = *p.ExecutionProvider
	}
	if p.AutoCompactWindow != nil {
		d.AutoCompactWindow = *p.AutoCompactWindow
	}
	if p.Goal != nil && *p.Goal != "" {
		goal := cat.ResolveGoal(*p.Goal)
		d.Goal = &goal
	}
	if err := s.applyLineage(ctx, d, p, &bad); err != nil {
		return nil, err
	}
	if d.Prompt != nil && *d.Prompt != "" {
		// The session is stored with its first run pending dispatch (its task id is known once
		// it has an id: see pendingDispatch.taskID).
		d.Metadata[session.MetaPendingDispatch] = s.newPending("", *d.Prompt, "start")
	}
	validateSession(d, &bad)
	validateSlug(d.Slug, &bad)
	return d, bad.err("Validation failed")
}

// applyRoot fills repository, runtime, model and artifact lists from the request, then the root,
// then the global defaults.
func (s *Service) applyRoot(d *session.Session, p CreateParams, root *catalog.Root, bad *problems) {
	cat := s.Catalog()
	var r catalog.Root
	if root != nil {
		r = *root
		d.Metadata[session.MetaAgentRoot] = root.Name
	}
	d.GitRoot = deref(p.GitRoot, r.URL)
	d.Branch = deref(p.Branch, cmp.Or(r.DefaultBranch, session.DefaultBranch))
	if sub := deref(p.Subdirectory, r.Subdirectory); sub != "" {
		d.Subdirectory = &sub
	}
	d.AgentRuntime = deref(p.AgentRuntime, cmp.Or(r.DefaultRuntime, session.DefaultRuntime))
	if _, ok := cat.Runtimes[d.AgentRuntime]; !ok {
		bad.add(fmt.Sprintf("Agent runtime %q is not registered. Valid runtimes: %s", d.AgentRuntime, strings.Join(cat.RuntimeNames(), ", ")))
	} else {
		d.Config = map[string]any{}
		for k, v := range p.Config {
			d.Config[k] = v
		}
		s.applyModel(d, r, bad)
	}
	lists := []struct {
		name    string
		given   *[]string
		deflt   []string
		into    *[]string
		catalog map[string]*catalog.Artifact
		max     int
	}{
		{"mcp_servers", p.MCPServers, r.DefaultMCPServers, &d.MCPServers, cat.MCPServers, session.MaxMCPServers},
		{"catalog_skills", p.CatalogSkills, r.DefaultSkills, &d.CatalogSkills, cat.Skills, session.MaxSkills},
		{"catalog_hooks", p.CatalogHooks, r.DefaultHooks, &d.CatalogHooks, cat.Hooks, session.MaxHooks},
		{"catalog_plugins", p.CatalogPlugins, r.DefaultPlugins, &d.CatalogPlugins, cat.Plugins, session.MaxPlugins},
	}
	for _, l := range lists {
		if l.given == nil {
			*l.into = append([]string{}, l.deflt...)
			continue
		}
		*l.into = append([]string{}, (*l.given)...)
		if len(*l.given) > l.max {
			bad.add(fmt.Sprintf("%s has %d entries; at most %d are allowed", l.name, len(*l.given), l.max))
		}
		if unknown := catalog.Unknown(*l.given, l.catalog); len(unknown) > 0 {
			bad.add(fmt.Sprintf("%s names unknown catalog ids: %s. Valid ids: %s", l.name,
				strings.Join(unknown, ", "), strings.Join(catalog.IDs(l.catalog), ", ")))
		}
	}
	if p.MCPServers != nil && len(*p.MCPServers) == 0 {
		d.Metadata[session.MetaMCPServersExplicitlyEmpty] = true
	}
}

// applyModel validates an explicit model and self-heals an invalid root default to the
// runtime's default.
func (s *Service) applyModel(d *session.Session, r catalog.Root, bad *problems) {
	cat := s.Catalog()
	if m, ok := d.Config[session.ConfigModel]; ok {
		model, isString := m.(string)
		if !isString || !cat.HasModel(d.AgentRuntime, model) {
			bad.add(fmt.Sprintf("Invalid model %v for %s. Valid models: %s", m, d.AgentRuntime,
				strings.Join(cat.ModelIDs(d.AgentRuntime), ", ")))
		}
		return
	}
	model := r.DefaultModel
	if !cat.HasModel(d.AgentRuntime, model) {
		model = cat.DefaultModel(d.AgentRuntime)
	}
	d.Config[session.ConfigModel] = model
}

// applyLineage inherits genesis, class and precedence from the parent, and places the session.
func (s *Service) applyLineage(ctx context.Context, d *session.Session, p CreateParams, bad *problems) error {
	if p.ParentSessionID != nil {
		parent, err := s.store.GetSession(ctx, *p.ParentSessionID)
		switch {
		case errors.Is(err, graph.ErrNotFound):
			bad.add(fmt.Sprintf("Parent session %d not found", *p.ParentSessionID))
		case err != nil:
			return err
		default:
			// A declared genesis stands; an inherited one brings the parent's explicit class.
			if p.ExplicitGenesis == "" {
				d.Genesis = parent.Genesis
				if d.SchedulingClass == nil && parent.SchedulingClass != nil {
					class := *parent.SchedulingClass
					d.SchedulingClass = &class
				}
			}
			d.Precedence = clamp(parent.Precedence+1, -session.MaxPrecedence, session.MaxPrecedence)
		}
	}
	if p.Precedence != nil {
		d.Precedence = *p.Precedence
	}
	if p.Place == nil {
		return nil
	}
	switch {
	case *p.Place != PlaceTopOfSpot:
		bad.add(fmt.Sprintf("place must be %q", PlaceTopOfSpot))
	case p.Precedence != nil:
		bad.add("place and precedence are mutually exclusive: pass one")
	default:
		top, err := s.store.MaxSpotPrecedence(ctx)
		if err != nil {
			return err
		}
		d.Precedence = clamp(top+topOfSpotMargin, -session.MaxPrecedence, session.MaxPrecedence)
	}
	return nil
}

func validateSession(d *session.Session, bad *problems) {
	if d.GitRoot == "" {
		bad.add("Git root can't be blank (pass git_root or agent_root)")
	} else if strings.ContainsAny(d.GitRoot, " \t\n") {
		bad.add("Git root is not a repository URL or path")
	}
	if d.ExecutionProvider != session.LocalFilesystem {
		bad.add(fmt.Sprintf("Execution provider %q is not supported; the only provider is %s", d.ExecutionProvider, session.LocalFilesystem))
	}
	tooLong(bad, "Title", d.Title, session.MaxTitle)
	tooLong(bad, "Prompt", d.Prompt, session.MaxPrompt)
	tooLong(bad, "Goal", d.Goal, session.MaxGoal)
	if d.SchedulingClass != nil && !d.SchedulingClass.Valid() {
		bad.add(fmt.Sprintf("Scheduling class %q must be spot or priority", *d.SchedulingClass))
	}
	if d.Precedence < -session.MaxPrecedence || d.Precedence > session.MaxPrecedence {
		bad.add(fmt.Sprintf("Precedence must be between %d and %d", -session.MaxPrecedence, session.MaxPrecedence))
	}
	if d.AutoCompactWindow < 1 || d.AutoCompactWindow > session.MaxAutoCompactWindow {
		bad.add(fmt.Sprintf("Auto compact window must be between 1 and %d", session.MaxAutoCompactWindow))
	}
}

// validateSlug checks a slug a caller sets. A stored slug is not checked again on other
// changes, so a session with a slug from before a rule keeps working.
func validateSlug(slug *string, bad *problems) {
	switch {
	case slug == nil:
	case !slugFormat.MatchString(*slug) || len(*slug) > session.MaxSlug:
		bad.add("Slug must be lowercase letters, digits and dashes ([a-z0-9-]+)")
	case session.AllDigits(*slug):
		bad.add("Slug must not be only digits: a number addresses a session by its id")
	}
}

func tooLong(bad *problems, field string, v *string, max int) {
	if v != nil && len([]rune(*v)) > max {
		bad.add(fmt.Sprintf("%s is too long (maximum is %d characters)", field, max))
	}
}

func rootNames(cat *catalog.Catalog) []string {
	return slices.Sorted(maps.Keys(cat.Roots))
}

func deref(p *string, fallback string) string {
	if p != nil {
		return *p
	}
	return fallback
}

func clamp(v, lo, hi int64) int64 { return max(lo, min(hi, v)) }
