package rest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The categories sessions are grouped in on the board.
func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/categories", (*Handler).listCategories},
		Route{http.MethodPost, "/categories", (*Handler).createCategory},
		Route{http.MethodPost, "/categories/reorder", (*Handler).reorderCategories},
		Route{http.MethodPatch, "/categories/:id", (*Handler).updateCategory},
		Route{http.MethodDelete, "/categories/:id", (*Handler).deleteCategory},
	)
}

type categoryJSON struct {
	ID           int64     `json:"id"`
	Name         string    `json:"name"`
	Description  *string   `json:"description"`
	Position     int64     `json:"position"`
	IsFrozen     bool      `json:"is_frozen"`
	SessionCount int       `json:"session_count"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

func renderCategory(c session.Category) categoryJSON {
	return categoryJSON{ID: c.ID, Name: c.Name, Description: c.Description, Position: c.Position, IsFrozen: c.IsFrozen,
		SessionCount: c.Sessions, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

func renderCategories(list []session.Category) []categoryJSON {
	out := make([]categoryJSON, 0, len(list))
	for _, c := range list {
		out = append(out, renderCategory(c))
	}
	return out
}

// categoryID reads :id; anything but a positive integer names no category.
func categoryID(c *gin.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, &orchestrator.NotFoundError{Message: "Category not found: " + c.Param("id"), Kind: orchestrator.ErrCategoryNotFound}
	}
	return id, nil
}

func (h *Handler) listCategories(c *gin.Context) error {
	list, err := h.ops.Categories(c.Request.Context())
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"categories": renderCategories(list)})
	return nil
}

func (h *Handler) createCategory(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	name, description, frozen := b.str("name"), b.str("description"), b.boolean("is_frozen")
	if err := b.err(); err != nil {
		return err
	}
	cat, err := h.ops.CreateCategory(c.Request.Context(), deref(name), description, frozen != nil && *frozen)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, gin.H{"category": renderCategory(cat)})
	return nil
}

func (h *Handler) updateCategory(c *gin.Context) error {
	id, err := categoryID(c)
	if err != nil {
		return err
	}
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	ch := orchestrator.CategoryChange{Name: b.optString("name"), Description: b.optString("description"), IsFrozen: b.optBool("is_frozen")}
	if err := b.err(); err != nil {
		return err
	}
	cat, err := h.ops.UpdateCategory(c.Request.Context(), id, ch)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"category": renderCategory(cat)})
	return nil
}

func (h *Handler) deleteCategory(c *gin.Context) error {
	id, err := categoryID(c)
	if err != nil {
		return err
	}
	if _, err := h.ops.DeleteCategory(c.Request.Context(), id); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// reorderCategories is POST /categories/reorder: ids in their new order. "uncategorized" may
// stand among them, as the MCP tool takes it; the Uncategorized lane keeps its place.
func (h *Handler) reorderCategories(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	var raw []any
	if b.present("ids") {
		if json.Unmarshal(b.raw["ids"], &raw) != nil {
			b.fail("ids", `an array of category ids and "uncategorized"`)
		}
	}
	if err := b.err(); err != nil {
		return err
	}
	var ids []int64
	for _, v := range raw {
		switch v := v.(type) {
		case float64:
			if v == float64(int64(v)) {
				ids = append(ids, int64(v))
				continue
			}
		case string:
			if strings.EqualFold(strings.TrimSpace(v), "uncategorized") {
				continue
			}
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				ids = append(ids, n)
				continue
			}
		}
		return unprocessable(`ids must be category ids or "uncategorized"`)
	}
	list, err := h.ops.ReorderCategories(c.Request.Context(), ids)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"categories": renderCategories(list)})
	return nil
}
