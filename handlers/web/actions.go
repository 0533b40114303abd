package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The session page's buttons: each posts to a route of its own, behind the same Basic
// credential and cross-site guard as every form, and calls the operation the REST route of the
// same name calls. None of them records a human message: they change state, they say nothing —
// except an edit of a queued message, which is new words and a capture boundary.

// sessionAction runs op on the route's session and goes back to its page with the notice.
func sessionAction(notice string, op func(ctx context.Context, ops *orchestrator.Service, id int64, c *gin.Context) (int64, error)) func(*Handler, *gin.Context) {
	return func(h *Handler, c *gin.Context) {
		id, back, err := h.sessionID(c)
		if err != nil {
			h.refuse(c, err, back)
			return
		}
		to, err := op(c.Request.Context(), h.ops, id, c)
		if err != nil {
			h.refuse(c, err, back)
			return
		}
		h.redirectToSession(c, to, notice)
	}
}

// same adapts an operation that returns the session it acted on.
func same(op func(*orchestrator.Service, context.Context, int64) (*session.Session, error)) func(context.Context, *orchestrator.Service, int64, *gin.Context) (int64, error) {
	return func(ctx context.Context, ops *orchestrator.Service, id int64, _ *gin.Context) (int64, error) {
		_, err := op(ops, ctx, id)
		return id, err
	}
}

var (
	pauseSession     = sessionAction("paused", same((*orchestrator.Service).Pause))
	sleepSession     = sessionAction("sleeping", same((*orchestrator.Service).Sleep))
	restartSession   = sessionAction("restarted", same((*orchestrator.Service).Restart))
	unarchiveSession = sessionAction("restored", same((*orchestrator.Service).Unarchive))
	favoriteSession  = sessionAction("favourite", same((*orchestrator.Service).ToggleFavorite))
	archiveSession   = sessionAction("archived", func(ctx context.Context, ops *orchestrator.Service, id int64, c *gin.Context) (int64, error) {
		_, err := ops.Archive(ctx, id, orchestrator.ArchiveParams{Force: c.PostForm("force") == "true", Actor: "the web UI"})
		return id, err
	})
	forkSession = sessionAction("forked", func(ctx context.Context, ops *orchestrator.Service, id int64, c *gin.Context) (int64, error) {
		var at *int
		if n, err := strconv.Atoi(c.PostForm("message_index")); err == nil {
			at = &n
		}
		s, err := ops.Fork(ctx, id, at)
		if err != nil {
			return 0, err
		}
		return s.ID, nil
	})
	refreshSession = sessionAction("refreshed", func(ctx context.Context, ops *orchestrator.Service, id int64, _ *gin.Context) (int64, error) {
		_, _, err := ops.Refresh(ctx, id)
		return id, err
	})
	// updateSession saves the edit form: title, goal (blank clears it) and scheduling class
	// (blank returns it to the genesis default).
	updateSession = sessionAction("updated", func(ctx context.Context, ops *orchestrator.Service, id int64, c *gin.Context) (int64, error) {
		title, goal, class := c.PostForm("title"), c.PostForm("goal"), c.PostForm("scheduling_class")
		p := orchestrator.UpdateParams{Title: orchestrator.Opt[string]{Set: true, Value: &title}, Goal: orchestrator.Opt[string]{Set: true, Value: &goal},
			SchedulingClass: orchestrator.Opt[string]{Set: true}}
		if class != "" {
			p.SchedulingClass.Value = &class
		}
		_, err := ops.Update(ctx, id, p)
		return id, err
	})
	// serversSession replaces the session's MCP servers with the ticked ones (none ticked: none).
	serversSession = sessionAction("servers", func(ctx context.Context, ops *orchestrator.Service, id int64, c *gin.Context) (int64, error) {
		_, _, err := ops.ReplaceArtifacts(ctx, id, orchestrator.ArtifactMCPServers, c.PostFormArray("mcp_servers"))
		return id, err
	})
	notesSession = sessionAction("notes", func(ctx context.Context, ops *orchestrator.Service, id int64, c *gin.Context) (int64, error) {
		_, err := ops.UpdateNotes(ctx, id, c.PostForm("notes"))
		return id, err
	})
)

// deleteSession hard-deletes a session (offered on archived ones) and goes to the Trash.
func (h *Handler) deleteSession(c *gin.Context) {
	id, back, err := h.sessionID(c)
	if err == nil {
		err = h.ops.Delete(c.Request.Context(), id)
	}
	if err != nil {
		h.refuse(c, err, back)
		return
	}
	c.Redirect(http.StatusSeeOther, "/trash?notice=deleted")
}

// messageAction runs op on the route's queued message and goes back to the session's page.
func messageAction(notice string, op func(ctx context.Context, ops *orchestrator.Service, id, msg int64, c *gin.Context) error) func(*Handler, *gin.Context) {
	return func(h *Handler, c *gin.Context) {
		id, back, err := h.sessionID(c)
		if err != nil {
			h.refuse(c, err, back)
			return
		}
		msg, err := strconv.ParseInt(c.Param("message_id"), 10, 64)
		if err != nil {
			h.refuse(c, orchestrator.ErrMessageNotFound, back)
			return
		}
		if err := op(c.Request.Context(), h.ops, id, msg, c); err != nil {
			h.refuse(c, err, back)
			return
		}
		h.redirectToSession(c, id, notice)
	}
}

var (
	// editMessage is the queued-message edit's capture boundary (web_ui.enqueued_message_edited).
	editMessage = messageAction("edited", func(ctx context.Context, ops *orchestrator.Service, id, msg int64, c *gin.Context) error {
		_, err := ops.WebEditMessage(ctx, id, msg, c.PostForm("content"))
		return err
	})
	reorderMessage = messageAction("moved", func(ctx context.Context, ops *orchestrator.Service, id, msg int64, c *gin.Context) error {
		pos, err := strconv.ParseInt(c.PostForm("position"), 10, 64)
		if err != nil || pos > maxQueueMoves {
			pos = 0 // refused below as an invalid position
		}
		_, err = ops.ReorderMessage(ctx, id, msg, pos)
		return err
	})
	deleteMessage = messageAction("deleted_message", func(ctx context.Context, ops *orchestrator.Service, id, msg int64, _ *gin.Context) error {
		return ops.DeleteMessage(ctx, id, msg)
	})
	sendNow = messageAction("sent_now", func(ctx context.Context, ops *orchestrator.Service, id, msg int64, _ *gin.Context) error {
		_, err := ops.Interrupt(ctx, id, msg, "")
		return err
	})
)

// chatBubble is the chat bubble's capture boundary (web_ui.chat_bubble): a router session on
// the prompt, told which page it was typed on; only the typed prompt is recorded.
func (h *Handler) chatBubble(c *gin.Context) {
	out, err := h.ops.WebChatBubble(c.Request.Context(), c.PostForm("prompt"), c.PostForm("page"))
	if err != nil {
		h.refuse(c, err, "/sessions")
		return
	}
	h.redirectToSession(c, out.Session.ID, "created")
}
