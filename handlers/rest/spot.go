package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/settings"
)

// spotRoutes are the spot gate's policy, the ranked queue and the human's levers on it.
var spotRoutes = []Route{
	{http.MethodGet, "/spot_policy", (*Handler).showSpotPolicy},
	{http.MethodPatch, "/spot_policy", (*Handler).updateSpotPolicy},
	{http.MethodGet, "/spot_queue", (*Handler).listSpotQueue},
	{http.MethodPost, "/sessions/:id/start_now", (*Handler).startNow},
	{http.MethodPost, "/sessions/:id/demote_to_spot", (*Handler).demoteToSpot},
}

type spotPolicyJSON struct {
	Enabled               bool              `json:"enabled"`
	FiveHourThresholdPct  int               `json:"five_hour_threshold_pct"`
	WeeklyThresholdPct    int               `json:"weekly_threshold_pct"`
	MaxConcurrentSessions int               `json:"max_concurrent_sessions"`
	GenesisClassOverrides map[string]string `json:"genesis_class_overrides"`
	GenesisClasses        map[string]string `json:"genesis_classes"`
	UpdatedAt             *time.Time        `json:"updated_at"`
}

type spotPoolJSON struct {
	Runtime     string   `json:"runtime"`
	Decision    string   `json:"decision"` // running | held
	Reason      string   `json:"reason"`
	Detail      string   `json:"detail"`
	Running     int      `json:"running_sessions"`
	Leaving     int      `json:"spot_sessions_paused_mid_run"`
	FiveHourPct *float64 `json:"five_hour_utilization_pct"`
	WeeklyPct   *float64 `json:"weekly_utilization_pct"`
	Source      *string  `json:"utilization_source"`
}

func renderSpotPolicy(p settings.Spot) spotPolicyJSON {
	out := spotPolicyJSON{Enabled: p.GatingEnabled, FiveHourThresholdPct: p.FiveHourTargetPct, WeeklyThresholdPct: p.WeeklyTargetPct,
		MaxConcurrentSessions: p.MaxConcurrent, GenesisClassOverrides: map[string]string{}, GenesisClasses: map[string]string{}, UpdatedAt: p.UpdatedAt}
	for g, c := range p.GenesisClasses {
		out.GenesisClassOverrides[string(g)] = string(c)
	}
	for _, g := range session.Geneses {
		out.GenesisClasses[string(g)] = string(p.GenesisClasses.Of(g))
	}
	return out
}

func renderSpotPool(p orchestrator.SpotPool) spotPoolJSON {
	d := p.Decision
	out := spotPoolJSON{Runtime: p.Runtime, Decision: "running", Reason: d.Reason, Detail: d.Detail, Running: d.Running, Leaving: p.Leaving}
	if !d.Admit {
		out.Decision = "held"
	}
	if r := d.Reading; r != nil {
		out.FiveHourPct, out.WeeklyPct, out.Source = &r.FiveHourPct, &r.WeeklyPct, &r.Source
	}
	return out
}

// showSpotPolicy is GET /spot_policy: the policy, each pool's decision and why, and the head of
// the ranked queue.
func (h *Handler) showSpotPolicy(c *gin.Context) error {
	r, err := h.ops.SpotReport(c.Request.Context(), 10)
	if err != nil {
		return err
	}
	pools := make([]spotPoolJSON, len(r.Pools))
	for i, p := range r.Pools {
		pools[i] = renderSpotPool(p)
	}
	c.JSON(http.StatusOK, gin.H{"spot_policy": renderSpotPolicy(r.Policy), "pools": pools,
		"queue_head": h.renderSessions(c.Request.Context(), r.Queue), "queue_length": r.QueueTotal})
	return nil
}

// updateSpotPolicy is PATCH /spot_policy: enabled, the two thresholds, max_concurrent_sessions,
// genesis_class_overrides (replaced whole; only web_ui, api and unknown). Absent fields stay.
func (h *Handler) updateSpotPolicy(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	ch := settings.SpotChange{GatingEnabled: b.boolean("enabled")}
	for name, into := range map[string]**int{"five_hour_threshold_pct": &ch.FiveHourTargetPct,
		"weekly_threshold_pct": &ch.WeeklyTargetPct, "max_concurrent_sessions": &ch.MaxConcurrent} {
		if v := b.integer(name); v != nil {
			n := int(*v)
			*into = &n
		}
	}
	if o := b.object("genesis_class_overrides"); o != nil {
		ch.GenesisClasses = session.ClassOverrides{}
		for g, v := range o {
			class, ok := v.(string)
			if !ok {
				b.fail("genesis_class_overrides."+g, `"spot" or "priority"`)
				continue
			}
			ch.GenesisClasses[session.Genesis(g)] = session.Class(class)
		}
	}
	if err := b.err(); err != nil {
		return err
	}
	p, err := h.ops.UpdateSpotPolicy(c.Request.Context(), ch)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"spot_policy": renderSpotPolicy(p)})
	return nil
}

// listSpotQueue is GET /spot_queue: the ranked queue, highest precedence first, paginated.
func (h *Handler) listSpotQueue(c *gin.Context) error {
	page, perPage := pageQuery(c)
	list, p, err := h.ops.SpotQueue(c.Request.Context(), page, perPage)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"sessions": h.renderSessions(c.Request.Context(), list), "pagination": renderPage(p)})
	return nil
}

// startNow is POST /sessions/:id/start_now: resume a session waiting in the spot queue now.
func (h *Handler) startNow(c *gin.Context) error {
	id, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, err := h.ops.StartNow(c.Request.Context(), id)
	return h.answer(c, s, err, "Session started")
}

// demoteToSpot is POST /sessions/:id/demote_to_spot: spot class, at the head of the spot queue.
func (h *Handler) demoteToSpot(c *gin.Context) error {
	id, err := h.sessionID(c)
	if err != nil {
		return err
	}
	s, err := h.ops.DemoteToSpot(c.Request.Context(), id)
	return h.answer(c, s, err, "Session demoted to spot at the head of the spot queue")
}
