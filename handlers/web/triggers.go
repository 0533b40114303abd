package web

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/trigger"
)

// The /triggers page: every trigger with its conditions, enable/disable, and cancelling a
// pending wake — the one way a human takes over a session asleep on a wall-clock wake.

var triggerRoutes = []Route{
	{http.MethodGet, "/triggers", (*Handler).listTriggers},
	{http.MethodPost, "/triggers/:id/toggle", (*Handler).toggleTrigger},
	{http.MethodPost, "/triggers/:id/cancel_wake", (*Handler).cancelWake},
}

type triggerRow struct {
	*trigger.Trigger
	Conditions []string
	Wake       bool // a pending wake: cancellable
	Bursting   bool
}

type triggersPage struct {
	Rows   []triggerRow
	Notice string
	Page   orchestrator.Page
}

var triggerNotices = map[string]string{"toggled": "Trigger toggled.", "cancelled": "Wake cancelled: the session is no longer waiting on it."}

func (h *Handler) listTriggers(c *gin.Context) {
	page, _ := strconv.Atoi(c.Query("page"))
	list, pg, err := h.ops.ListTriggers(c.Request.Context(), orchestrator.TriggerListParams{Page: page, PerPage: orchestrator.MaxPerPage})
	if err != nil {
		h.fail(c, err)
		return
	}
	now := h.ops.Now()
	p := triggersPage{Notice: triggerNotices[c.Query("notice")], Page: pg}
	for _, t := range list {
		row := triggerRow{Trigger: t, Wake: t.OneTime() && t.Status != trigger.StatusFailed, Bursting: t.Bursting(now)}
		for _, cond := range t.Conditions {
			row.Conditions = append(row.Conditions, string(cond.Type)+": "+trigger.Describe(cond))
		}
		p.Rows = append(p.Rows, row)
	}
	h.render(c, http.StatusOK, "triggers.html", "Triggers", p)
}

func (h *Handler) triggerID(c *gin.Context) (int64, bool) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		h.refuse(c, &orchestrator.NotFoundError{Message: "No trigger " + c.Param("id")}, "/triggers")
		return 0, false
	}
	return id, true
}

func (h *Handler) toggleTrigger(c *gin.Context) {
	id, ok := h.triggerID(c)
	if !ok {
		return
	}
	if _, err := h.ops.ToggleTrigger(c.Request.Context(), id, nil); err != nil {
		h.refuse(c, err, "/triggers")
		return
	}
	c.Redirect(http.StatusSeeOther, "/triggers?notice=toggled")
}

// cancelWake deletes a pending wake; a trigger that is not a wake is refused (delete those
// deliberately, over the API).
func (h *Handler) cancelWake(c *gin.Context) {
	id, ok := h.triggerID(c)
	if !ok {
		return
	}
	t, err := h.ops.GetTrigger(c.Request.Context(), id, nil)
	if err == nil && !t.OneTime() {
		err = &orchestrator.ValidationError{Label: "Not a wake", Messages: []string{"Trigger " + strconv.FormatInt(id, 10) + " is not a pending wake; only wakes are cancelled here."}}
	}
	if err == nil {
		err = h.ops.DeleteTrigger(c.Request.Context(), id, nil)
	}
	if err != nil {
		h.refuse(c, err, "/triggers")
		return
	}
	c.Redirect(http.StatusSeeOther, "/triggers?notice=cancelled")
}
