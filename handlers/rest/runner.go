package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/session"
)

// transcriptWriteTimeout is how long a transcript download may take to write.
const transcriptWriteTimeout = 10 * time.Minute

// The runner-bound session actions: restart, pause, sleep, fork, refresh and the transcript.

func (h *Handler) restartSession(c *gin.Context) error {
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, err := h.ops.Restart(c.Request.Context(), sessionID)
	return h.answer(c, s, err, "Session restarted")
}

// pauseSession halts a running turn (paused_by=user); the runner terminates its process.
func (h *Handler) pauseSession(c *gin.Context) error {
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, err := h.ops.Pause(c.Request.Context(), sessionID)
	return h.answer(c, s, err, "")
}

func (h *Handler) sleepSession(c *gin.Context) error {
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, err := h.ops.Sleep(c.Request.Context(), sessionID)
	return h.answer(c, s, err, "")
}

// answer renders {session[, message]} for an action, or passes its error on.
func (h *Handler) answer(c *gin.Context, s *session.Session, err error, message string) error {
	if err != nil {
		return err
	}
	out := gin.H{"session": h.renderSession(c.Request.Context(), s)}
	if message != "" {
		out["message"] = message
	}
	c.JSON(http.StatusOK, out)
	return nil
}

func (h *Handler) forkSession(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	index := b.integer("message_index")
	if err := b.err(); err != nil {
		return err
	}
	var at *int
	if index != nil {
		i := int(*index)
		at = &i
	}
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	fork, err := h.ops.Fork(c.Request.Context(), sessionID, at)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, gin.H{"session": h.renderSession(c.Request.Context(), fork), "message": "Session forked successfully"})
	return nil
}

func (h *Handler) refreshSession(c *gin.Context) error {
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, message, err := h.ops.Refresh(c.Request.Context(), sessionID)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"session": h.renderSession(c.Request.Context(), s), "message": message})
	return nil
}

// showTranscript renders the transcript as text: text/plain with format=text, else JSON.
func (h *Handler) showTranscript(c *gin.Context) error {
	// A long transcript to a slow reader outlasts the server's write timeout; this route alone
	// gets longer.
	_ = http.NewResponseController(c.Writer).SetWriteDeadline(time.Now().Add(transcriptWriteTimeout))
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	text, err := h.ops.RenderTranscript(c.Request.Context(), sessionID)
	if err != nil {
		return err
	}
	if c.Query("format") == "text" {
		c.String(http.StatusOK, text)
		return nil
	}
	c.JSON(http.StatusOK, gin.H{"transcript_text": text})
	return nil
}
