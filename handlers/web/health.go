package web

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// The /health page: the fleet health report get_system_health and GET /api/v1/health give, and
// the queue recovery-mode switch.

func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/health", (*Handler).showHealth},
		Route{http.MethodPost, "/health/queue_recovery_mode", (*Handler).switchQueueRecovery},
	)
}

type healthPage struct {
	orchestrator.HealthView
	DefaultMinutes int
	Notice         string
}

func (h *Handler) showHealth(c *gin.Context) {
	notice := map[string]string{"on": "Queue recovery mode is on.", "off": "Queue recovery mode is off."}[c.Query("notice")]
	h.render(c, http.StatusOK, "health.html", "Health",
		healthPage{HealthView: h.ops.SystemHealth(c.Request.Context()).View(), DefaultMinutes: orchestrator.DefaultRecoveryMinutes, Notice: notice})
}

// switchQueueRecovery turns queue recovery mode on (for ttl_minutes, with a reason) or off.
func (h *Handler) switchQueueRecovery(c *gin.Context) {
	switch c.PostForm("mode") {
	case "on":
		minutes, _ := strconv.Atoi(c.PostForm("ttl_minutes"))
		if _, err := h.ops.EnterQueueRecovery(c.Request.Context(), c.PostForm("reason"), minutes, "the web UI"); err != nil {
			h.refuse(c, err, "/health")
			return
		}
	case "off":
		if _, _, err := h.ops.ExitQueueRecovery(c.Request.Context()); err != nil {
			h.refuse(c, err, "/health")
			return
		}
	default:
		h.refuse(c, &orchestrator.ValidationError{Label: "Invalid mode", Messages: []string{`mode must be "on" or "off"`}}, "/health")
		return
	}
	c.Redirect(http.StatusSeeOther, "/health?notice="+c.PostForm("mode"))
}
