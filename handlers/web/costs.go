package web

import (
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The Costs page: the token ledger at list price over a window — the fleet by agent root and
// model, or one agent root, or one session with its whole spawn hierarchy — with how complete the
// ledger is, the models the price list lacks, and the button that sweeps every transcript in.

func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/costs", (*Handler).showCosts},
		Route{http.MethodGet, "/costs/coverage", (*Handler).costCoverage},
		Route{http.MethodPost, "/costs/backfill", (*Handler).backfillCosts},
	)
}

type costsPage struct {
	Query   orchestrator.CostQuery
	Report  *orchestrator.CostReport
	Session *session.Session // the drilled-into session, when the scope is one
	Notice  string
}

var costNotices = map[string]string{
	"started": "The sweep of every transcript into the ledger started.",
	"joined":  "A sweep was already running; you are watching it.",
}

func (h *Handler) showCosts(c *gin.Context) {
	ctx := c.Request.Context()
	q, err := orchestrator.ParseCostQuery(c.Request.URL.Query())
	if err != nil {
		h.refuse(c, err, "/costs")
		return
	}
	p := costsPage{Query: q, Notice: costNotices[c.Query("notice")]}
	if q.SessionID != 0 {
		if p.Session, err = h.ops.Get(ctx, q.SessionID); err != nil {
			h.refuse(c, err, "/costs")
			return
		}
	}
	if p.Report, err = h.ops.Costs(ctx, q); err != nil {
		h.refuse(c, err, "/costs")
		return
	}
	h.render(c, http.StatusOK, "costs.html", "Costs", p)
}

// costCoverage is the ledger-coverage panel alone: the page polls it while a sweep runs.
func (h *Handler) costCoverage(c *gin.Context) {
	cov, err := h.ops.LedgerCoverage(c.Request.Context())
	if err != nil {
		h.fail(c, err)
		return
	}
	html, err := h.fragment("costs.html", "cost-coverage", cov)
	if err != nil {
		h.fail(c, err)
		return
	}
	c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(html))
}

// backfillCosts starts the sweep of every transcript into the ledger, or joins the one running.
func (h *Handler) backfillCosts(c *gin.Context) {
	_, joined, err := h.ops.BackfillTokenUsage(c.Request.Context(), "the web UI")
	if err != nil {
		h.refuse(c, err, "/costs")
		return
	}
	notice := "started"
	if joined {
		notice = "joined"
	}
	c.Redirect(http.StatusSeeOther, "/costs?"+url.Values{"notice": {notice}}.Encode())
}
