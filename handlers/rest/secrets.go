package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// MountSecrets installs GET /api/secrets/keys on g (under /api/secrets, carrying the auth
// middleware): the names of the secrets Zimmer knows, so an operator can see what to set where.
func MountSecrets(g *gin.RouterGroup, h *Handler) {
	g.GET("/keys", h.adapt((*Handler).secretKeys))
}

// secretKeys lists names and where each is used, never a value. An unusable secrets file does
// not fail the list: its keys are left out and secrets_file_error says why (the message names
// the file and the line, never a value).
func (h *Handler) secretKeys(c *gin.Context) error {
	keys, fileErr := h.ops.SecretKeys()
	out := make([]gin.H, 0, len(keys))
	for _, k := range keys {
		out = append(out, gin.H{"name": k.Name, "description": k.Description})
	}
	body := gin.H{"secrets": out}
	if fileErr != nil {
		body["secrets_file_error"] = fileErr.Error()
	}
	c.JSON(http.StatusOK, body)
	return nil
}
