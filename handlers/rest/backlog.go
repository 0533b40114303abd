package rest

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The work backlog's REST controller: the read every surface has, plus the human's levers
// (add, pin, place, remove for any reason, start as a priority session), which no MCP tool has.

// restActor names the REST API as who pulled a lever, in the item's record.
const restActor = "the REST API"

func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/backlog", (*Handler).listBacklog},
		Route{http.MethodPost, "/backlog", (*Handler).appendBacklog},
		Route{http.MethodPatch, "/backlog/:id", (*Handler).updateBacklog},
		Route{http.MethodDelete, "/backlog/:id", (*Handler).removeBacklog},
		Route{http.MethodPost, "/backlog/:id/start", (*Handler).startBacklog},
	)
}

type backlogItemJSON struct {
	ID             int64     `json:"id"`
	Position       *int64    `json:"position"`
	IssueURL       string    `json:"issue_url"`
	Title          string    `json:"title"`
	Notes          string    `json:"notes"`
	Band           string    `json:"band"`
	Pinned         bool      `json:"pinned"`
	Status         string    `json:"status"`
	AddedBySession *int64    `json:"added_by_session_id"`
	AddedByRoot    string    `json:"added_by_agent_root,omitempty"`
	AddedBy        string    `json:"added_by,omitempty"`
	SessionID      *int64    `json:"session_id"`
	PulledBy       *int64    `json:"pulled_by_session_id"`
	StartedBy      string    `json:"started_by,omitempty"`
	RemovedReason  string    `json:"removed_reason,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
}

func renderBacklogItem(it session.BacklogItem) backlogItemJSON {
	out := backlogItemJSON{ID: it.ID, IssueURL: it.IssueURL, Title: it.Title, Notes: it.Notes, Band: it.Band,
		Pinned: it.Pinned, Status: string(it.Status), AddedBySession: it.AddedBySession, AddedByRoot: it.AddedByRoot,
		AddedBy: it.AddedBy, SessionID: it.SessionID, PulledBy: it.PulledBy, StartedBy: it.StartedBy,
		RemovedReason: it.RemovedReason, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
	if it.Status == session.BacklogQueued {
		out.Position = &it.Rank
	}
	return out
}

func (h *Handler) listBacklog(c *gin.Context) error {
	queue, err := h.ops.Backlog(c.Request.Context())
	if err != nil {
		return err
	}
	items := make([]backlogItemJSON, len(queue))
	for i, it := range queue {
		items[i] = renderBacklogItem(it)
	}
	c.JSON(http.StatusOK, gin.H{"items": items, "total": len(items)})
	return nil
}

func (h *Handler) appendBacklog(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	url, title, notes, band := b.str("issue_url"), b.str("title"), b.str("notes"), b.str("band")
	if err := b.err(); err != nil {
		return err
	}
	it, err := h.ops.AppendBacklogItem(c.Request.Context(), orchestrator.BacklogAppend{
		IssueURL: deref(url), Title: deref(title), Notes: deref(notes), Band: deref(band), AddedBy: restActor})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, gin.H{"item": renderBacklogItem(it)})
	return nil
}

func (h *Handler) updateBacklog(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	pinned, position := b.boolean("pinned"), b.integer("position")
	if err := b.err(); err != nil {
		return err
	}
	if pinned == nil && position == nil {
		return &requestError{http.StatusUnprocessableEntity, "Unprocessable Entity", []string{"provide pinned and/or position"}}
	}
	id, err := backlogItemID(c)
	if err != nil {
		return err
	}
	var it session.BacklogItem
	if position != nil {
		if it, err = h.ops.PlaceBacklogItem(c.Request.Context(), id, int(min(*position, 1<<31))); err != nil {
			return err
		}
	}
	if pinned != nil {
		if it, err = h.ops.PinBacklogItem(c.Request.Context(), id, *pinned); err != nil {
			return err
		}
	}
	c.JSON(http.StatusOK, gin.H{"item": renderBacklogItem(it)})
	return nil
}

func (h *Handler) removeBacklog(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	reason := b.str("reason")
	if err := b.err(); err != nil {
		return err
	}
	id, err := backlogItemID(c)
	if err != nil {
		return err
	}
	it, err := h.ops.RemoveBacklogItem(c.Request.Context(), id, deref(reason), restActor)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"item": renderBacklogItem(it)})
	return nil
}

func (h *Handler) startBacklog(c *gin.Context) error {
	id, err := backlogItemID(c)
	if err != nil {
		return err
	}
	st, err := h.ops.StartBacklogItemAsPriority(c.Request.Context(), id, restActor)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, gin.H{"item": renderBacklogItem(st.Item), "session": h.renderSession(c.Request.Context(), st.Session)})
	return nil
}

func backlogItemID(c *gin.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, &requestError{http.StatusNotFound, "Not Found", []string{"Backlog item not found: " + c.Param("id")}}
	}
	return id, nil
}
