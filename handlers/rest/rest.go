// Package rest is the /api/v1 JSON transport: it decodes requests, calls the shared operations
// and renders the original's response shapes and error bodies.
package rest

import (
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
)

// Handler serves the REST routes.
type Handler struct {
	ops     *orchestrator.Service
	log     *slog.Logger
	metrics *metrics.Metrics
}

// New builds the REST handler.
func New(ops *orchestrator.Service, log *slog.Logger, m *metrics.Metrics) *Handler {
	return &Handler{ops: ops, log: log, metrics: m}
}

// Route is one REST route; Routes is the table Mount installs and tests enumerate.
type Route struct {
	Method, Path string
	Handle       func(*Handler, *gin.Context) error
}

// Routes lists every /api/v1 route.
var Routes = slices.Concat(sessionRoutes, notificationRoutes, triggerRoutes, healthRoutes, summaryRoutes, spotRoutes, costRoutes)

// sessionRoutes are the sessions, their queues and lineage, the catalog and the settings.
var sessionRoutes = []Route{
	{http.MethodGet, "/sessions", (*Handler).listSessions},
	{http.MethodPost, "/sessions", (*Handler).createSession},
	{http.MethodGet, "/sessions/:id", (*Handler).showSession},
	{http.MethodPatch, "/sessions/:id", (*Handler).updateSession},
	{http.MethodDelete, "/sessions/:id", (*Handler).deleteSession},
	{http.MethodPost, "/sessions/:id/archive", (*Handler).archiveSession},
	{http.MethodPost, "/sessions/:id/unarchive", (*Handler).unarchiveSession},
	{http.MethodPatch, "/sessions/:id/notes", (*Handler).updateNotes},
	{http.MethodPost, "/sessions/:id/follow_up", (*Handler).followUp},
	{http.MethodPost, "/sessions/:id/pause", (*Handler).pauseSession},
	{http.MethodPost, "/sessions/:id/sleep", (*Handler).sleepSession},
	{http.MethodPost, "/sessions/:id/restart", (*Handler).restartSession},
	{http.MethodPost, "/sessions/:id/fork", (*Handler).forkSession},
	{http.MethodPost, "/sessions/:id/refresh", (*Handler).refreshSession},
	{http.MethodGet, "/sessions/:id/transcript", (*Handler).showTranscript},
	// Gin needs one wildcard name per path position, so the session is :id here too.
	{http.MethodGet, "/sessions/:id/enqueued_messages", (*Handler).listMessages},
	{http.MethodPost, "/sessions/:id/enqueued_messages", (*Handler).createMessage},
	{http.MethodGet, "/sessions/:id/enqueued_messages/:message_id", (*Handler).showMessage},
	{http.MethodPatch, "/sessions/:id/enqueued_messages/:message_id", (*Handler).updateMessage},
	{http.MethodDelete, "/sessions/:id/enqueued_messages/:message_id", (*Handler).deleteMessage},
	{http.MethodPatch, "/sessions/:id/enqueued_messages/:message_id/reorder", (*Handler).reorderMessage},
	{http.MethodPost, "/sessions/:id/enqueued_messages/:message_id/interrupt", (*Handler).interruptMessage},
	{http.MethodDelete, "/sessions/:id/uncle_links/:uncle_id", (*Handler).removeUncleLink},
	{http.MethodGet, "/sessions/:id/human_messages/verify", (*Handler).verifyHumanMessages},
	{http.MethodGet, "/sessions/:id/provenance.prov.json", (*Handler).exportProvenance},
	{http.MethodPatch, "/sessions/:id/mcp_servers", (*Handler).updateMCPServers},
	{http.MethodGet, "/configs", (*Handler).showConfigs},
	{http.MethodGet, "/mcp_servers", (*Handler).listMCPServers},
	{http.MethodGet, "/app_settings", (*Handler).showAppSettings},
	{http.MethodPatch, "/app_settings", (*Handler).updateAppSettings},
}

// Mount installs every route on g (which carries the auth middleware).
func Mount(g *gin.RouterGroup, h *Handler) {
	for _, r := range Routes {
		g.Handle(r.Method, r.Path, h.adapt(r.Handle))
	}
}

// adapt turns a handler's error into the JSON error body; the status comes from one table.
func (h *Handler) adapt(fn func(*Handler, *gin.Context) error) gin.HandlerFunc {
	return func(c *gin.Context) {
		err := fn(h, c)
		if err == nil {
			return
		}
		status, label, messages := classify(err)
		if status >= 500 {
			_ = c.Error(err)
			messages = []string{"The server failed to handle the request; the error was logged."}
		}
		c.JSON(status, gin.H{"error": label, "message": strings.Join(messages, ", "), "messages": messages})
	}
}

func classify(err error) (int, string, []string) {
	var re *requestError
	var ve *orchestrator.ValidationError
	var nf *orchestrator.NotFoundError
	switch {
	case errors.As(err, &nf):
		return http.StatusNotFound, "Not Found", []string{nf.Message}
	case errors.As(err, &re):
		return re.status, re.label, re.messages
	case errors.As(err, &ve):
		return http.StatusUnprocessableEntity, ve.Label, ve.Messages
	case errors.Is(err, orchestrator.ErrMessageNotFound):
		return http.StatusNotFound, "Not Found", []string{"Enqueued message not found"}
	case errors.Is(err, orchestrator.ErrNotFound):
		return http.StatusNotFound, "Not Found", []string{"Session not found"}
	case errors.Is(err, orchestrator.ErrConflict):
		return http.StatusConflict, "Conflict", []string{err.Error()}
	}
	return http.StatusInternalServerError, "Internal Server Error", []string{err.Error()}
}
