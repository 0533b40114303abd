package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/trigger"
)

// triggerRoutes are /api/v1/triggers: CRUD, toggle and invoke.
var triggerRoutes = []Route{
	{http.MethodGet, "/triggers", (*Handler).listTriggers},
	{http.MethodPost, "/triggers", (*Handler).createTrigger},
	{http.MethodGet, "/triggers/:id", (*Handler).showTrigger},
	{http.MethodPatch, "/triggers/:id", (*Handler).updateTrigger},
	{http.MethodDelete, "/triggers/:id", (*Handler).deleteTrigger},
	{http.MethodPost, "/triggers/:id/toggle", (*Handler).toggleTrigger},
	{http.MethodPost, "/triggers/:id/invoke", (*Handler).invokeTrigger},
}

type conditionJSON struct {
	ID              int64          `json:"id"`
	ConditionType   string         `json:"condition_type"`
	Configuration   map[string]any `json:"configuration"`
	Description     string         `json:"description"`
	LastTriggeredAt *time.Time     `json:"last_triggered_at"`
	LastPolledAt    *time.Time     `json:"last_polled_at"`
}

type triggerJSON struct {
	ID                       int64           `json:"id"`
	Name                     string          `json:"name"`
	Status                   string          `json:"status"`
	FailedAt                 *time.Time      `json:"failed_at"`
	LastError                *string         `json:"last_error"`
	AgentRootName            string          `json:"agent_root_name"`
	PromptTemplate           string          `json:"prompt_template"`
	Goal                     *string         `json:"goal"`
	ReuseSession             bool            `json:"reuse_session"`
	EnqueueMessages          bool            `json:"enqueue_messages"`
	ResuscitateArchived      bool            `json:"resuscitate_archived"`
	MaxSessionsPerMinute     *int64          `json:"max_sessions_per_minute"`
	Bursting                 bool            `json:"bursting"`
	BurstSuppressedCount     int64           `json:"burst_suppressed_count"`
	SchedulingClass          *string         `json:"scheduling_class"`
	EffectiveSchedulingClass string          `json:"effective_scheduling_class"`
	Precedence               *int64          `json:"precedence"`
	MCPServers               []string        `json:"mcp_servers"`
	CatalogSkills            []string        `json:"catalog_skills"`
	CatalogHooks             []string        `json:"catalog_hooks"`
	CatalogPlugins           []string        `json:"catalog_plugins"`
	Conditions               []conditionJSON `json:"conditions"`
	LastSessionID            *int64          `json:"last_session_id"`
	LastTriggeredAt          *time.Time      `json:"last_triggered_at"`
	SessionsCreatedCount     int64           `json:"sessions_created_count"`
	CreatedAt                time.Time       `json:"created_at"`
	UpdatedAt                time.Time       `json:"updated_at"`
}

func renderTrigger(t *trigger.Trigger, now time.Time) triggerJSON {
	out := triggerJSON{ID: t.ID, Name: t.Name, Status: string(t.Status), FailedAt: t.FailedAt, AgentRootName: t.AgentRootName,
		PromptTemplate: t.PromptTemplate, Goal: t.Goal, ReuseSession: t.ReuseSession, EnqueueMessages: t.EnqueueMessages,
		ResuscitateArchived: t.ResuscitateArchived, MaxSessionsPerMinute: t.MaxSessionsPerMinute, Bursting: t.Bursting(now),
		BurstSuppressedCount: t.Burst.Suppressed, SchedulingClass: t.SchedulingClass, EffectiveSchedulingClass: string(t.EffectiveClass()),
		Precedence: t.Precedence, MCPServers: nonNilList(t.MCPServers), CatalogSkills: nonNilList(t.CatalogSkills),
		CatalogHooks: nonNilList(t.CatalogHooks), CatalogPlugins: nonNilList(t.CatalogPlugins), LastSessionID: t.LastSessionID,
		LastTriggeredAt: t.LastTriggeredAt, SessionsCreatedCount: t.SessionsCreatedCount, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		Conditions: []conditionJSON{}}
	if t.LastError != "" {
		out.LastError = &t.LastError
	}
	for _, c := range t.Conditions {
		out.Conditions = append(out.Conditions, conditionJSON{ID: c.ID, ConditionType: string(c.Type), Configuration: c.Config,
			Description: trigger.Describe(c), LastTriggeredAt: c.LastTriggeredAt, LastPolledAt: c.LastPolledAt})
	}
	return out
}

func nonNilList(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// triggerID reads :id; anything but a positive integer names no trigger.
func triggerID(c *gin.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, &orchestrator.NotFoundError{Message: "Trigger not found: " + c.Param("id")}
	}
	return id, nil
}

func (h *Handler) listTriggers(c *gin.Context) error {
	page, per := pageQuery(c)
	p := orchestrator.TriggerListParams{Page: page, PerPage: per}
	if t := trigger.Type(c.Query("condition_type")); t.Valid() {
		p.Type = string(t)
	}
	switch st := trigger.Status(c.Query("status")); st {
	case trigger.StatusEnabled, trigger.StatusDisabled, trigger.StatusFailed:
		p.Status = string(st)
	}
	list, pg, err := h.ops.ListTriggers(c.Request.Context(), p)
	if err != nil {
		return err
	}
	now := h.ops.Now()
	out := make([]triggerJSON, len(list))
	for i, t := range list {
		out[i] = renderTrigger(t, now)
	}
	c.JSON(http.StatusOK, gin.H{"triggers": out, "pagination": renderPage(pg)})
	return nil
}

func (h *Handler) showTrigger(c *gin.Context) error {
	id, err := triggerID(c)
	if err != nil {
		return err
	}
	t, err := h.ops.GetTrigger(c.Request.Context(), id, nil)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"trigger": renderTrigger(t, h.ops.Now())})
	return nil
}

// triggerParams reads a create's or update's body: the trigger's fields and
// trigger_conditions_attributes ([{id, condition_type, configuration, _destroy}]).
func triggerParams(b *body) orchestrator.TriggerParams {
	p := orchestrator.TriggerParams{Name: b.str("name"), AgentRootName: b.str("agent_root_name"), PromptTemplate: b.str("prompt_template"),
		Status: b.str("status"), Goal: b.optString("goal"), ReuseSession: b.boolean("reuse_session"),
		EnqueueMessages: b.boolean("enqueue_messages"), ResuscitateArchived: b.boolean("resuscitate_archived"),
		MaxSessionsPerMinute: b.optInt("max_sessions_per_minute"), Precedence: b.optInt("precedence"),
		SchedulingClass: b.optString("scheduling_class"), MCPServers: b.strings("mcp_servers"),
		CatalogSkills: b.strings("catalog_skills"), CatalogHooks: b.strings("catalog_hooks"), CatalogPlugins: b.strings("catalog_plugins")}
	p.LastSessionID = b.optInt("last_session_id")
	if !p.LastSessionID.Set {
		p.LastSessionID = b.optInt("session_id")
	}
	if !b.present("trigger_conditions_attributes") {
		return p
	}
	var attrs []struct {
		ID            int64          `json:"id"`
		ConditionType string         `json:"condition_type"`
		Configuration map[string]any `json:"configuration"`
		Destroy       any            `json:"_destroy"`
	}
	if err := json.Unmarshal(b.raw["trigger_conditions_attributes"], &attrs); err != nil {
		b.fail("trigger_conditions_attributes", "an array of {id, condition_type, configuration, _destroy}")
		return p
	}
	for _, a := range attrs {
		destroy := a.Destroy == true || a.Destroy == "true" || a.Destroy == "1"
		p.Conditions = append(p.Conditions, orchestrator.ConditionEdit{ID: a.ID, Type: trigger.Type(a.ConditionType), Config: a.Configuration, Remove: destroy})
	}
	return p
}

func (h *Handler) createTrigger(c *gin.Context) error {
	return h.saveTrigger(c, http.StatusCreated, func(ctx context.Context, p orchestrator.TriggerParams) (*trigger.Trigger, []string, error) {
		return h.ops.CreateTrigger(ctx, p, nil)
	})
}

func (h *Handler) updateTrigger(c *gin.Context) error {
	id, err := triggerID(c)
	if err != nil {
		return err
	}
	return h.saveTrigger(c, http.StatusOK, func(ctx context.Context, p orchestrator.TriggerParams) (*trigger.Trigger, []string, error) {
		return h.ops.UpdateTrigger(ctx, id, p, nil)
	})
}

// saveTrigger reads a create's or update's body, saves it and answers the trigger with the
// save's warnings.
func (h *Handler) saveTrigger(c *gin.Context, status int, save func(context.Context, orchestrator.TriggerParams) (*trigger.Trigger, []string, error)) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	p := triggerParams(b)
	if err := b.err(); err != nil {
		return err
	}
	t, warnings, err := save(c.Request.Context(), p)
	if err != nil {
		return err
	}
	c.JSON(status, gin.H{"trigger": renderTrigger(t, h.ops.Now()), "warnings": nonNilList(warnings)})
	return nil
}

func (h *Handler) deleteTrigger(c *gin.Context) error {
	id, err := triggerID(c)
	if err != nil {
		return err
	}
	if err := h.ops.DeleteTrigger(c.Request.Context(), id, nil); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

func (h *Handler) toggleTrigger(c *gin.Context) error {
	id, err := triggerID(c)
	if err != nil {
		return err
	}
	t, err := h.ops.ToggleTrigger(c.Request.Context(), id, nil)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"trigger": renderTrigger(t, h.ops.Now())})
	return nil
}

// invokeTrigger is POST /triggers/:id/invoke {variables}: 201 with the session it reached, 429
// when the burst cap suppressed it, 422 when nothing was created.
func (h *Handler) invokeTrigger(c *gin.Context) error {
	id, err := triggerID(c)
	if err != nil {
		return err
	}
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	vars := b.object("variables")
	if err := b.err(); err != nil {
		return err
	}
	res, err := h.ops.InvokeTrigger(c.Request.Context(), id, vars, nil)
	if err != nil {
		return err
	}
	now := h.ops.Now()
	switch res.Outcome {
	case orchestrator.FireSuppressed:
		c.JSON(http.StatusTooManyRequests, gin.H{"error": "Burst suppressed", "message": res.Message, "messages": []string{res.Message},
			"trigger": renderTrigger(res.Trigger, now)})
		return nil
	case orchestrator.FireSpawned, orchestrator.FireBurstNotice, orchestrator.FireDelivered, orchestrator.FireQueued:
		s := res.Session
		c.JSON(http.StatusCreated, gin.H{"trigger": renderTrigger(res.Trigger, now), "burst_notice": res.Outcome == orchestrator.FireBurstNotice,
			"message": res.Message, "session": gin.H{"id": s.ID, "slug": s.Slug, "title": s.Title, "status": s.Status, "created_at": s.CreatedAt}})
		return nil
	}
	var target any
	if res.Session != nil {
		target = gin.H{"id": res.Session.ID, "slug": res.Session.Slug, "title": res.Session.Title, "status": res.Session.Status, "created_at": res.Session.CreatedAt}
	}
	c.JSON(http.StatusUnprocessableEntity, gin.H{"error": "No session created", "message": res.Message, "messages": []string{res.Message},
		"trigger": renderTrigger(res.Trigger, now), "session": target})
	return nil
}
