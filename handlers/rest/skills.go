package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/catalog"
)

func init() {
	Routes = append(Routes, Route{http.MethodGet, "/skills", (*Handler).listSkills})
}

type skillJSON struct {
	Name           string   `json:"name"`
	Title          string   `json:"title"`
	Description    string   `json:"description"`
	DefaultInRoots []string `json:"default_in_roots"`
}

// listSkills is GET /skills: the catalog's skills, by id, and the roots that start with each.
func (h *Handler) listSkills(c *gin.Context) error {
	cat := h.ops.Catalog()
	out := []skillJSON{}
	for _, name := range catalog.IDs(cat.Skills) {
		a := cat.Skills[name]
		out = append(out, skillJSON{Name: name, Title: a.Title, Description: a.Description, DefaultInRoots: nonNil(a.DefaultInRoots)})
	}
	c.JSON(http.StatusOK, gin.H{"skills": out})
	return nil
}
