package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// ErrCategoryNotFound is an unknown category id; it is also ErrNotFound.
var ErrCategoryNotFound = fmt.Errorf("category %w", ErrNotFound)

// Limits of a category.
const (
	MaxCategoryName        = 100
	MaxCategoryDescription = 1000
)

// Categories lists every category in board order with its session count.
func (s *Service) Categories(ctx context.Context) ([]session.Category, error) {
	return s.store.ListCategories(ctx)
}

// Category reads one category.
func (s *Service) Category(ctx context.Context, id int64) (session.Category, error) {
	c, err := s.store.GetCategory(ctx, id)
	return c, categoryErr(err, id)
}

// CreateCategory adds a category at the end of the board.
func (s *Service) CreateCategory(ctx context.Context, name string, description *string, frozen bool) (session.Category, error) {
	c := session.Category{Name: strings.TrimSpace(name), Description: blankToNil(description), IsFrozen: frozen}
	if err := validateCategory(c); err != nil {
		return session.Category{}, err
	}
	out, err := s.store.CreateCategory(ctx, c)
	return out, categoryErr(err, 0)
}

// CategoryChange is what an update may change; a blank description clears it.
type CategoryChange struct {
	Name, Description Opt[string]
	IsFrozen          Opt[bool]
}

// UpdateCategory changes the fields given.
func (s *Service) UpdateCategory(ctx context.Context, id int64, ch CategoryChange) (session.Category, error) {
	out, err := s.store.UpdateCategory(ctx, id, func(c *session.Category) error {
		if ch.Name.Set {
			c.Name = strings.TrimSpace(deref(ch.Name.Value, ""))
		}
		if ch.Description.Set {
			c.Description = blankToNil(ch.Description.Value)
		}
		if ch.IsFrozen.Set && ch.IsFrozen.Value != nil {
			c.IsFrozen = *ch.IsFrozen.Value
		}
		return validateCategory(*c)
	})
	return out, categoryErr(err, id)
}

// DeleteCategory removes a category; its sessions fall back to Uncategorized. It returns how
// many sessions moved.
func (s *Service) DeleteCategory(ctx context.Context, id int64) (int, error) {
	n, err := s.store.DeleteCategory(ctx, id)
	return n, categoryErr(err, id)
}

// ReorderCategories puts the listed categories first, in the order given; categories not listed
// keep their positions. Every id must exist.
func (s *Service) ReorderCategories(ctx context.Context, ids []int64) ([]session.Category, error) {
	if len(ids) == 0 {
		return nil, invalid("Validation failed", "ids must list at least one category")
	}
	all, err := s.store.ListCategories(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if !slices.ContainsFunc(all, func(c session.Category) bool { return c.ID == id }) {
			return nil, categoryErr(graph.ErrNotFound, id)
		}
	}
	if _, err := s.store.ReorderCategories(ctx, ids); err != nil {
		return nil, err
	}
	return s.store.ListCategories(ctx)
}

// SetSessionCategory puts a session in a category, or back in Uncategorized when id is nil.
func (s *Service) SetSessionCategory(ctx context.Context, sessionID int64, id *int64) (*session.Session, *session.Category, error) {
	var cat *session.Category
	if id != nil {
		c, err := s.Category(ctx, *id)
		if err != nil {
			return nil, nil, err
		}
		cat = &c
	}
	sess, err := s.update(ctx, sessionID, func(u *session.Session) error {
		u.CategoryID = id
		return nil
	})
	return sess, cat, err
}

func validateCategory(c session.Category) error {
	var bad problems
	switch n := len([]rune(c.Name)); {
	case n == 0:
		bad.add("Name can't be blank")
	case n > MaxCategoryName:
		bad.add(fmt.Sprintf("Name is too long (maximum is %d characters)", MaxCategoryName))
	}
	tooLong(&bad, "Description", c.Description, MaxCategoryDescription)
	return bad.err("Validation failed")
}

// categoryErr names what is wrong in the category's terms.
func categoryErr(err error, id int64) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, graph.ErrConflict):
		return invalid("Validation failed", "Name has already been taken")
	case errors.Is(err, graph.ErrNotFound):
		return &NotFoundError{Message: fmt.Sprintf("Category #%d not found", id), Kind: ErrCategoryNotFound}
	}
	return err
}
