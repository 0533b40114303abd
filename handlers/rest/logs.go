package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// A session's timeline: what happened to it, line by line.
func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/sessions/:id/logs", (*Handler).listLogs},
		Route{http.MethodPost, "/sessions/:id/logs", (*Handler).createLog},
		Route{http.MethodGet, "/sessions/:id/logs/:log_id", (*Handler).showLog},
		Route{http.MethodPatch, "/sessions/:id/logs/:log_id", (*Handler).updateLog},
		Route{http.MethodDelete, "/sessions/:id/logs/:log_id", (*Handler).deleteLog},
	)
}

func renderLog(e session.LogEntry) gin.H {
	return gin.H{"id": e.ID, "session_id": e.SessionID, "level": e.Level, "content": e.Content, "created_at": e.CreatedAt}
}

func (h *Handler) listLogs(c *gin.Context) error {
	page, perPage := pageQuery(c)
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	list, p, err := h.ops.ListLogs(c.Request.Context(), sessionID,
		orchestrator.LogListParams{Level: c.Query("level"), Page: page, PerPage: perPage})
	if err != nil {
		return err
	}
	out := make([]gin.H, 0, len(list))
	for _, e := range list {
		out = append(out, renderLog(e))
	}
	c.JSON(http.StatusOK, gin.H{"logs": out, "pagination": renderPage(p)})
	return nil
}

// logRequest reads the body's level and content and the session the route addresses.
func (h *Handler) logRequest(c *gin.Context) (sessionID int64, level, content *string, err error) {
	b, err := readBody(c.Request)
	if err != nil {
		return 0, nil, nil, err
	}
	level, content = b.str("level"), b.str("content")
	if err := b.err(); err != nil {
		return 0, nil, nil, err
	}
	sessionID, err = h.sessionID(c)
	return sessionID, level, content, err
}

// answerLog answers with one entry, or the operation's error.
func answerLog(c *gin.Context, status int, e session.LogEntry, err error) error {
	if err != nil {
		return err
	}
	c.JSON(status, gin.H{"log": renderLog(e)})
	return nil
}

func (h *Handler) createLog(c *gin.Context) error {
	sessionID, level, content, err := h.logRequest(c)
	if err != nil {
		return err
	}
	e, err := h.ops.CreateLog(c.Request.Context(), sessionID, level, content)
	return answerLog(c, http.StatusCreated, e, err)
}

func (h *Handler) showLog(c *gin.Context) error {
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	e, err := h.ops.GetLog(c.Request.Context(), sessionID, c.Param("log_id"))
	return answerLog(c, http.StatusOK, e, err)
}

func (h *Handler) updateLog(c *gin.Context) error {
	sessionID, level, content, err := h.logRequest(c)
	if err != nil {
		return err
	}
	e, err := h.ops.UpdateLog(c.Request.Context(), sessionID, c.Param("log_id"), level, content)
	return answerLog(c, http.StatusOK, e, err)
}

func (h *Handler) deleteLog(c *gin.Context) error {
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	if err := h.ops.DeleteLog(c.Request.Context(), sessionID, c.Param("log_id")); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
