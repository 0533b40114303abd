package openapi

import (
	"bytes"
	"compress/gzip"
	"embed"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/gin-gonic/gin"
)

// The viewer: Swagger UI, vendored from npm by devtools/vendor-swagger-ui.sh. The bundle and
// its stylesheet are stored gzipped only; a browser that does not take gzip gets them inflated.
//
//go:embed docs
var docsFS embed.FS

var docTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

// Mount serves the document at GET /api/v1/openapi.json and the viewer at /api/docs, neither
// behind a key: the description of the API is no secret, and the viewer asks for a key itself
// before it tries a call.
func Mount(r gin.IRoutes) {
	r.GET("/api/v1/openapi.json", serveDocument)
	r.GET("/api/docs", func(c *gin.Context) { serveDoc(c, "index.html") })
	r.GET("/api/docs/:file", func(c *gin.Context) { serveDoc(c, c.Param("file")) })
}

func serveDocument(c *gin.Context) {
	d, err := Document()
	if err != nil {
		_ = c.Error(err)
		c.JSON(http.StatusInternalServerError, gin.H{"error": "Internal Server Error", "message": "The OpenAPI document failed to assemble; the error was logged."})
		return
	}
	c.Data(http.StatusOK, "application/json", d.JSON)
}

func serveDoc(c *gin.Context, name string) {
	kind, ok := docTypes[path.Ext(name)]
	if !ok || strings.Contains(name, "/") {
		c.String(http.StatusNotFound, "No such file.\n")
		return
	}
	c.Header("Cache-Control", "private, max-age=86400")
	if body, err := docsFS.ReadFile("docs/" + name); err == nil {
		c.Data(http.StatusOK, kind, body)
		return
	}
	gz, err := docsFS.ReadFile("docs/" + name + ".gz")
	if err != nil {
		c.String(http.StatusNotFound, "No such file.\n")
		return
	}
	c.Header("Vary", "Accept-Encoding")
	if strings.Contains(c.GetHeader("Accept-Encoding"), "gzip") {
		c.Header("Content-Encoding", "gzip")
		c.Data(http.StatusOK, kind, gz)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err == nil {
		var body []byte
		if body, err = io.ReadAll(zr); err == nil {
			c.Data(http.StatusOK, kind, body)
			return
		}
	}
	_ = c.Error(err)
	c.String(http.StatusInternalServerError, "The file could not be read.\n")
}
