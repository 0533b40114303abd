package rest

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/orchestrator"
)

// mcpServerJSON is one catalog server as GET /configs and GET /mcp_servers carry it: the
// startup budget Zimmer accepted (null when absent or refused) and whether it can start now.
type mcpServerJSON struct {
	Name              string  `json:"name"`
	Title             string  `json:"title"`
	Description       string  `json:"description"`
	StartupTimeoutSec *int    `json:"startup_timeout_sec"`
	State             string  `json:"state"`
	Unavailable       bool    `json:"unavailable"`
	UnavailableReason *string `json:"unavailable_reason"`
}

func renderMCPServers(cat *catalog.Catalog, ready map[string]catalog.Readiness) []mcpServerJSON {
	out := []mcpServerJSON{}
	for _, name := range catalog.IDs(cat.MCPServers) {
		a, r := cat.MCPServers[name], ready[name]
		s := mcpServerJSON{Name: name, Title: a.Title, Description: a.Description, StartupTimeoutSec: a.StartupTimeoutSec,
			State: string(r.State), Unavailable: r.Blocks()}
		if r.Blocks() {
			s.UnavailableReason = &r.Reason
		}
		out = append(out, s)
	}
	return out
}

func (h *Handler) listMCPServers(c *gin.Context) error {
	cat, ready := h.ops.Readiness()
	c.JSON(http.StatusOK, gin.H{"mcp_servers": renderMCPServers(cat, ready)})
	return nil
}

func (h *Handler) showConfigs(c *gin.Context) error {
	cat, ready := h.ops.Readiness()
	roots := []gin.H{}
	for _, name := range slices.Sorted(maps.Keys(cat.Roots)) {
		r := cat.Roots[name]
		roots = append(roots, gin.H{"name": name, "display_name": r.DisplayName, "description": r.Description, "url": r.URL,
			"default_branch": r.DefaultBranch, "subdirectory": r.Subdirectory, "custom": false, "default_goal": r.DefaultGoal,
			"default": name == catalog.DefaultRoot, "default_mcp_servers": nonNil(r.DefaultMCPServers),
			"default_skills": nonNil(r.DefaultSkills), "default_hooks": nonNil(r.DefaultHooks), "default_plugins": nonNil(r.DefaultPlugins),
			"user_invocable": r.UserInvocable == nil || *r.UserInvocable, "default_model": r.DefaultModel, "default_runtime": r.DefaultRuntime})
	}
	models := gin.H{}
	for _, name := range cat.RuntimeNames() {
		models[name] = gin.H{"default": cat.DefaultModel(name), "models": nonNil(cat.Runtimes[name].Models)}
	}
	c.JSON(http.StatusOK, gin.H{"mcp_servers": renderMCPServers(cat, ready), "agent_roots": roots,
		"runtime_models": models, "goals": nonNil(cat.Goals)})
	return nil
}

// updateMCPServers replaces the session's MCP servers (at most 50, each in the catalog; []
// clears). It takes effect when the session's runtime config is next prepared: its next turn.
func (h *Handler) updateMCPServers(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	ids := b.strings("mcp_servers")
	if err := b.err(); err != nil {
		return err
	}
	if ids == nil {
		return &requestError{http.StatusUnprocessableEntity, "Unprocessable Entity",
			[]string{"mcp_servers must be an array of MCP server ids ([] clears them)"}}
	}
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, change, err := h.ops.ReplaceArtifacts(c.Request.Context(), sessionID, orchestrator.ArtifactMCPServers, *ids)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"session": h.renderSession(c.Request.Context(), s), "message": "MCP servers updated to " + listOrNone(change.After) +
		"; the change takes effect on the session's next turn"})
	return nil
}

func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "(none)"
	}
	return strings.Join(ids, ", ")
}

// nonNil renders an empty list as [] rather than null.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
