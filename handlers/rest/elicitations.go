package rest

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// Elicitations over HTTP. An MCP server under a session's agent asks and polls without a key
// (it is given none: the runner hands it only the URLs and the session id), so those two
// routes are public; answering needs the fleet's key (REST) or the MCP tool.

const (
	metaRequestID   = "com.pulsemcp/request-id"
	metaRespondedAt = "com.pulsemcp/responded-at"
)

// PublicRoutes are the routes MountPublic installs without the API key.
var PublicRoutes = []Route{
	{http.MethodPost, "/elicitations", (*Handler).createElicitation},
	{http.MethodGet, "/elicitations/:id", (*Handler).pollElicitation},
}

func init() {
	Routes = append(Routes, Route{http.MethodPatch, "/elicitations/:id/respond", (*Handler).respondElicitation})
}

// MountPublic installs PublicRoutes on g, which carries no auth middleware.
func MountPublic(g *gin.RouterGroup, h *Handler) {
	for _, r := range PublicRoutes {
		g.Handle(r.Method, r.Path, h.adapt(r.Handle))
	}
}

func (h *Handler) createElicitation(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	var meta map[string]any
	if raw, ok := b.raw["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		b.fail("_meta", "a JSON object")
	}
	requestID, _ := meta[metaRequestID].(string)
	message, mode, schema := b.str("message"), b.str("mode"), b.object("requestedSchema")
	sessionID, ttl := b.integer("session_id"), b.integer("ttl_ms")
	if err := b.err(); err != nil {
		return err
	}
	ask := orchestrator.ElicitationAsk{RequestID: requestID, Message: deref(message), Mode: deref(mode), RequestedSchema: schema, SessionID: sessionID}
	if ttl != nil {
		ask.TTL = time.Duration(*ttl) * time.Millisecond
		if ask.TTL <= 0 {
			ask.TTL = -1 // refused by the operation with the range it takes
		}
	}
	e, err := h.ops.CreateElicitation(c.Request.Context(), ask)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, gin.H{"id": e.ID, "request_id": e.RequestID, "status": e.Status, "expires_at": e.ExpiresAt})
	return nil
}

func (h *Handler) pollElicitation(c *gin.Context) error {
	e, err := h.ops.Elicitation(c.Request.Context(), c.Param("id"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, pollResponse(e))
	return nil
}

func (h *Handler) respondElicitation(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	action, content := b.str("action_type"), b.object("content")
	if err := b.err(); err != nil {
		return err
	}
	e, err := h.ops.RespondElicitation(c.Request.Context(), c.Param("id"), deref(action), content)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, pollResponse(e))
	return nil
}

// pollResponse is what a poller reads: the action ("pending" until answered, "expired" when
// nobody answered in time), the content of an accept, and the request's identity.
func pollResponse(e session.Elicitation) gin.H {
	meta := gin.H{metaRequestID: e.RequestID}
	if e.RespondedAt != nil {
		meta[metaRespondedAt] = e.RespondedAt.UTC().Format(time.RFC3339)
	}
	out := gin.H{"action": e.Status, "_meta": meta}
	if e.Status == session.ElicitationAccept {
		out["content"] = e.Response
	}
	return out
}
