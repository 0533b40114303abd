package rest

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// messageJSON is the shape of an "enqueued_message" key.
type messageJSON struct {
	ID        int64     `json:"id"`
	SessionID int64     `json:"session_id"`
	Content   string    `json:"content"`
	Goal      *string   `json:"goal"`
	Position  int64     `json:"position"`
	Status    string    `json:"status"`
	Origin    string    `json:"origin"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func renderMessage(m *session.Message) messageJSON {
	return messageJSON{ID: m.ID, SessionID: m.SessionID, Content: m.Content, Goal: m.Goal, Position: m.Position,
		Status: m.Status, Origin: m.Origin, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
}

// messageID reads :message_id; anything but a positive integer cannot name a message, so it is
// the same 404 as an unknown one (the error table maps ErrMessageNotFound).
func messageID(c *gin.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("message_id"), 10, 64)
	if err != nil || id < 1 {
		return 0, orchestrator.ErrMessageNotFound
	}
	return id, nil
}

// messageRequest reads :message_id and the JSON body, for the routes that take both.
func messageRequest(c *gin.Context) (int64, *body, error) {
	id, err := messageID(c)
	if err != nil {
		return 0, nil, err
	}
	b, err := readBody(c.Request)
	return id, b, err
}

func (h *Handler) followUp(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	p := orchestrator.FollowUpParams{Prompt: deref(b.str("prompt")), Goal: b.str("goal"),
		ActingSessionID: b.rawText("acting_session_id"), Source: orchestrator.SourceFollowUp}
	force := b.boolean("force_immediate")
	if err := b.err(); err != nil {
		return err
	}
	p.ForceImmediate = force != nil && *force
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	out, err := h.ops.FollowUp(c.Request.Context(), sessionID, p)
	if err != nil {
		return err
	}
	var resp gin.H
	status := http.StatusOK
	switch out.Outcome {
	case orchestrator.FollowUpQueued:
		status = http.StatusAccepted
		resp = gin.H{"session": h.renderSession(c.Request.Context(), out.Session),
			"enqueued_message": gin.H{"id": out.Message.ID, "position": out.Message.Position, "status": out.Message.Status},
			"message":          "Message queued (session is running). It will be delivered when the current turn ends."}
	case orchestrator.FollowUpImmediate:
		resp = gin.H{"session": h.renderSession(c.Request.Context(), out.Session), "message": "Follow-up prompt sent immediately"}
	default:
		resp = gin.H{"session": h.renderSession(c.Request.Context(), out.Session), "message": "Follow-up prompt sent"}
	}
	if len(out.Warnings) > 0 {
		resp["warnings"] = out.Warnings
	}
	c.JSON(status, resp)
	return nil
}

func (h *Handler) listMessages(c *gin.Context) error {
	page, perPage := pageQuery(c)
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	list, p, err := h.ops.ListMessages(c.Request.Context(), sessionID,
		orchestrator.MessageListParams{Status: c.Query("status"), Page: page, PerPage: perPage})
	if err != nil {
		return err
	}
	out := make([]messageJSON, 0, len(list))
	for _, m := range list {
		out = append(out, renderMessage(m))
	}
	c.JSON(http.StatusOK, gin.H{"enqueued_messages": out, "pagination": renderPage(p)})
	return nil
}

// messageOf reads the session and the message a message route addresses.
func (h *Handler) messageOf(c *gin.Context) (sessionID, id int64, err error) {
	if id, err = messageID(c); err != nil {
		return 0, 0, err
	}
	sessionID, err = h.sessionID(c)
	return sessionID, id, err
}

// answerMessage answers with one message, or the operation's error.
func answerMessage(c *gin.Context, status int, m *session.Message, err error) error {
	if err != nil {
		return err
	}
	c.JSON(status, gin.H{"enqueued_message": renderMessage(m)})
	return nil
}

func (h *Handler) showMessage(c *gin.Context) error {
	sessionID, id, err := h.messageOf(c)
	if err != nil {
		return err
	}
	m, err := h.ops.GetMessage(c.Request.Context(), sessionID, id)
	return answerMessage(c, http.StatusOK, m, err)
}

func (h *Handler) createMessage(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	p := orchestrator.MessageParams{Content: deref(b.str("content")), Goal: b.str("goal"),
		ActingSessionID: b.rawText("acting_session_id"), Source: orchestrator.SourceEnqueue}
	if err := b.err(); err != nil {
		return err
	}
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	m, err := h.ops.CreateMessage(c.Request.Context(), sessionID, p)
	return answerMessage(c, http.StatusCreated, m, err)
}

func (h *Handler) updateMessage(c *gin.Context) error {
	id, b, err := messageRequest(c)
	if err != nil {
		return err
	}
	p := orchestrator.MessageUpdateParams{Content: b.optString("content"), Goal: b.optString("goal")}
	if err := b.err(); err != nil {
		return err
	}
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	m, err := h.ops.UpdateMessage(c.Request.Context(), sessionID, id, p)
	return answerMessage(c, http.StatusOK, m, err)
}

func (h *Handler) deleteMessage(c *gin.Context) error {
	sessionID, id, err := h.messageOf(c)
	if err != nil {
		return err
	}
	if err := h.ops.DeleteMessage(c.Request.Context(), sessionID, id); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

func (h *Handler) reorderMessage(c *gin.Context) error {
	id, b, err := messageRequest(c)
	if err != nil {
		return err
	}
	position := b.integer("position")
	if position == nil {
		return &requestError{http.StatusUnprocessableEntity, "Invalid position", []string{"position must be an integer of 1 or greater"}}
	}
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	m, err := h.ops.ReorderMessage(c.Request.Context(), sessionID, id, *position)
	return answerMessage(c, http.StatusOK, m, err)
}

func (h *Handler) interruptMessage(c *gin.Context) error {
	id, b, err := messageRequest(c)
	if err != nil {
		return err
	}
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, err := h.ops.Interrupt(c.Request.Context(), sessionID, id, b.rawText("acting_session_id"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"session": h.renderSession(c.Request.Context(), s), "message": "Message sent as interrupt"})
	return nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
