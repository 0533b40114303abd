package rest

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// costRoutes are the token-spend report, its rows, and the sweep that fills the ledger.
var costRoutes = []Route{
	{http.MethodGet, "/costs", (*Handler).showCosts},
	{http.MethodGet, "/costs/records", (*Handler).listCostRecords},
	{http.MethodPost, "/costs/backfill", (*Handler).backfillCosts},
}

// costQuery reads the window and scope; a session_id that is not an id is a 422.
func costQuery(c *gin.Context) (orchestrator.CostQuery, error) {
	days, _ := strconv.Atoi(c.Query("days"))
	q := orchestrator.CostQuery{Days: days, From: c.Query("from"), To: c.Query("to"), AgentRoot: c.Query("agent_root"),
		IncludeDescendants: queryBool(c.Query("include_descendants"))}
	if v := c.Query("session_id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return q, &requestError{http.StatusUnprocessableEntity, "Validation failed", []string{"session_id must be a positive integer"}}
		}
		q.SessionID = id
	}
	return q, nil
}

// showCosts is GET /costs: the ledger priced at list price over a window, for the fleet, an
// agent root or a session (with include_descendants, its whole spawn hierarchy).
func (h *Handler) showCosts(c *gin.Context) error {
	q, err := costQuery(c)
	if err != nil {
		return err
	}
	r, err := h.ops.Costs(c.Request.Context(), q)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, r)
	return nil
}

// listCostRecords is GET /costs/records: the ledger's rows, newest first, a page at a time.
// kind=adhoc answers an empty page: every request this deployment records belongs to a session.
func (h *Handler) listCostRecords(c *gin.Context) error {
	kind := c.DefaultQuery("kind", "session")
	if kind != "session" && kind != "adhoc" {
		return &requestError{http.StatusUnprocessableEntity, "Validation failed", []string{"kind must be session or adhoc"}}
	}
	q, err := costQuery(c)
	if err != nil {
		return err
	}
	page, perPage := pageQuery(c)
	rq := orchestrator.CostRecordQuery{CostQuery: q, Model: c.Query("model"), Page: page, PerPage: perPage}
	if kind == "adhoc" {
		rq.SessionID = -1 // no session has a negative id: the page is empty
	}
	rows, p, w, err := h.ops.CostRecords(c.Request.Context(), rq)
	if err != nil {
		return err
	}
	prices, err := h.ops.Prices()
	if err != nil {
		return err
	}
	if rows == nil {
		rows = []session.TokenUsage{}
	}
	c.JSON(http.StatusOK, gin.H{"records": rows, "window": w, "pricing": prices, "pagination": renderPage(p)})
	return nil
}

// backfillCosts is POST /costs/backfill: start the sweep of every transcript into the ledger,
// or join the one in flight.
func (h *Handler) backfillCosts(c *gin.Context) error {
	run, joined, err := h.ops.BackfillTokenUsage(c.Request.Context(), "the REST API")
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"queued": true, "joined": joined, "run": run})
	return nil
}
