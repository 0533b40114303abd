package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func (h *Handler) listSessions(c *gin.Context) error {
	page, perPage := pageQuery(c)
	list, p, err := h.ops.List(c.Request.Context(), orchestrator.ListParams{
		Status: c.Query("status"), AgentRuntime: c.Query("agent_runtime"), PriorityClass: c.Query("priority_class"),
		Genesis: c.Query("genesis"), ShowArchived: queryBool(c.Query("show_archived")), Page: page, PerPage: perPage,
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"sessions": h.renderSessions(c.Request.Context(), list), "pagination": renderPage(p)})
	return nil
}

func (h *Handler) createSession(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	p := orchestrator.CreateParams{
		AgentRoot: b.str("agent_root"), AgentRuntime: b.str("agent_runtime"), Prompt: b.str("prompt"),
		GitRoot: b.str("git_root"), Branch: b.str("branch"), Subdirectory: b.str("subdirectory"),
		Title: b.str("title"), Slug: b.str("slug"), Goal: b.str("goal"), ExecutionProvider: b.str("execution_provider"),
		SchedulingClass: b.str("scheduling_class"), Place: b.str("place"), IdempotencyKey: b.str("idempotency_key"),
		IsAutonomous: b.boolean("is_autonomous"), ParentSessionID: b.integer("parent_session_id"),
		AutoCompactWindow: b.integer("auto_compact_window"), Precedence: b.integer("precedence"),
		MCPServers: b.strings("mcp_servers"), CatalogSkills: b.strings("catalog_skills"),
		CatalogHooks: b.strings("catalog_hooks"), CatalogPlugins: b.strings("catalog_plugins"),
		Config: b.object("config"), CustomMetadata: b.object("custom_metadata"),
		Genesis: session.GenesisAPI,
	}
	if err := b.err(); err != nil {
		return err
	}
	out, err := h.ops.Create(c.Request.Context(), p)
	if err != nil {
		return err
	}
	resp := gin.H{"session": h.renderSession(c.Request.Context(), out.Session), "agent_job_queued": out.JobQueued}
	if len(out.Warnings) > 0 {
		resp["warnings"] = out.Warnings
	}
	if out.Existing {
		resp["idempotency_key_matched"] = true
		resp["message"] = "Existing session returned (idempotency_key matched)"
		c.JSON(http.StatusOK, resp)
		return nil
	}
	c.JSON(http.StatusCreated, resp)
	return nil
}

func (h *Handler) showSession(c *gin.Context) error {
	// The one read below says itself when the session is missing.
	sessionID, err := h.ops.ID(c.Request.Context(), c.Param("id"))
	if err != nil {
		return err
	}
	asOf, err := orchestrator.ParseAsOf(c.Query("as_of"))
	if err != nil {
		return err
	}
	v, err := h.ops.SessionView(c.Request.Context(), sessionID, 0)
	if err != nil {
		return err
	}
	rec := v.Record
	if !asOf.IsZero() {
		if rec, err = h.ops.ProvenanceAsOf(c.Request.Context(), sessionID, asOf); err != nil {
			return err
		}
	}
	js := renderSessionIn(rec.Session, v.Category)
	if queryBool(c.Query("include_transcript")) {
		records, err := h.ops.TranscriptRecords(c.Request.Context(), sessionID)
		if err != nil {
			return err
		}
		js.Transcript = records
	}
	summary, err := h.ops.StatusSummaryOf(v)
	if err != nil {
		return err
	}
	resp := gin.H{"session": js, "status_summary": renderStatusSummary(summary),
		"session_hierarchy": renderHierarchy(rec.Hierarchy), "human_messages": renderHumanMessages(rec)}
	if !asOf.IsZero() {
		resp["as_of"] = asOf.UTC()
	}
	c.JSON(http.StatusOK, resp)
	return nil
}

func (h *Handler) updateSession(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	p := orchestrator.UpdateParams{
		Title: b.optString("title"), Slug: b.optString("slug"), Goal: b.optString("goal"),
		SchedulingClass: b.optString("scheduling_class"), IsAutonomous: b.optBool("is_autonomous"),
		Precedence: b.optInt("precedence"),
	}
	if b.sent("custom_metadata") {
		m := b.object("custom_metadata")
		p.CustomMetadata = orchestrator.Opt[map[string]any]{Set: true, Value: &m}
	}
	if err := b.err(); err != nil {
		return err
	}
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, err := h.ops.Update(c.Request.Context(), sessionID, p)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"session": h.renderSession(c.Request.Context(), s)})
	return nil
}

func (h *Handler) deleteSession(c *gin.Context) error {
	id, err := h.sessionID(c)
	if err != nil {
		return err
	}
	if err := h.ops.Delete(c.Request.Context(), id); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

func (h *Handler) archiveSession(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	force := b.boolean("force")
	if err := b.err(); err != nil {
		return err
	}
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, err := h.ops.Archive(c.Request.Context(), sessionID, orchestrator.ArchiveParams{
		Force: force != nil && *force, Actor: "the REST API",
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"session": h.renderSession(c.Request.Context(), s), "message": "Session moved to trash", "trash_after": s.TrashAfter})
	return nil
}

func (h *Handler) unarchiveSession(c *gin.Context) error {
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, err := h.ops.Unarchive(c.Request.Context(), sessionID)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"session": h.renderSession(c.Request.Context(), s), "clone_restored": false,
		"message": "Session restored to needs_input; its clone is prepared again on the next run"})
	return nil
}

func (h *Handler) updateNotes(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	notes := b.str("session_notes")
	if err := b.err(); err != nil {
		return err
	}
	if notes == nil {
		return &requestError{http.StatusUnprocessableEntity, "Unprocessable Entity", []string{"session_notes is required (\"\" clears the notes)"}}
	}
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, err := h.ops.UpdateNotes(c.Request.Context(), sessionID, *notes)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"session": h.renderSession(c.Request.Context(), s), "session_notes_updated_at": s.SessionNotesUpdatedAt})
	return nil
}
