package web

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The Ranked page: the spot queue in the order the scheduler ranks it, with the human's two
// levers — Start now (past the spot gate; refused for a session asleep on a wall-clock wake)
// and, on the session page, Demote to spot.

var spotRoutes = []Route{
	{http.MethodGet, "/ranked", (*Handler).ranked},
	{http.MethodPost, "/sessions/:id/start_now", startNowSession},
	{http.MethodPost, "/sessions/:id/demote_to_spot", demoteSession},
}

var (
	startNowSession = sessionAction("started", same((*orchestrator.Service).StartNow))
	demoteSession   = sessionAction("demoted", same((*orchestrator.Service).DemoteToSpot))
)

// rankedPage is the Ranked page's data: the first hundred of the queue and its length.
type rankedPage struct {
	Sessions []*session.Session
	Total    int
}

func (h *Handler) ranked(c *gin.Context) {
	list, page, err := h.ops.SpotQueue(c.Request.Context(), 1, orchestrator.MaxPerPage)
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "ranked.html", "Ranked", rankedPage{Sessions: list, Total: page.TotalCount})
}

// inSpotQueue: waiting in the spot queue, parked or held at its first start.
func inSpotQueue(s *session.Session) bool {
	return s.Status == session.StatusWaiting && (session.BagString(s.Metadata, session.MetaSpotQueuedAt) != "" ||
		session.BagString(s.Metadata, session.MetaSpotHoldReason) != "")
}
