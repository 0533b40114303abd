package graph

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// Created is the outcome of CreateSession.
type Created struct {
	Session *session.Session
	// Existing is true when the idempotency key matched a session an earlier call made.
	Existing bool
}

// CreateSession stores a new session, assigning the next integer id, the default title and a
// unique slug. With an idempotency key, a repeat returns the first call's session instead; creates
// are serialised on the id sequence's lock, so concurrent repeats still make exactly one session.
func (s *Store) CreateSession(ctx context.Context, draft *session.Session) (Created, error) {
	out, err := write(ctx, s, "create_session", func(tx txn) (Created, error) {
		rec, err := tx.single("lock_session_counter", queries.LockSessionCounter, nil)
		if err != nil {
			return Created{}, fmt.Errorf("session counter missing (run `zimmer migrate`): %w", err)
		}
		if key := draft.IdempotencyKey; key != nil {
			existing, err := sessionByIdempotencyKey(tx, *key)
			if err == nil {
				return Created{Session: existing, Existing: true}, nil
			}
			if !errors.Is(err, ErrNotFound) {
				return Created{}, err
			}
		}
		if p := draft.ParentSessionID; p != nil {
			if err := requireSession(tx, *p); err != nil {
				return Created{}, fmt.Errorf("parent session %d: %w", *p, err)
			}
		}
		last, _, err := neo4j.GetRecordValue[int64](rec, "value")
		if err != nil {
			return Created{}, fmt.Errorf("read session counter: %w", err)
		}
		sess := cloneSession(draft)
		sess.ID = last + 1
		if sess.Title == nil {
			title := "Session " + strconv.FormatInt(sess.ID, 10)
			sess.Title = &title
			sess.Metadata["auto_generated_title"] = true
		} else if err := assignSlug(tx, sess); err != nil {
			return Created{}, err
		}
		props, err := sessionProps(sess)
		if err != nil {
			return Created{}, err
		}
		rec, err = tx.single("insert_session", queries.InsertSession, map[string]any{"id": sess.ID, "props": props})
		if err != nil {
			return Created{}, err
		}
		if err := linkSpawnParent(tx, sess.ID); err != nil {
			return Created{}, err
		}
		stored, err := recordSession(rec, "s")
		return Created{Session: stored}, err
	})
	if err != nil {
		return Created{}, fmt.Errorf("create session: %w", err)
	}
	return out, nil
}

// assignSlug checks an explicit slug is free, or derives one from the title, suffixing -1…-9
// on collision and leaving the slug unset if every candidate is taken.
func assignSlug(tx txn, sess *session.Session) error {
	var candidates []string
	switch {
	case sess.Slug != nil:
		candidates = []string{*sess.Slug}
	case sess.Title != nil && sess.Metadata["auto_generated_title"] != true:
		candidates = session.SlugCandidates(session.SlugBase(*sess.Title, sess.CreatedAt))
	default:
		return nil
	}
	recs, err := tx.collect("taken_slugs", queries.TakenSlugs, map[string]any{"candidates": candidates})
	if err != nil {
		return err
	}
	taken := map[string]bool{}
	for _, r := range recs {
		slug, _, _ := neo4j.GetRecordValue[string](r, "slug")
		taken[slug] = true
	}
	if sess.Slug != nil {
		if taken[*sess.Slug] {
			return fmt.Errorf("slug %q has already been taken: %w", *sess.Slug, ErrConflict)
		}
		return nil
	}
	for _, c := range candidates {
		if !taken[c] {
			sess.Slug = &c
			return nil
		}
	}
	return nil
}

func requireSession(tx txn, id int64) error {
	rec, err := tx.single("session_exists", queries.SessionExists, map[string]any{"id": id})
	if err != nil {
		return err
	}
	if ok, _, _ := neo4j.GetRecordValue[bool](rec, "exists"); !ok {
		return ErrNotFound
	}
	return nil
}

// relinkSpawnParent moves the SPAWNED edge when the lineage parent changed, refusing (ErrCycle)
// a parent the session itself reaches: a session cannot become its own ancestor.
func relinkSpawnParent(tx txn, before, after *session.Session) error {
	oldParent, hadOld := before.LineageParentID()
	newParent, hasNew := after.LineageParentID()
	if oldParent == newParent && hadOld == hasNew {
		return nil
	}
	if hasNew {
		// Both ends locked before the check (the session already is), then the lineage lock, in
		// the order every edge writer takes them: what lets record_uncle_edge skip the lineage
		// lock when no cycle is possible.
		if _, err := tx.single("lock_session", queries.LockSession, map[string]any{"id": newParent}); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if err := lockLineage(tx); err != nil {
			return err
		}
		if cyc, err := reaches(tx, after.ID, newParent); err != nil {
			return err
		} else if cyc {
			return fmt.Errorf("session %d cannot be spawned by #%d, which it already reaches: %w", after.ID, newParent, ErrCycle)
		}
	}
	return linkSpawnParent(tx, after.ID)
}

func linkSpawnParent(tx txn, id int64) error {
	_, err := tx.collect("link_spawn_parent", queries.LinkSpawnParent, map[string]any{"id": id})
	return err
}

// GetSession reads a session by id.
func (s *Store) GetSession(ctx context.Context, id int64) (*session.Session, error) {
	out, err := read(ctx, s, "get_session", func(tx txn) (*session.Session, error) {
		return getSession(tx, id)
	})
	if err != nil {
		return nil, fmt.Errorf("get session %d: %w", id, err)
	}
	return out, nil
}

// ResolveSlug is the id of the session with this slug (ErrNotFound when none has it).
func (s *Store) ResolveSlug(ctx context.Context, slug string) (int64, error) {
	out, err := read(ctx, s, "resolve_session_slug", func(tx txn) (int64, error) {
		rec, err := tx.single("resolve_session_slug", queries.ResolveSessionSlug, map[string]any{"slug": slug})
		if err != nil {
			return 0, err
		}
		id, _, err := neo4j.GetRecordValue[int64](rec, "id")
		return id, err
	})
	if err != nil {
		return 0, fmt.Errorf("resolve slug %q: %w", slug, err)
	}
	return out, nil
}

// SessionExists reports whether a session has this id.
func (s *Store) SessionExists(ctx context.Context, id int64) (bool, error) {
	out, err := read(ctx, s, "session_exists", func(tx txn) (bool, error) {
		err := requireSession(tx, id)
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return false, fmt.Errorf("session %d exists: %w", id, err)
	}
	return out, nil
}

// lockSession takes a session's write lock and reads it under the lock, so a read-modify-write
// on it is atomic.
func lockSession(tx txn, id int64) (*session.Session, error) {
	rec, err := tx.single("lock_session", queries.LockSession, map[string]any{"id": id})
	if err != nil {
		return nil, err
	}
	return recordSession(rec, "s")
}

func getSession(tx txn, id int64) (*session.Session, error) {
	rec, err := tx.single("get_session", queries.GetSession, map[string]any{"id": id})
	if err != nil {
		return nil, err
	}
	return recordSession(rec, "s")
}

// UpdateSession locks a session, applies mutate to a copy and stores the result, all in one
// transaction. mutate may run more than once (the driver retries) and must be pure; an error
// from it aborts the update and is returned unchanged.
func (s *Store) UpdateSession(ctx context.Context, id int64, mutate func(*session.Session) error) (*session.Session, error) {
	return s.UpdateSessionWithQueue(ctx, id, func(u *session.Session, _ *MessageQueue) error { return mutate(u) })
}

// UpdateSessionWithQueue is UpdateSession whose mutate may also change the session's message
// queue, in the same transaction and under the same lock (an archive retiring what is pending,
// a delivery claiming a message and resuming the session).
func (s *Store) UpdateSessionWithQueue(ctx context.Context, id int64, mutate func(*session.Session, *MessageQueue) error) (*session.Session, error) {
	out, err := write(ctx, s, "update_session", func(tx txn) (*session.Session, error) {
		before, err := lockSession(tx, id)
		if err != nil {
			return nil, err
		}
		after := cloneSession(before)
		if err := mutate(after, s.queueOf(tx, before.ID)); err != nil {
			return nil, err
		}
		after.ID = before.ID
		after.UpdatedAt = s.now().UTC()
		if !equalPtr(before.Slug, after.Slug) || (after.Slug == nil && !equalPtr(before.Title, after.Title)) {
			if err := assignSlug(tx, after); err != nil {
				return nil, err
			}
		}
		props, err := sessionProps(after)
		if err != nil {
			return nil, err
		}
		rec, err := tx.single("replace_session", queries.ReplaceSession, map[string]any{"id": after.ID, "props": props})
		if err != nil {
			return nil, err
		}
		if err := relinkSpawnParent(tx, before, after); err != nil {
			return nil, err
		}
		return recordSession(rec, "s")
	})
	if err != nil {
		return nil, fmt.Errorf("update session %d: %w", id, err)
	}
	return out, nil
}

// DeleteSession hard-deletes a session and what it owns; spawned children keep their rows.
func (s *Store) DeleteSession(ctx context.Context, id int64) (*session.Session, error) {
	out, err := write(ctx, s, "delete_session", func(tx txn) (*session.Session, error) {
		found, err := getSession(tx, id)
		if err != nil {
			return nil, err
		}
		_, err = tx.single("delete_session", queries.DeleteSession, map[string]any{"id": id})
		return found, err
	})
	if err != nil {
		return nil, fmt.Errorf("delete session %d: %w", id, err)
	}
	return out, nil
}

// SessionFilter selects sessions for ListSessions; empty strings match everything.
type SessionFilter struct {
	Status, AgentRuntime, Genesis, PriorityClass string
	ShowArchived                                 bool
	Page, PerPage                                int
}

// ListSessions returns one page of sessions, newest first, and the filter's total count.
func (s *Store) ListSessions(ctx context.Context, f SessionFilter) ([]*session.Session, int, error) {
	return s.sessionPage(ctx, "list_sessions", queries.ListSessions, map[string]any{
		"status": f.Status, "agent_runtime": f.AgentRuntime, "genesis": f.Genesis,
		"priority_class": f.PriorityClass, "show_archived": f.ShowArchived,
		"skip": (f.Page - 1) * f.PerPage, "limit": f.PerPage, "spot_geneses": session.GenesesOfClass(session.ClassSpot),
	})
}

// sessionPage runs a listing statement that returns one row {total, sessions}.
func (s *Store) sessionPage(ctx context.Context, name, cypher string, params map[string]any) ([]*session.Session, int, error) {
	type page struct {
		sessions []*session.Session
		total    int
	}
	out, err := read(ctx, s, name, func(tx txn) (page, error) {
		rec, err := tx.single(name, cypher, params)
		if err != nil {
			return page{}, err
		}
		total, _, err := neo4j.GetRecordValue[int64](rec, "total")
		if err != nil {
			return page{}, err
		}
		nodes, _, err := neo4j.GetRecordValue[[]any](rec, "sessions")
		if err != nil {
			return page{}, err
		}
		list, err := nodeSessions(nodes)
		return page{list, int(total)}, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	return out.sessions, out.total, nil
}

// cloneSession copies a session deeply enough that mutating the copy's lists and bags leaves
// the original alone (a retried transaction starts again from the original).
func cloneSession(s *session.Session) *session.Session {
	c := *s
	c.MCPServers = slices.Clone(s.MCPServers)
	c.CatalogSkills = slices.Clone(s.CatalogSkills)
	c.CatalogHooks = slices.Clone(s.CatalogHooks)
	c.CatalogPlugins = slices.Clone(s.CatalogPlugins)
	c.Config = cloneBag(s.Config)
	c.Metadata = cloneBag(s.Metadata)
	c.CustomMetadata = cloneBag(s.CustomMetadata)
	return &c
}

func cloneBag(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return maps.Clone(m)
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// MaxSpotPrecedence is the highest precedence among live spot sessions (0 when there are none).
func (s *Store) MaxSpotPrecedence(ctx context.Context) (int64, error) {
	out, err := read(ctx, s, "max_spot_precedence", func(tx txn) (int64, error) {
		rec, err := tx.single("max_spot_precedence", queries.MaxSpotPrecedence,
			map[string]any{"spot_geneses": session.GenesesOfClass(session.ClassSpot)})
		if err != nil {
			return 0, err
		}
		v, _ := rec.Get("max")
		return asInt(v), nil
	})
	if err != nil {
		return 0, fmt.Errorf("max spot precedence: %w", err)
	}
	return out, nil
}

// SessionByIdempotencyKey finds the session a create with this key made.
func (s *Store) SessionByIdempotencyKey(ctx context.Context, key string) (*session.Session, error) {
	out, err := read(ctx, s, "find_session_by_idempotency_key", func(tx txn) (*session.Session, error) {
		return sessionByIdempotencyKey(tx, key)
	})
	if err != nil {
		return nil, fmt.Errorf("session by idempotency key: %w", err)
	}
	return out, nil
}

func sessionByIdempotencyKey(tx txn, key string) (*session.Session, error) {
	rec, err := tx.single("find_session_by_idempotency_key", queries.FindSessionByIdempotencyKey, map[string]any{"key": key})
	if err != nil {
		return nil, err
	}
	return recordSession(rec, "s")
}
