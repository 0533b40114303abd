package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// Outcome analyses: save an archived session's segment tree, list the current analyses
// (without their trees), show one session's (with it).

func init() {
	Routes = append(Routes,
		Route{http.MethodGet, "/outcome_analyses", (*Handler).listOutcomes},
		Route{http.MethodPost, "/outcome_analyses", (*Handler).saveOutcome},
		Route{http.MethodGet, "/outcome_analyses/:id", (*Handler).showOutcome},
	)
}

type outcomeJSON struct {
	ID                int64            `json:"id"`
	SessionID         int64            `json:"session_id"`
	AnalyzerSessionID *int64           `json:"analyzer_session_id"`
	SchemaVersion     string           `json:"schema_version"`
	RootOutcome       string           `json:"root_outcome"`
	Segments          int              `json:"segments"`
	Failures          int              `json:"failures"`
	Successes         int              `json:"successes"`
	MaxDepth          int              `json:"max_depth"`
	AgentRoot         string           `json:"agent_root"`
	AgentRuntime      string           `json:"agent_runtime"`
	Model             string           `json:"model"`
	Notes             *string          `json:"notes"`
	CreatedAt         time.Time        `json:"created_at"`
	Root              *session.Segment `json:"root,omitempty"`
}

func renderOutcome(a session.OutcomeAnalysis, withTree bool) outcomeJSON {
	st := a.Root.Stats()
	out := outcomeJSON{ID: a.ID, SessionID: a.SessionID, AnalyzerSessionID: a.AnalyzerID, SchemaVersion: a.SchemaVersion,
		RootOutcome: a.Root.Outcome.Kind, Segments: st.Segments, Failures: st.Failures, Successes: st.Successes,
		MaxDepth: st.MaxDepth, AgentRoot: a.AgentRoot, AgentRuntime: a.AgentRuntime, Model: a.Model, Notes: a.Notes,
		CreatedAt: a.CreatedAt}
	if withTree {
		out.Root = &a.Root
	}
	return out
}

func (h *Handler) saveOutcome(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	key := b.rawText("session_id")
	analyzer, version, root, notes := b.integer("analyzer_session_id"), b.str("schema_version"), b.object("root"), b.str("notes")
	if err := b.err(); err != nil {
		return err
	}
	if key == "" {
		return &requestError{http.StatusUnprocessableEntity, "Unprocessable Entity", []string{"session_id is required"}}
	}
	id, err := h.ops.Resolve(c.Request.Context(), key)
	if err != nil {
		return err
	}
	out, err := h.ops.SaveOutcomeAnalysis(c.Request.Context(), orchestrator.OutcomeSave{SessionID: id, AnalyzerID: analyzer,
		SchemaVersion: deref(version), Root: root, Notes: notes})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, gin.H{"outcome_analysis": renderOutcome(out.Analysis, true), "superseded_previous": out.Superseded})
	return nil
}

func (h *Handler) listOutcomes(c *gin.Context) error {
	f := orchestrator.OutcomeListParams{AgentRoot: c.Query("agent_root"), AgentRuntime: c.Query("agent_runtime"),
		Model: c.Query("model"), Outcome: c.Query("outcome")}
	var bad []string
	for _, d := range []struct {
		name string
		into **time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		raw := c.Query(d.name)
		if raw == "" {
			continue
		}
		t, err := time.Parse(time.DateOnly, raw)
		if err != nil {
			bad = append(bad, d.name+" must be a date, YYYY-MM-DD")
			continue
		}
		if d.name == "to" { // the last day named is included
			t = t.AddDate(0, 0, 1)
		}
		*d.into = &t
	}
	if len(bad) > 0 {
		return &requestError{http.StatusUnprocessableEntity, "Unprocessable Entity", bad}
	}
	list, err := h.ops.OutcomeAnalyses(c.Request.Context(), f)
	if err != nil {
		return err
	}
	out := make([]outcomeJSON, len(list))
	for i, a := range list {
		out[i] = renderOutcome(a, false)
	}
	c.JSON(http.StatusOK, gin.H{"outcome_analyses": out})
	return nil
}

func (h *Handler) showOutcome(c *gin.Context) error {
	id, err := h.sessionID(c)
	if err != nil {
		return err
	}
	a, err := h.ops.OutcomeAnalysisOf(c.Request.Context(), id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"outcome_analysis": renderOutcome(a, true)})
	return nil
}
