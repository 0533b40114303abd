package rest

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// scanBudget bounds a search_contents scan: transcripts have no index, so the scan stops
// rather than holding the request (and a connection) open.
const scanBudget = 10 * time.Second

func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/sessions/search", (*Handler).searchSessions},
		Route{http.MethodPost, "/sessions/bulk_archive", (*Handler).bulkArchive},
	)
}

// searchSessions is GET /sessions/search: a case-insensitive phrase over title, metadata and
// custom metadata (and, with search_contents, the transcripts), with the list's filters.
func (h *Handler) searchSessions(c *gin.Context) error {
	q := c.Query("q")
	if q == "" {
		return &requestError{http.StatusBadRequest, "Missing parameter", []string{"q is required"}}
	}
	page, perPage := pageQuery(c)
	p := orchestrator.SearchParams{Query: q, AgentRuntime: c.Query("agent_runtime"), PriorityClass: c.Query("priority_class"),
		Genesis: c.Query("genesis"), ShowArchived: queryBool(c.Query("show_archived")), Page: page, PerPage: perPage}
	if st := c.Query("status"); st != "" {
		p.Statuses = []string{st}
	}
	contents := queryBool(c.Query("search_contents"))
	resp := gin.H{"query": q, "search_contents": contents}
	if contents {
		res, err := h.ops.ScanContents(c.Request.Context(), orchestrator.ScanParams{Search: p, Limit: perPage, Budget: scanBudget})
		if err != nil {
			return searchError(err)
		}
		// A scan has no total: the page is what this bounded pass found, and scan_complete says
		// whether every candidate was read.
		resp["sessions"] = h.renderSessions(c.Request.Context(), res.Matches)
		resp["pagination"] = renderPage(orchestrator.Page{Page: 1, PerPage: max(len(res.Matches), 1), TotalCount: len(res.Matches), TotalPages: 1})
		resp["scan_complete"] = res.Complete
	} else {
		list, pg, err := h.ops.Search(c.Request.Context(), p)
		if err != nil {
			return searchError(err)
		}
		resp["sessions"] = h.renderSessions(c.Request.Context(), list)
		resp["pagination"] = renderPage(pg)
	}
	c.JSON(http.StatusOK, resp)
	return nil
}

// searchError answers an over-long query with 400, the search's one other refusal of its input.
func searchError(err error) error {
	var ve *orchestrator.ValidationError
	if errors.As(err, &ve) && ve.Label == "Query too long" {
		return &requestError{http.StatusBadRequest, ve.Label, ve.Messages}
	}
	return err
}

// bulkArchive is POST /sessions/bulk_archive: session_ids (required), force for the whole batch.
func (h *Handler) bulkArchive(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	force := b.boolean("force")
	var ids []int64
	if b.present("session_ids") {
		if err := json.Unmarshal(b.raw["session_ids"], &ids); err != nil {
			b.fail("session_ids", "an array of session ids")
		}
	}
	if err := b.err(); err != nil {
		return err
	}
	archived, failures, err := h.ops.BulkArchive(c.Request.Context(), ids, orchestrator.ArchiveParams{
		Force: force != nil && *force, Actor: "the REST API"})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"archived_count": archived, "errors": failures})
	return nil
}
