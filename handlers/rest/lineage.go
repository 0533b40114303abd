package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/orchestrator"
)

// hierarchyJSON is `session_hierarchy`, a top-level sibling of `session` on GET /sessions/:id.
type hierarchyJSON struct {
	OriginSessionID  int64          `json:"origin_session_id"`
	RootSessionIDs   []int64        `json:"root_session_ids"`
	Truncated        bool           `json:"truncated"`
	TruncationReason *string        `json:"truncation_reason"`
	Nodes            []hierarchyRow `json:"nodes"`
}

type hierarchyRow struct {
	ID              int64   `json:"id"`
	Title           string  `json:"title"`
	AgentRoot       *string `json:"agent_root"`
	Status          string  `json:"status"`
	Depth           int     `json:"depth"`
	ParentSessionID *int64  `json:"parent_session_id"`
	UncleSessionIDs []int64 `json:"uncle_session_ids"`
	Current         bool    `json:"current"`
	Genesis         string  `json:"genesis"`
	PriorityClass   string  `json:"priority_class"`
}

func renderHierarchy(h *lineage.Hierarchy) hierarchyJSON {
	out := hierarchyJSON{OriginSessionID: h.OriginID, RootSessionIDs: h.RootIDs, Truncated: h.Truncated,
		Nodes: make([]hierarchyRow, 0, len(h.Nodes))}
	if r := h.Reason(); r != "" {
		out.TruncationReason = &r
	}
	for i := range h.Nodes {
		n := &h.Nodes[i]
		row := hierarchyRow{ID: n.ID, Title: n.Title, Status: n.Status, Depth: n.Depth, ParentSessionID: n.ParentID,
			UncleSessionIDs: n.InGraphUncles, Current: n.Current, Genesis: n.Genesis, PriorityClass: n.Class}
		if row.UncleSessionIDs == nil {
			row.UncleSessionIDs = []int64{}
		}
		if n.AgentRoot != "" {
			row.AgentRoot = &n.AgentRoot // rendered at once, while the hierarchy is unchanged
		}
		out.Nodes = append(out.Nodes, row)
	}
	return out
}

// removeUncleLink is DELETE /sessions/:id/uncle_links/:uncle_id: 204, 404 naming what is
// missing (with the direction hint), or 422.
func (h *Handler) removeUncleLink(c *gin.Context) error {
	junior, err := h.sessionID(c)
	if err != nil {
		return err
	}
	_, err = h.ops.RemoveUncle(c.Request.Context(), orchestrator.RemoveUncleParams{
		Junior: junior, Uncle: c.Param("uncle_id"), Acting: c.Query("acting_session_id"),
		Surface: "REST", Source: "api_v1:sessions.uncle_links.destroy",
	})
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
