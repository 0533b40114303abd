package web

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/provenance"
	"github.com/zimmerhq/zimmer/session"
)

type rootOption struct{ Name, Label string }

type newPage struct {
	Roots                    []rootOption
	AgentRoot, Title, Prompt string
	Servers                  []pickerOption
}

// pickerOption is one server of the mcp-picker partial and whether its box is ticked.
type pickerOption struct {
	orchestrator.ServerOption
	Checked bool
}

// picker is the servers a form offers, ticked where checked says.
func (h *Handler) picker(checked func(orchestrator.ServerOption) bool) []pickerOption {
	var out []pickerOption
	for _, o := range h.ops.MCPServerOptions() {
		out = append(out, pickerOption{ServerOption: o, Checked: checked(o)})
	}
	return out
}

// newSession draws the form with the chosen root's (or else the first root's) default servers
// ticked — except one that cannot start, which is offered unticked with the reason; the form's
// script does the same when another root is chosen.
func (h *Handler) newSession(c *gin.Context) {
	roots, root := h.roots(), c.Query("agent_root")
	if !slices.ContainsFunc(roots, func(r rootOption) bool { return r.Name == root }) && len(roots) > 0 {
		root = roots[0].Name
	}
	servers := h.picker(func(o orchestrator.ServerOption) bool { return !o.Blocks && slices.Contains(o.DefaultIn, root) })
	h.render(c, http.StatusOK, "new.html", "New session", newPage{Roots: roots, AgentRoot: root, Servers: servers})
}

// roots are the agent roots a person may start, by name; routers and maintenance roots are
// started by the quick prompt and by Zimmer itself.
func (h *Handler) roots() []rootOption {
	cat := h.ops.Catalog()
	var out []rootOption
	for _, name := range slices.Sorted(maps.Keys(cat.Roots)) {
		r := cat.Roots[name]
		if invocable(r) {
			out = append(out, rootOption{Name: name, Label: cmpOr(r.DisplayName, name)})
		}
	}
	return out
}

func invocable(r *catalog.Root) bool { return r.UserInvocable == nil || *r.UserInvocable }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// createSession is the new-session capture boundary (web_ui.new_session).
func (h *Handler) createSession(c *gin.Context) {
	p := orchestrator.WebCreateParams{AgentRoot: c.PostForm("agent_root"), Title: c.PostForm("title"), Prompt: c.PostForm("prompt")}
	if c.PostForm("mcp_servers_picked") != "" { // the form's picker: what is ticked is the whole list, none included
		picked := c.PostFormArray("mcp_servers")
		p.MCPServers = &picked
	}
	out, err := h.ops.WebCreateSession(c.Request.Context(), p)
	if err != nil {
		h.refuse(c, err, "/sessions/new")
		return
	}
	h.redirectToSession(c, out.Session.ID, "created")
}

// quickPrompt is the quick router prompt's capture boundary (web_ui.quick_prompt).
func (h *Handler) quickPrompt(c *gin.Context) {
	out, err := h.ops.WebQuickPrompt(c.Request.Context(), c.PostForm("prompt"))
	if err != nil {
		h.refuse(c, err, "/sessions")
		return
	}
	h.redirectToSession(c, out.Session.ID, "created")
}

// followUp is the follow-up capture boundary (web_ui.follow_up / web_ui.follow_up_queued).
// It reads one field, prompt: an acting_session_id posted alongside is never looked at.
func (h *Handler) followUp(c *gin.Context) {
	id, back, err := h.sessionID(c)
	if err != nil {
		h.refuse(c, err, back)
		return
	}
	res, err := h.ops.WebFollowUp(c.Request.Context(), id, c.PostForm("prompt"))
	if err != nil {
		h.refuse(c, err, back)
		return
	}
	notice := "sent"
	if res.Outcome == orchestrator.FollowUpQueued {
		notice = "queued"
	}
	h.redirectToSession(c, res.Session.ID, notice)
}

// enqueue is the enqueued-message capture boundary (web_ui.enqueued_message).
func (h *Handler) enqueue(c *gin.Context) {
	id, back, err := h.sessionID(c)
	if err != nil {
		h.refuse(c, err, back)
		return
	}
	m, err := h.ops.WebEnqueue(c.Request.Context(), id, c.PostForm("content"))
	if err != nil {
		h.refuse(c, err, back)
		return
	}
	h.redirectToSession(c, m.SessionID, "enqueued")
}

// sessionID resolves the route's :id (an id, or a slug) to the session's id, with the page a
// refusal links back to.
func (h *Handler) sessionID(c *gin.Context) (id int64, back string, err error) {
	key := c.Param("id")
	id, err = h.ops.Resolve(c.Request.Context(), key)
	return id, "/sessions/" + url.PathEscape(key), err
}

func (h *Handler) redirectToSession(c *gin.Context, id int64, notice string) {
	c.Redirect(http.StatusSeeOther, fmt.Sprintf("/sessions/%d?notice=%s", id, notice))
}

// notices are the only texts a ?notice= parameter can show: never the parameter itself.
var notices = map[string]string{
	"created":         "Session created.",
	"sent":            "Follow-up sent.",
	"queued":          "The session is running, so the follow-up was queued for the end of its turn.",
	"enqueued":        "Message enqueued.",
	"paused":          "Paused: the running turn is being stopped.",
	"sleeping":        "Sleeping (a running session sleeps when its turn ends).",
	"restarted":       "Restarted.",
	"restored":        "Restored from the Trash.",
	"favourite":       "Favourite changed.",
	"archived":        "Archived: it is in the Trash until its trash date.",
	"forked":          "This is the fork; it waits for its first follow-up.",
	"refreshed":       "The transcript was read again.",
	"notes":           "Notes saved.",
	"updated":         "Saved.",
	"edited":          "Message edited; the edit is recorded beside the original.",
	"moved":           "Message moved.",
	"deleted_message": "Message deleted.",
	"sent_now":        "Sent now: the running turn is being interrupted for it.",
	"started":         "Started now, ahead of the spot queue.",
	"demoted":         "Demoted to spot, at the head of the spot queue.",
	"servers":         "MCP servers saved: they take effect on the session's next turn.",
}

// showSession renders the detail page. Its record comes from the same read every other surface
// renders (orchestrator.SessionView), so the page, the prompt and MCP agree on counts and origins.
func (h *Handler) showSession(c *gin.Context) {
	id, _, err := h.sessionID(c)
	if err != nil {
		h.refuse(c, err, "/sessions")
		return
	}
	read := lastTranscript
	if c.Query("transcript") == "all" {
		read = allTranscript
	}
	p, err := h.loadSessionPage(c.Request.Context(), id, read)
	if err != nil {
		h.refuse(c, err, "/sessions")
		return
	}
	p.Shown = h.shownPanels("session.html", sessionPanels, p)
	p.Notice = notices[c.Query("notice")]
	// The server form shows what the session carries, ticked whether or not it can start: a
	// save must never drop a server the human did not untick.
	p.Servers = h.picker(func(o orchestrator.ServerOption) bool { return slices.Contains(p.Session.MCPServers, o.Name) })
	if c.Query("notice") == "created" {
		p.Alert = h.ops.ServerWarning(p.Session)
	}
	h.render(c, http.StatusOK, "session.html", p.Session.DisplayTitle(), p)
}

// rootLabel is the agent root the session page shows, a dash when none.
func rootLabel(s *session.Session) string {
	return cmpOr(s.AgentRoot(), "—")
}

var outlineRow = regexp.MustCompile(`^((?:  )*)- #(\d+) `)

// outline reads provenance.Outline back line by line, so the page draws exactly the tree the
// prompt and MCP draw (same order, same sanitised labels) and can still link each node.
func outline(h *lineage.Hierarchy) []outlineLine {
	var out []outlineLine
	for line := range strings.SplitSeq(provenance.Outline(h), "\n") {
		m := outlineRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		id, _ := strconv.ParseInt(m[2], 10, 64)
		out = append(out, outlineLine{ID: id, Depth: len(m[1]) / 2, Text: strings.TrimPrefix(strings.TrimLeft(line, " "), "- "),
			Current: id == h.SessionID})
	}
	return out
}
