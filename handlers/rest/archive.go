package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// The transcript archive: its status, and the zip itself streamed from disk (never read into
// memory: it runs to hundreds of megabytes).

func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/transcript_archive/status", (*Handler).archiveStatus},
		Route{http.MethodGet, "/transcript_archive/download", (*Handler).downloadArchive},
	)
}

func (h *Handler) archiveStatus(c *gin.Context) error {
	st, err := h.ops.TranscriptArchive()
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, st)
	return nil
}

func (h *Handler) downloadArchive(c *gin.Context) error {
	f, info, err := h.ops.OpenTranscriptArchive()
	if err != nil {
		return err
	}
	defer f.Close()
	c.Header("Content-Disposition", `attachment; filename="transcripts.zip"`)
	c.DataFromReader(http.StatusOK, info.Size(), "application/zip", f, nil)
	return nil
}
