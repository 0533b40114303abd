package web

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The Gate decisions page: the ledger, newest first, each decision with a form for the human's
// correction. It is the only write path for human_feedback: the MCP tools scrub it out of
// everything an agent records, and no REST route writes it.

func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/gate_decisions", (*Handler).showGateDecisions},
		Route{http.MethodPost, "/gate_decisions/:id/feedback", (*Handler).saveGateFeedback},
	)
}

// gatePageSize is how many decisions the page lists.
const gatePageSize = 50

type gatePage struct {
	Decisions []session.GateDecision
	Total     int
	Surface   string
	Notice    string
}

func (h *Handler) showGateDecisions(c *gin.Context) {
	surface := c.Query("surface")
	list, total, err := h.ops.SearchGateDecisions(c.Request.Context(), orchestrator.GateSearch{Surface: surface, Page: 1, PerPage: gatePageSize})
	if err != nil {
		h.fail(c, err)
		return
	}
	notice := ""
	if c.Query("notice") == "saved" {
		notice = "Feedback saved."
	}
	h.render(c, http.StatusOK, "gate_decisions.html", "Gate decisions", gatePage{Decisions: list, Total: total, Surface: surface, Notice: notice})
}

func (h *Handler) saveGateFeedback(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		h.refuse(c, &orchestrator.NotFoundError{Message: "No gate decision " + c.Param("id")}, "/gate_decisions")
		return
	}
	if _, err := h.ops.SetGateFeedback(c.Request.Context(), id, c.PostForm("feedback")); err != nil {
		h.refuse(c, err, "/gate_decisions")
		return
	}
	c.Redirect(http.StatusSeeOther, "/gate_decisions?notice=saved")
}
