package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The sub-agents a session's agent spawned, one transcript record each.
func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/sessions/:id/subagent_transcripts", (*Handler).listSubagentTranscripts},
		Route{http.MethodPost, "/sessions/:id/subagent_transcripts", (*Handler).createSubagentTranscript},
		Route{http.MethodGet, "/sessions/:id/subagent_transcripts/:transcript_id", (*Handler).showSubagentTranscript},
		Route{http.MethodPatch, "/sessions/:id/subagent_transcripts/:transcript_id", (*Handler).updateSubagentTranscript},
		Route{http.MethodDelete, "/sessions/:id/subagent_transcripts/:transcript_id", (*Handler).deleteSubagentTranscript},
	)
}

// renderSubagent is a transcript record; its text only when it was read (include_transcript).
func renderSubagent(t session.SubagentTranscript, withTranscript bool) gin.H {
	out := gin.H{"id": t.ID, "session_id": t.SessionID, "agent_id": t.AgentID, "tool_use_id": t.ToolUseID,
		"filename": t.Filename, "message_count": t.MessageCount, "subagent_type": t.SubagentType,
		"description": t.Description, "status": t.Status, "duration_ms": t.DurationMS, "total_tokens": t.TotalTokens,
		"tool_use_count": t.ToolUseCount, "created_at": t.CreatedAt, "updated_at": t.UpdatedAt}
	if withTranscript {
		out["transcript"] = t.Transcript
	}
	return out
}

func (h *Handler) listSubagentTranscripts(c *gin.Context) error {
	page, perPage := pageQuery(c)
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	list, p, err := h.ops.ListSubagentTranscripts(c.Request.Context(), sessionID, orchestrator.SubagentListParams{
		Status: c.Query("status"), SubagentType: c.Query("subagent_type"), Page: page, PerPage: perPage})
	if err != nil {
		return err
	}
	out := make([]gin.H, 0, len(list))
	for _, t := range list {
		out = append(out, renderSubagent(t, false))
	}
	c.JSON(http.StatusOK, gin.H{"subagent_transcripts": out, "pagination": renderPage(p)})
	return nil
}

// subagentRequest reads the body's fields and the session the route addresses.
func (h *Handler) subagentRequest(c *gin.Context) (int64, orchestrator.SubagentFields, error) {
	b, err := readBody(c.Request)
	if err != nil {
		return 0, orchestrator.SubagentFields{}, err
	}
	f := orchestrator.SubagentFields{AgentID: b.optString("agent_id"), ToolUseID: b.optString("tool_use_id"),
		Filename: b.optString("filename"), SubagentType: b.optString("subagent_type"), Description: b.optString("description"),
		Status: b.optString("status"), Transcript: b.optString("transcript"), MessageCount: b.optInt("message_count"),
		DurationMS: b.optInt("duration_ms"), TotalTokens: b.optInt("total_tokens"), ToolUseCount: b.optInt("tool_use_count")}
	if err := b.err(); err != nil {
		return 0, f, err
	}
	sessionID, err := h.sessionID(c)
	return sessionID, f, err
}

// answerSubagent answers with one record, or the operation's error.
func answerSubagent(c *gin.Context, status int, t session.SubagentTranscript, withTranscript bool, err error) error {
	if err != nil {
		return err
	}
	c.JSON(status, gin.H{"subagent_transcript": renderSubagent(t, withTranscript)})
	return nil
}

func (h *Handler) createSubagentTranscript(c *gin.Context) error {
	sessionID, f, err := h.subagentRequest(c)
	if err != nil {
		return err
	}
	t, err := h.ops.CreateSubagentTranscript(c.Request.Context(), sessionID, f)
	return answerSubagent(c, http.StatusCreated, t, false, err)
}

func (h *Handler) showSubagentTranscript(c *gin.Context) error {
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	with := queryBool(c.Query("include_transcript"))
	t, err := h.ops.SubagentTranscript(c.Request.Context(), sessionID, c.Param("transcript_id"), with)
	return answerSubagent(c, http.StatusOK, t, with, err)
}

func (h *Handler) updateSubagentTranscript(c *gin.Context) error {
	sessionID, f, err := h.subagentRequest(c)
	if err != nil {
		return err
	}
	t, err := h.ops.UpdateSubagentTranscript(c.Request.Context(), sessionID, c.Param("transcript_id"), f)
	return answerSubagent(c, http.StatusOK, t, false, err)
}

func (h *Handler) deleteSubagentTranscript(c *gin.Context) error {
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	if err := h.ops.DeleteSubagentTranscript(c.Request.Context(), sessionID, c.Param("transcript_id")); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
