package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// verifyHumanMessages is GET /sessions/:id/human_messages/verify: the session's human-message
// hash chain recomputed. A broken chain is a finding, not a failed request: 200 with intact
// false and the first broken link named.
func (h *Handler) verifyHumanMessages(c *gin.Context) error {
	id, err := h.sessionID(c)
	if err != nil {
		return err
	}
	r, err := h.ops.VerifyHumanMessages(c.Request.Context(), id)
	if err != nil {
		return err
	}
	var broken any
	if b := r.Broken; b != nil {
		link := gin.H{"session_id": b.SessionID, "reason": b.Reason, "message": b.Error(), "record_id": nil, "seq": nil}
		if b.RecordID != 0 {
			link["record_id"], link["seq"] = b.RecordID, b.Seq
		}
		broken = link
	}
	c.JSON(http.StatusOK, gin.H{"session_id": r.SessionID, "intact": r.Broken == nil, "records": r.Records,
		"head_digest": r.Head, "first_broken_link": broken,
		"fleet_head": gin.H{"length": r.Fleet.Length, "digest": r.Fleet.Digest}})
	return nil
}

// exportProvenance is GET /sessions/:id/provenance.prov.json: the session's hierarchy and
// human-message records as W3C PROV-JSON; as_of as on GET /sessions/:id.
func (h *Handler) exportProvenance(c *gin.Context) error {
	id, err := h.sessionID(c)
	if err != nil {
		return err
	}
	asOf, err := orchestrator.ParseAsOf(c.Query("as_of"))
	if err != nil {
		return err
	}
	scheme := "http"
	if c.Request.TLS != nil || c.GetHeader("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	doc, err := h.ops.ExportProvenance(c.Request.Context(), id, asOf, scheme+"://"+c.Request.Host)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, doc)
	return nil
}
