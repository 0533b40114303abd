package rest

import (
	"net/http"

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

// showCosts is GET /costs: the ledger priced at list price over a window, for the fleet, an
// agent root or a session (with include_descendants, its whole spawn hierarchy).
func (h *Handler) showCosts(c *gin.Context) error {
	q, err := orchestrator.ParseCostQuery(c.Request.URL.Query())
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
	q, err := orchestrator.ParseCostQuery(c.Request.URL.Query())
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
