package rest

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
)

func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/clis/status", (*Handler).cliStatus},
		Route{http.MethodPost, "/clis/refresh", (*Handler).refreshCLIs},
		Route{http.MethodPost, "/clis/clear_cache", (*Handler).clearCLICache},
	)
}

// cliStatus is GET /clis/status: the agent CLIs' cached versions and login state.
func (h *Handler) cliStatus(c *gin.Context) error {
	v, err := h.ops.CLIStatus(c.Request.Context())
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, v)
	return nil
}

// refreshCLIs is POST /clis/refresh: queue a probe of every agent CLI (never throttled).
func (h *Handler) refreshCLIs(c *gin.Context) error {
	return h.queueCLIJob(c, h.ops.RefreshCLIs)
}

// clearCLICache is POST /clis/clear_cache: forget every record and queue the probe that
// refills them (never throttled).
func (h *Handler) clearCLICache(c *gin.Context) error {
	return h.queueCLIJob(c, h.ops.ClearCLICache)
}

func (h *Handler) queueCLIJob(c *gin.Context, op func(context.Context) error) error {
	if err := op(c.Request.Context()); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"queued": true})
	return nil
}
