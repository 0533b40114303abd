package web

import (
	"embed"
	"net/http"
	"path"
	"strings"

	"github.com/gin-gonic/gin"
)

// The pages' stylesheet and scripts, embedded: htmx and its SSE extension are vendored from npm
// by devtools/vendor-htmx.sh (no build step, no CDN); each minified script ships with the
// registry's own gzip of it, served to browsers that take gzip.
//
//go:embed static
var staticFS embed.FS

var staticTypes = map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}

func (h *Handler) static(c *gin.Context) {
	name := c.Param("file")
	kind, ok := staticTypes[path.Ext(name)]
	body, err := staticFS.ReadFile("static/" + name)
	if !ok || err != nil || strings.Contains(name, "/") {
		c.String(http.StatusNotFound, "No such file.\n")
		return
	}
	if gz, err := staticFS.ReadFile("static/" + name + ".gz"); err == nil && strings.Contains(c.GetHeader("Accept-Encoding"), "gzip") {
		body = gz
		c.Header("Content-Encoding", "gzip")
	}
	c.Header("Vary", "Accept-Encoding")
	// The files change only with a release; a day's caching keeps pages light without
	// pinning an old script for long after an upgrade.
	c.Header("Cache-Control", "private, max-age=86400")
	c.Data(http.StatusOK, kind, body)
}
