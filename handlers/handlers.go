// Package handlers builds Zimmer's HTTP surface: the Gin engine, its middleware (logging,
// metrics, recovery, auth), health and metrics endpoints, and the transports mounted on it.
package handlers

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/handlers/mcp"
	"github.com/zimmerhq/zimmer/handlers/rest"
	"github.com/zimmerhq/zimmer/handlers/rest/openapi"
	"github.com/zimmerhq/zimmer/handlers/slack"
	"github.com/zimmerhq/zimmer/handlers/web"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
)

// Deps are what the HTTP surface needs.
type Deps struct {
	Ops     *orchestrator.Service
	Metrics *metrics.Metrics
	Log     *slog.Logger
	APIKeys []string
	// Web is the web UI's credential; without one its routes answer 503.
	Web web.Config
	// SlackSigningSecret verifies POST /slack/events; empty answers 503.
	SlackSigningSecret string
}

// New returns the engine with every route mounted.
func New(d Deps) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.ContextWithFallback = true
	r.Use(observe(d.Log, d.Metrics), recoverJSON(d.Log))
	r.GET("/up", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	r.GET("/up/deep", deepHealth(d.Ops))
	r.GET("/metrics", gin.WrapH(d.Metrics.Handler()))
	// The API's description and its viewer need no key.
	openapi.Mount(r)
	api := r.Group("/api/v1", Authenticate(d.APIKeys, d.Ops, d.Metrics, "rest"))
	restH := rest.New(d.Ops, d.Log, d.Metrics)
	rest.Mount(api, restH)
	rest.MountSecrets(r.Group("/api/secrets", Authenticate(d.APIKeys, d.Ops, d.Metrics, "rest")), restH)
	// The MCP servers under a session ask and poll elicitations without a key: they are given none.
	rest.MountPublic(r.Group("/api/v1"), restH)
	// /mcp takes the same credentials as REST, checked before anything MCP happens.
	mcp.New(mcp.Deps{Ops: d.Ops, Log: d.Log, Metrics: d.Metrics}).Mount(r, Authenticate(d.APIKeys, d.Ops, d.Metrics, "mcp"))
	// The humans' pages live at the root (/sessions…, /supervisor/users) beside /api/v1; they
	// carry their own HTTP Basic realm rather than the fleet's API key.
	web.Mount(r, d.Ops, d.Log, d.Web)
	slack.Mount(r, slack.New(d.Ops, d.Log, d.SlackSigningSecret, nil))
	r.NoRoute(func(c *gin.Context) {
		c.JSON(http.StatusNotFound, gin.H{"error": "Not Found", "message": "No route matches " + c.Request.Method + " " + c.Request.URL.Path})
	})
	r.NoMethod(func(c *gin.Context) {
		c.JSON(http.StatusMethodNotAllowed, gin.H{"error": "Method Not Allowed", "message": c.Request.Method + " is not supported on " + c.Request.URL.Path})
	})
	return r
}

// Authenticate admits a request carrying a fleet key (one of keys) or a session's capability
// token, in X-API-Key or Authorization: Bearer, and puts who it authenticated as on the request's
// context (orchestrator.Caller): a fleet key is an operator, a token is its session. Keys are
// compared by SHA-256 digest in constant time, so neither content nor length leaks; a token is
// looked up by its digest. surface labels the credentials metric.
func Authenticate(keys []string, ops *orchestrator.Service, m *metrics.Metrics, surface string) gin.HandlerFunc {
	digests := make([][32]byte, len(keys))
	for i, k := range keys {
		digests[i] = sha256.Sum256([]byte(k))
	}
	return func(c *gin.Context) {
		given := c.GetHeader("X-API-Key")
		if given == "" {
			if auth := c.GetHeader("Authorization"); len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
				given = strings.TrimSpace(auth[7:])
			}
		}
		d := sha256.Sum256([]byte(given))
		ok := 0
		for _, k := range digests {
			ok |= subtle.ConstantTimeCompare(d[:], k[:])
		}
		caller := orchestrator.Caller{Credential: orchestrator.CredentialFleetKey}
		if given == "" || ok != 1 {
			id, err := ops.AuthenticateToken(c.Request.Context(), given)
			if err != nil {
				if !errors.Is(err, orchestrator.ErrUnknownToken) {
					_ = c.Error(err) // a store failure is logged; the caller still gets a plain 401
				}
				c.AbortWithStatusJSON(http.StatusUnauthorized, gin.H{"error": "Unauthorized", "message": "Invalid or missing API key"})
				return
			}
			caller = orchestrator.Caller{Credential: orchestrator.CredentialSessionToken, SessionID: id}
		}
		// The health actions' cooldown is per key, the same on every surface.
		caller.KeyDigest = orchestrator.CallerDigest(given)
		m.Credentials.WithLabelValues(surface, string(caller.Credential)).Inc()
		c.Request = c.Request.WithContext(orchestrator.WithCaller(c.Request.Context(), caller))
		c.Next()
	}
}

func deepHealth(ops *orchestrator.Service) gin.HandlerFunc {
	return func(c *gin.Context) {
		checks := gin.H{}
		failed := []string{}
		results := ops.Health(c.Request.Context())
		for _, name := range []string{"neo4j", "redis"} {
			if err := results[name]; err != nil {
				failed = append(failed, name)
				checks[name] = err.Error()
			} else {
				checks[name] = "ok"
			}
		}
		if len(failed) > 0 {
			c.JSON(http.StatusServiceUnavailable, gin.H{"status": "unavailable", "failed": failed, "checks": checks})
			return
		}
		c.JSON(http.StatusOK, gin.H{"status": "ok", "checks": checks})
	}
}

// observe logs every request once and counts it by route template (never the raw path, whose
// ids would explode the label set).
func observe(log *slog.Logger, m *metrics.Metrics) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		status := c.Writer.Status()
		m.HTTPRequests.WithLabelValues(c.Request.Method, route, strconv.Itoa(status)).Inc()
		m.HTTPDuration.WithLabelValues(c.Request.Method, route).Observe(time.Since(start).Seconds())
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		}
		attrs := []any{"method", c.Request.Method, "route", route, "path", c.Request.URL.Path, "status", status,
			"duration_ms", time.Since(start).Milliseconds()}
		if len(c.Errors) > 0 {
			attrs = append(attrs, "err", c.Errors.String())
		}
		if caller := orchestrator.CallerFrom(c.Request.Context()); caller.Credential != "" {
			attrs = append(attrs, "credential", string(caller.Credential))
			if id, ok := caller.Session(); ok {
				attrs = append(attrs, "caller_session_id", id)
			}
		}
		log.Log(c.Request.Context(), level, "http request", attrs...)
	}
}

// recoverJSON turns a panic into a logged 500 with the JSON error shape.
func recoverJSON(log *slog.Logger) gin.HandlerFunc {
	return gin.CustomRecoveryWithWriter(io.Discard, func(c *gin.Context, err any) {
		log.Error("panic serving request", "path", c.Request.URL.Path, "panic", err)
		c.AbortWithStatusJSON(http.StatusInternalServerError, gin.H{"error": "Internal Server Error", "message": "The server failed unexpectedly; the error was logged."})
	})
}
