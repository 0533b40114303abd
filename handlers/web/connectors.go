package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// The Connectors page: every catalog MCP server with its readiness, what to do about it, and
// the Authorize button that starts an OAuth server's flow. The authorization server sends the
// browser back to the callback, which stores the credential and resumes the sessions parked
// waiting for it.

func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/connectors", (*Handler).showConnectors},
		Route{http.MethodPost, "/connectors/:id/authorize", (*Handler).authorizeConnector},
		Route{http.MethodGet, orchestrator.OAuthCallbackPath, (*Handler).connectorCallback},
	)
}

type connectorsPage struct {
	Connectors []orchestrator.Connector
	OAuthOn    bool
	Notice     string
}

func (h *Handler) showConnectors(c *gin.Context) {
	h.render(c, http.StatusOK, "connectors.html", "Connectors", connectorsPage{Connectors: h.ops.Connectors(),
		OAuthOn: h.ops.OAuthEnabled(), Notice: c.Query("notice")})
}

func (h *Handler) authorizeConnector(c *gin.Context) {
	to, err := h.ops.BeginOAuth(c.Request.Context(), c.Param("id"))
	if err != nil {
		h.refuse(c, err, "/connectors")
		return
	}
	c.Redirect(http.StatusSeeOther, to)
}

func (h *Handler) connectorCallback(c *gin.Context) {
	done, err := h.ops.CompleteOAuth(c.Request.Context(), c.Query("state"), c.Query("code"), c.Query("error"))
	if err != nil {
		h.refuse(c, err, "/connectors")
		return
	}
	notice := done.Server + " is authorized."
	switch n := len(done.Resumed); {
	case n == 1:
		notice += " 1 session waiting for it continues."
	case n > 1:
		notice += " " + strconv.Itoa(n) + " sessions waiting for it continue."
	}
	c.Redirect(http.StatusSeeOther, "/connectors?notice="+url.QueryEscape(notice))
}
