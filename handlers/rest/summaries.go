package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// summaryRoutes are the status summaries and the fleet-wide refresh.
var summaryRoutes = []Route{
	{http.MethodPost, "/sessions/:id/regenerate_status_summary", (*Handler).regenerateStatusSummary},
	{http.MethodPost, "/sessions/refresh_all", (*Handler).refreshAll},
}

// refreshAll restarts, continues and re-reads the fleet (orchestrator.RefreshAll).
func (h *Handler) refreshAll(c *gin.Context) error {
	r, err := h.ops.RefreshAll(c.Request.Context())
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"message": r.Message(), "refreshed": len(r.Refreshed), "restarted": len(r.Restarted),
		"continued": len(r.Continued), "errors": r.Errors, "more": r.More})
	return nil
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
