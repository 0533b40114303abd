package orchestrator

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// Resolve turns a caller's key into a session id, once, at the edge. A key of digits only is
// always an id (a slug may not be only digits, so none can stand in for one); any other key is a
// slug. Either way a key that names no session is ErrNotFound.
func (s *Service) Resolve(ctx context.Context, key string) (int64, error) {
	if session.AllDigits(key) {
		id, ok := session.ParseID(key)
		if !ok {
			return 0, fmt.Errorf("session %q: %w", key, ErrNotFound)
		}
		exists, err := s.store.SessionExists(ctx, id)
		if err != nil {
			return 0, err
		}
		if !exists {
			return 0, fmt.Errorf("session %d: %w", id, ErrNotFound)
		}
		return id, nil
	}
	return s.store.ResolveSlug(ctx, key)
}

// Get reads a session.
func (s *Service) Get(ctx context.Context, id int64) (*session.Session, error) {
	return s.store.GetSession(ctx, id)
}

// ListParams filter and page the session list; unknown filter values are ignored.
type ListParams struct {
	Status, AgentRuntime, PriorityClass, Genesis string
	ShowArchived                                 bool
	Page, PerPage                                int
}

// Page is one page of a listing.
type Page struct {
	Page, PerPage, TotalCount, TotalPages int
}

// Pagination bounds.
const (
	DefaultPerPage = 25
	MaxPerPage     = 100
)

// List returns one page of sessions, newest first.
func (s *Service) List(ctx context.Context, p ListParams) ([]*session.Session, Page, error) {
	f := graph.SessionFilter{ShowArchived: p.ShowArchived, Page: max(p.Page, 1), PerPage: p.PerPage}
	if f.PerPage < 1 || f.PerPage > MaxPerPage {
		f.PerPage = DefaultPerPage
	}
	if session.Status(p.Status).Valid() {
		f.Status = p.Status
	}
	if _, ok := s.catalog.Runtimes[p.AgentRuntime]; ok {
		f.AgentRuntime = p.AgentRuntime
	}
	if session.Class(p.PriorityClass).Valid() {
		f.PriorityClass = p.PriorityClass
	}
	if session.Genesis(p.Genesis).Valid() {
		f.Genesis = p.Genesis
	}
	list, total, err := s.store.ListSessions(ctx, f)
	if err != nil {
		return nil, Page{}, err
	}
	return list, Page{Page: f.Page, PerPage: f.PerPage, TotalCount: total, TotalPages: (total + f.PerPage - 1) / f.PerPage}, nil
}

// Opt is an optional field of an update: Set says it was given; a nil Value means "set to null".
type Opt[T any] struct {
	Set   bool
	Value *T
}

// UpdateParams are the fields PATCH /sessions/:id may change.
type UpdateParams struct {
	Title, Slug, Goal Opt[string]
	SchedulingClass   Opt[string]
	IsAutonomous      Opt[bool]
	Precedence        Opt[int64]
	CustomMetadata    Opt[map[string]any]
}

// Update changes the editable fields of a session. An empty goal clears it; a null
// scheduling_class returns the session to its genesis default; custom_metadata is replaced.
func (s *Service) Update(ctx context.Context, id int64, p UpdateParams) (*session.Session, error) {
	updated, err := s.store.UpdateSession(ctx, id, func(u *session.Session) error {
		var bad problems
		if p.Title.Set {
			u.Title = blankToNil(p.Title.Value)
			delete(u.Metadata, "auto_generated_title")
		}
		if p.Slug.Set {
			u.Slug = blankToNil(p.Slug.Value)
			validateSlug(u.Slug, &bad)
		}
		if p.Goal.Set {
			u.Goal = blankToNil(p.Goal.Value)
			if u.Goal != nil {
				goal := s.catalog.ResolveGoal(*u.Goal)
				u.Goal = &goal
			}
		}
		if p.SchedulingClass.Set {
			u.SchedulingClass = (*session.Class)(p.SchedulingClass.Value)
		}
		if p.IsAutonomous.Set {
			if p.IsAutonomous.Value == nil {
				bad.add("is_autonomous must be true or false")
			} else {
				u.IsAutonomous = *p.IsAutonomous.Value
			}
		}
		if p.Precedence.Set {
			if p.Precedence.Value == nil {
				bad.add("precedence must be an integer")
			} else {
				u.Precedence = *p.Precedence.Value
			}
		}
		if p.CustomMetadata.Set {
			u.CustomMetadata = map[string]any{}
			if p.CustomMetadata.Value != nil {
				u.CustomMetadata = *p.CustomMetadata.Value
			}
		}
		validateSession(u, &bad)
		return bad.err("Validation failed")
	})
	if errors.Is(err, graph.ErrConflict) {
		return nil, invalid("Validation failed", "Slug has already been taken")
	}
	if errors.Is(err, graph.ErrCycle) {
		return nil, invalid("Validation failed", "custom_metadata.router_session_id names a session this one already reaches: a session cannot become its own spawn ancestor")
	}
	return updated, err
}

// UpdateNotes replaces a session's notes; an empty string clears them.
func (s *Service) UpdateNotes(ctx context.Context, id int64, notes string) (*session.Session, error) {
	if len([]rune(notes)) > session.MaxNotes {
		return nil, invalid("Too long", fmt.Sprintf("Session notes are too long (maximum is %d characters)", session.MaxNotes))
	}
	return s.store.UpdateSession(ctx, id, func(u *session.Session) error {
		u.SessionNotes = blankToNil(&notes)
		now := s.now().UTC()
		u.SessionNotesUpdatedAt = &now
		return nil
	})
}

// Delete hard-deletes a session and everything it owns.
func (s *Service) Delete(ctx context.Context, id int64) error {
	_, err := s.store.DeleteSession(ctx, id)
	return err
}

// ArchiveParams say who archives and whether to discard pending queued messages.
type ArchiveParams struct {
	Force bool
	Actor string // e.g. "the REST API", "session #12 via the MCP API"
	// Guard, when set, sees the session under its lock before anything changes and may refuse
	// the archive (MCP refuses to end another session's running turn).
	Guard func(*session.Session) error
}

// Archive moves a session to the trash (restorable for session.TrashRetention). Pending queued
// messages would never be delivered, so a caller-facing archive refuses while any exist unless
// Force; a forced one retires them to undelivered in the same transaction.
func (s *Service) Archive(ctx context.Context, id int64, p ArchiveParams) (*session.Session, error) {
	var retired int
	sess, err := s.store.UpdateSessionWithQueue(ctx, id, func(u *session.Session, q *graph.MessageQueue) error {
		retired = 0
		if p.Guard != nil {
			if err := p.Guard(u); err != nil {
				return err
			}
		}
		if err := applyEvent(u, session.EventArchive, "Cannot trash"); err != nil {
			return err
		}
		pending, err := q.Pending()
		if err != nil {
			return err
		}
		if len(pending) > 0 && !p.Force {
			return queuedRefusal(u.ID, pending)
		}
		if retired, err = q.RetirePending(); err != nil {
			return err
		}
		now := s.now().UTC()
		trash := now.Add(session.TrashRetention)
		u.ArchivedAt, u.TrashAfter, u.RunningJobID = &now, &trash, nil
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.logArchive(ctx, sess, p, retired)
	return sess, nil
}

// logArchive writes the timeline line naming who archived and what was discarded.
func (s *Service) logArchive(ctx context.Context, sess *session.Session, p ArchiveParams, retired int) {
	actor := cmp.Or(p.Actor, "an unrecorded caller")
	line := "Session archived by " + actor
	if retired > 0 {
		line += fmt.Sprintf("; forced: %d queued message(s) were discarded and marked undelivered", retired)
	}
	if _, err := s.store.AppendLog(ctx, session.LogInfo, line, sess.ID); err != nil {
		s.log.Warn("session archived but its timeline line was not written", "session_id", sess.ID, "err", err)
	}
	s.log.Info("session archived", "session_id", sess.ID, "actor", actor, "force", p.Force, "retired_messages", retired)
}

// Unarchive restores a trashed session to needs_input.
func (s *Service) Unarchive(ctx context.Context, id int64) (*session.Session, error) {
	return s.transition(ctx, id, session.EventUnarchiveToNeedsInput, "Cannot restore", func(u *session.Session) {
		u.TrashAfter = nil
	})
}

// transition applies a lifecycle event under the session's lock; a refused event is a
// ValidationError carrying label.
func (s *Service) transition(ctx context.Context, id int64, ev session.Event, label string, apply func(*session.Session)) (*session.Session, error) {
	return s.store.UpdateSession(ctx, id, func(u *session.Session) error {
		if err := applyEvent(u, ev, label); err != nil {
			return err
		}
		apply(u)
		return nil
	})
}

// applyEvent moves u through the lifecycle; a refused event is a ValidationError carrying label.
func applyEvent(u *session.Session, ev session.Event, label string) error {
	to, _, err := session.Transition(u.Status, ev, session.Guard{
		HasGitRoot:           u.GitRoot != "",
		BlockedOnElicitation: u.Metadata["blocked_on_elicitation"] == true,
	})
	var te *session.TransitionError
	if errors.As(err, &te) {
		return invalid(label, te.Error())
	}
	if err != nil {
		return err
	}
	u.Status = to
	return nil
}

func blankToNil(v *string) *string {
	if v == nil || *v == "" {
		return nil
	}
	return v
}
