package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/zimmerhq/zimmer/settings"
)

type appSettingsJSON struct {
	ProvenanceViaMCPEnabled bool       `json:"provenance_via_mcp_enabled"`
	UpdatedAt               *time.Time `json:"updated_at"`
}

func renderAppSettings(s settings.App) gin.H {
	return gin.H{"app_settings": appSettingsJSON{ProvenanceViaMCPEnabled: s.ProvenanceViaMCPEnabled, UpdatedAt: s.UpdatedAt}}
}

// showAppSettings is GET /app_settings.
func (h *Handler) showAppSettings(c *gin.Context) error {
	s, err := h.ops.AppSettings(c.Request.Context())
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, renderAppSettings(s))
	return nil
}

// updateAppSettings is PATCH /app_settings: {provenance_via_mcp_enabled: bool}. A value of any
// other type, null included, is a 422; an absent field is left as it is.
func (h *Handler) updateAppSettings(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	const field = "provenance_via_mcp_enabled"
	if b.sent(field) && !b.present(field) {
		b.fail(field, "true or false") // a setting is on or off; null is neither
	}
	change := settings.Change{ProvenanceViaMCPEnabled: b.boolean(field)}
	if err := b.err(); err != nil {
		return err
	}
	s, err := h.ops.UpdateAppSettings(c.Request.Context(), change)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, renderAppSettings(s))
	return nil
}
