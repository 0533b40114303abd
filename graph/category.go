package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// nameKey is the case-insensitive form a category name is unique by.
func nameKey(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// ListCategories returns every category in board order with its session count.
func (s *Store) ListCategories(ctx context.Context) ([]session.Category, error) {
	out, err := read(ctx, s, "list_categories", func(tx txn) ([]session.Category, error) {
		recs, err := tx.collect("list_categories", queries.ListCategories, nil)
		if err != nil {
			return nil, err
		}
		list := make([]session.Category, 0, len(recs))
		for _, rec := range recs {
			c, err := recordCategory(rec)
			if err != nil {
				return nil, err
			}
			n, _, _ := neo4j.GetRecordValue[int64](rec, "sessions")
			c.Sessions = int(n)
			list = append(list, c)
		}
		return list, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list categories: %w", err)
	}
	return out, nil
}

// GetCategory reads one category (ErrNotFound when there is none).
func (s *Store) GetCategory(ctx context.Context, id int64) (session.Category, error) {
	out, err := read(ctx, s, "get_category", func(tx txn) (session.Category, error) { return getCategory(tx, id) })
	if err != nil {
		return session.Category{}, fmt.Errorf("category %d: %w", id, err)
	}
	return out, nil
}

func getCategory(tx txn, id int64) (session.Category, error) {
	rec, err := tx.single("get_category", queries.GetCategory, map[string]any{"id": id})
	if err != nil {
		return session.Category{}, err
	}
	return recordCategory(rec)
}

// CreateCategory stores a new category, placed last; a taken name is ErrConflict.
func (s *Store) CreateCategory(ctx context.Context, c session.Category) (session.Category, error) {
	out, err := write(ctx, s, "create_category", func(tx txn) (session.Category, error) {
		if err := lockCategories(tx); err != nil {
			return session.Category{}, err
		}
		if err := nameFree(tx, c.Name, 0); err != nil {
			return session.Category{}, err
		}
		rec, err := tx.single("insert_category", queries.InsertCategory, map[string]any{
			"name": c.Name, "name_key": nameKey(c.Name), "description": optValue(c.Description),
			"is_frozen": c.IsFrozen, "at": s.now().UTC(),
		})
		if err != nil {
			return session.Category{}, err
		}
		return recordCategory(rec)
	})
	if err != nil {
		return session.Category{}, fmt.Errorf("create category %q: %w", c.Name, err)
	}
	return out, nil
}

// UpdateCategory applies mutate to a category under the category lock and stores it; a name
// another category holds is ErrConflict.
func (s *Store) UpdateCategory(ctx context.Context, id int64, mutate func(*session.Category) error) (session.Category, error) {
	out, err := write(ctx, s, "update_category", func(tx txn) (session.Category, error) {
		if err := lockCategories(tx); err != nil {
			return session.Category{}, err
		}
		c, err := getCategory(tx, id)
		if err != nil {
			return session.Category{}, err
		}
		if err := mutate(&c); err != nil {
			return session.Category{}, err
		}
		if err := nameFree(tx, c.Name, id); err != nil {
			return session.Category{}, err
		}
		rec, err := tx.single("update_category", queries.UpdateCategory, map[string]any{
			"id": id, "name": c.Name, "name_key": nameKey(c.Name), "description": optValue(c.Description),
			"is_frozen": c.IsFrozen, "at": s.now().UTC(),
		})
		if err != nil {
			return session.Category{}, err
		}
		return recordCategory(rec)
	})
	if err != nil {
		return session.Category{}, fmt.Errorf("update category %d: %w", id, err)
	}
	return out, nil
}

// DeleteCategory removes a category and returns how many sessions fell back to Uncategorized.
func (s *Store) DeleteCategory(ctx context.Context, id int64) (int, error) {
	out, err := write(ctx, s, "delete_category", func(tx txn) (int, error) {
		if err := lockCategories(tx); err != nil {
			return 0, err
		}
		rec, err := tx.single("delete_category", queries.DeleteCategory, map[string]any{"id": id})
		if err != nil {
			return 0, err
		}
		n, _, err := neo4j.GetRecordValue[int64](rec, "moved")
		return int(n), err
	})
	if err != nil {
		return 0, fmt.Errorf("delete category %d: %w", id, err)
	}
	return out, nil
}

// ReorderCategories gives the listed categories positions 1..n in order; it returns the ids that
// exist (the rest are unknown).
func (s *Store) ReorderCategories(ctx context.Context, ids []int64) ([]int64, error) {
	out, err := write(ctx, s, "reorder_categories", func(tx txn) ([]int64, error) {
		if err := lockCategories(tx); err != nil {
			return nil, err
		}
		recs, err := tx.collect("reorder_categories", queries.ReorderCategories, map[string]any{"ids": ids})
		if err != nil {
			return nil, err
		}
		moved := make([]int64, 0, len(recs))
		for _, r := range recs {
			id, _, _ := neo4j.GetRecordValue[int64](r, "id")
			moved = append(moved, id)
		}
		return moved, nil
	})
	if err != nil {
		return nil, fmt.Errorf("reorder categories: %w", err)
	}
	return out, nil
}

func lockCategories(tx txn) error {
	_, err := tx.single("lock_categories", queries.LockCategories, nil)
	return err
}

// nameFree refuses a name (case-insensitively) that a category other than self already holds.
func nameFree(tx txn, name string, self int64) error {
	recs, err := tx.collect("category_by_name", queries.CategoryByName, map[string]any{"name_key": nameKey(name)})
	if err != nil {
		return err
	}
	for _, r := range recs {
		if id, _, _ := neo4j.GetRecordValue[int64](r, "id"); id != self {
			return fmt.Errorf("category name %q is taken by category %d: %w", name, id, ErrConflict)
		}
	}
	return nil
}

func recordCategory(rec *neo4j.Record) (session.Category, error) {
	node, _, err := neo4j.GetRecordValue[neo4j.Node](rec, "c")
	if err != nil {
		return session.Category{}, fmt.Errorf("read category node: %w", err)
	}
	return categoryFrom(node.Props), nil
}

func categoryFrom(p map[string]any) session.Category {
	return session.Category{
		ID: asInt(p["id"]), Name: asString(p["name"]), Description: optString(p["description"]),
		IsFrozen: asBool(p["is_frozen"]), Position: asInt(p["position"]),
		CreatedAt: asTime(p["created_at"]), UpdatedAt: asTime(p["updated_at"]),
	}
}
