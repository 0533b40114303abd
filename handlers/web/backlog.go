package web

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The Backlog page: the work backlog in rank order with the human's levers over it (add, pin,
// place, remove for any reason, start now as a priority session). Agents reach the backlog
// only through its MCP tools, which have none of these levers.

func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/backlog", (*Handler).showBacklog},
		Route{http.MethodPost, "/backlog", (*Handler).addBacklogItem},
		Route{http.MethodPost, "/backlog/:id/pin", (*Handler).pinBacklogItem},
		Route{http.MethodPost, "/backlog/:id/place", (*Handler).placeBacklogItem},
		Route{http.MethodPost, "/backlog/:id/remove", (*Handler).removeBacklogItem},
		Route{http.MethodPost, "/backlog/:id/start", (*Handler).startBacklogItem},
	)
}

type backlogPage struct {
	Queue   []session.BacklogItem
	History []session.BacklogItem
	Bands   []string
	Notice  string
}

var backlogNotices = map[string]string{"added": "Added.", "pinned": "Saved.", "placed": "Moved.", "removed": "Removed.", "started": "Started."}

// backlogHistoryShown is how many items that left the queue the page lists.
const backlogHistoryShown = 20

func (h *Handler) showBacklog(c *gin.Context) {
	ctx := c.Request.Context()
	queue, err := h.ops.Backlog(ctx)
	if err != nil {
		h.fail(c, err)
		return
	}
	history, err := h.ops.BacklogHistory(ctx, backlogHistoryShown)
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "backlog.html", "Backlog",
		backlogPage{Queue: queue, History: history, Bands: session.BacklogBands, Notice: backlogNotices[c.Query("notice")]})
}

func (h *Handler) addBacklogItem(c *gin.Context) {
	_, err := h.ops.AppendBacklogItem(c.Request.Context(), orchestrator.BacklogAppend{
		IssueURL: c.PostForm("issue_url"), Title: c.PostForm("title"), Notes: c.PostForm("notes"), Band: c.PostForm("band"),
		AddedBy: h.ops.AdminKey()})
	h.backlogDone(c, err, "added")
}

func (h *Handler) pinBacklogItem(c *gin.Context) {
	id, ok := h.backlogItemID(c)
	if !ok {
		return
	}
	_, err := h.ops.PinBacklogItem(c.Request.Context(), id, c.PostForm("pinned") == "true")
	h.backlogDone(c, err, "pinned")
}

func (h *Handler) placeBacklogItem(c *gin.Context) {
	id, ok := h.backlogItemID(c)
	if !ok {
		return
	}
	position, err := strconv.Atoi(c.PostForm("position"))
	if err != nil {
		position = 0 // refused by the operation with what a position must be
	}
	_, err = h.ops.PlaceBacklogItem(c.Request.Context(), id, position)
	h.backlogDone(c, err, "placed")
}

func (h *Handler) removeBacklogItem(c *gin.Context) {
	id, ok := h.backlogItemID(c)
	if !ok {
		return
	}
	_, err := h.ops.RemoveBacklogItem(c.Request.Context(), id, c.PostForm("reason"), h.ops.AdminKey())
	h.backlogDone(c, err, "removed")
}

func (h *Handler) startBacklogItem(c *gin.Context) {
	id, ok := h.backlogItemID(c)
	if !ok {
		return
	}
	_, err := h.ops.StartBacklogItemAsPriority(c.Request.Context(), id, h.ops.AdminKey())
	h.backlogDone(c, err, "started")
}

func (h *Handler) backlogItemID(c *gin.Context) (int64, bool) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		h.refuse(c, &orchestrator.NotFoundError{Message: "No backlog item " + c.Param("id")}, "/backlog")
		return 0, false
	}
	return id, true
}

func (h *Handler) backlogDone(c *gin.Context, err error, notice string) {
	if err != nil {
		h.refuse(c, err, "/backlog")
		return
	}
	c.Redirect(http.StatusSeeOther, "/backlog?notice="+notice)
}
