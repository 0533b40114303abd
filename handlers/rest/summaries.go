package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// summaryRoutes are the status summaries and the fleet-wide refresh.
var summaryRoutes = []Route{
	{http.MethodPost, "/sessions/:id/regenerate_status_summary", (*Handler).regenerateStatusSummary},
}

// regenerateStatusSummary queues a generation of the session's status summary: 202, or 422
// when there is nothing to summarize.
func (h *Handler) regenerateStatusSummary(c *gin.Context) error {
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	if err := h.ops.RegenerateStatusSummary(c.Request.Context(), sessionID); err != nil {
		return err
	}
	c.JSON(http.StatusAccepted, gin.H{"session_id": sessionID, "message": "Status summary regeneration queued"})
	return nil
}

// renderStatusSummary is GET /sessions/:id's status_summary: null for a session no summary was
// ever asked for.
func renderStatusSummary(v orchestrator.StatusSummaryView) any {
	if v.State == orchestrator.SummaryIdle && v.Summary == nil && !v.Generating {
		return nil
	}
	return gin.H{"summary": v.Summary, "messages_since_generated": v.MessagesSinceGenerated, "state": v.State,
		"generating": v.Generating, "error": v.Error, "generated_at": v.GeneratedAt}
}
