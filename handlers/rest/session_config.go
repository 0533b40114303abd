package rest

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// A session's settings one at a time: its catalog lists, model, heartbeat, category and star,
// and a child's report to its parent.
func init() {
	Routes = append(Routes,
		Route{http.MethodPatch, "/sessions/:id/catalog_skills", artifactsRoute(orchestrator.ArtifactSkills, "catalog_skills", "Skills")},
		Route{http.MethodPatch, "/sessions/:id/catalog_hooks", artifactsRoute(orchestrator.ArtifactHooks, "catalog_hooks", "Hooks")},
		Route{http.MethodPatch, "/sessions/:id/catalog_plugins", artifactsRoute(orchestrator.ArtifactPlugins, "catalog_plugins", "Plugins")},
		Route{http.MethodPatch, "/sessions/:id/model", (*Handler).changeModel},
		Route{http.MethodPatch, "/sessions/:id/heartbeat", (*Handler).setHeartbeat},
		Route{http.MethodPatch, "/sessions/:id/set_category", (*Handler).setCategory},
		Route{http.MethodPost, "/sessions/:id/toggle_favorite", (*Handler).toggleFavorite},
		Route{http.MethodPost, "/sessions/:id/message_parent", (*Handler).messageParent},
	)
}

// artifactsRoute replaces one catalog list of a session, as PATCH /sessions/:id/mcp_servers
// does for the MCP servers: the whole list, [] clearing it, from the session's next turn.
func artifactsRoute(kind orchestrator.ArtifactKind, field, noun string) func(*Handler, *gin.Context) error {
	return func(h *Handler, c *gin.Context) error {
		b, err := readBody(c.Request)
		if err != nil {
			return err
		}
		ids := b.strings(field)
		if err := b.err(); err != nil {
			return err
		}
		if ids == nil {
			return unprocessable(field + " must be an array of catalog ids ([] clears them)")
		}
		sessionID, err := h.sessionID(c)
		if err != nil {
			return err
		}
		s, change, err := h.ops.ReplaceArtifacts(c.Request.Context(), sessionID, kind, *ids)
		if err != nil {
			return err
		}
		c.JSON(http.StatusOK, gin.H{"session": h.renderSession(c.Request.Context(), s),
			"message": noun + " updated to " + listOrNone(change.After) + "; the change takes effect on the session's next turn"})
		return nil
	}
}

func unprocessable(messages ...string) error {
	return &requestError{http.StatusUnprocessableEntity, "Unprocessable Entity", messages}
}

func (h *Handler) changeModel(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	model := b.str("model")
	if err := b.err(); err != nil {
		return err
	}
	if model == nil || strings.TrimSpace(*model) == "" {
		return unprocessable("model is required")
	}
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, _, err := h.ops.ChangeModel(c.Request.Context(), sessionID, *model)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"session": h.renderSession(c.Request.Context(), s), "message": "Model updated"})
	return nil
}

func (h *Handler) setHeartbeat(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	enabled, interval := b.boolean("enabled"), b.integer("interval_seconds")
	if err := b.err(); err != nil {
		return err
	}
	if enabled == nil && interval == nil {
		return unprocessable("Give enabled (true or false) and/or interval_seconds")
	}
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, err := h.ops.SetHeartbeat(c.Request.Context(), sessionID, enabled, interval)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"session": h.renderSession(c.Request.Context(), s),
		"heartbeat_enabled": s.HeartbeatEnabled, "heartbeat_interval_seconds": s.HeartbeatInterval})
	return nil
}

// setCategory takes category_id as an integer or its digits; null or "" clears it.
func (h *Handler) setCategory(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	raw := strings.Trim(b.rawText("category_id"), `" `)
	var id *int64
	if raw != "" && raw != "null" {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return unprocessable("category_id must be a category's id, or null to clear it")
		}
		id = &n
	}
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, cat, err := h.ops.SetSessionCategory(c.Request.Context(), sessionID, id)
	if err != nil {
		return err
	}
	message := "Session moved to Uncategorized"
	if cat != nil {
		message = "Session moved to " + cat.Name
	}
	c.JSON(http.StatusOK, gin.H{"session": h.renderSession(c.Request.Context(), s), "message": message})
	return nil
}

func (h *Handler) toggleFavorite(c *gin.Context) error {
	sessionID, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, err := h.ops.ToggleFavorite(c.Request.Context(), sessionID)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"session": h.renderSession(c.Request.Context(), s), "favorited": s.Favorited})
	return nil
}

// messageParent is a child's report to the session that spawned it, delivered like a
// follow-up: queued while the parent runs, at once when it is idle.
func (h *Handler) messageParent(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	message, reason := b.str("message"), b.str("reason")
	force, unarchive := b.boolean("force_immediate"), b.boolean("unarchive_parent")
	if err := b.err(); err != nil {
		return err
	}
	if message == nil || strings.TrimSpace(*message) == "" {
		return unprocessable("message is required")
	}
	child, err := h.sessionID(c)
	if err != nil {
		return err
	}
	r, err := h.ops.MessageParent(c.Request.Context(), orchestrator.MessageParentParams{Child: child, Message: *message,
		Reason: deref(reason), ForceImmediate: force != nil && *force, UnarchiveParent: unarchive != nil && *unarchive})
	if err != nil {
		return err
	}
	out := gin.H{"session": h.renderSession(c.Request.Context(), r.Parent), "delivery": string(r.Delivery.Outcome),
		"parent_unarchived": r.Unarchived, "message": "Message delivered to parent session " + strconv.FormatInt(r.Parent.ID, 10)}
	if m := r.Delivery.Message; m != nil {
		out["enqueued_message"] = gin.H{"id": m.ID, "position": m.Position, "status": m.Status}
	}
	c.JSON(http.StatusOK, out)
	return nil
}
