package mcp

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func pullWorkBacklogItemsTool() *toolDef {
	return &toolDef{name: "pull_work_backlog_items", group: groupWorkBacklog, write: true, full: variant{
		description: "Pull the top backlog items into spot sessions, one " + orchestrator.BacklogRoot + " child of the caller " +
			"per item, recorded on the row. Before pulling you may remove items, each with a reason from a fixed vocabulary " +
			"of observed facts (issue_closed, issue_not_found, already_fixed, duplicate); an item is never removed by " +
			"judgement. count 0 only removes.",
		schema: newSchema(fields{
			"count":      integer("How many items to start from the top (default 1).").min(0).max(orchestrator.MaxBacklogPull),
			"session_id": sessionRef("The pulling session; defaults to this connection's session."),
			"remove": list("Items to take off the backlog first, each with what you observed.", newSchema(fields{
				"item_id": integer("The item's id (see get_work_backlog).").min(1),
				"reason":  str("What you observed.").enum(session.BacklogRemovalReasons...),
			}, "item_id", "reason").asProp()),
		}),
		run: runPullWorkBacklogItems,
	}}
}

func runPullWorkBacklogItems(ctx context.Context, c *call) (string, error) {
	caller, err := c.ownSession(ctx, "session_id")
	if err != nil {
		return "", err
	}
	if err := c.fenceRoot(orchestrator.BacklogRoot); err != nil {
		return "", err
	}
	var removals []orchestrator.BacklogRemoval
	items, _ := c.args["remove"].([]any)
	for _, raw := range items {
		m, _ := raw.(map[string]any)
		id, _ := intValue(m["item_id"])
		reason, _ := m["reason"].(string)
		removals = append(removals, orchestrator.BacklogRemoval{ItemID: id, Reason: reason})
	}
	out, err := c.h.ops.PullBacklog(ctx, caller.ID, intOr(c.args, "count", 1), removals)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Backlog Pull")
	b.field("Pulled by", fmt.Sprintf("session #%d", caller.ID))
	b.field("Left on the backlog", out.Left)
	if len(out.Removed) > 0 {
		b.heading(3, "Removed")
		for _, it := range out.Removed {
			b.linef("- Item #%d %s — %s", it.ID, it.IssueURL, it.RemovedReason)
		}
	}
	b.heading(3, "Started")
	if len(out.Started) == 0 {
		b.line("Nothing was started: the backlog had no items left to pull.")
	}
	var failed int
	for _, st := range out.Started {
		if st.Err != nil {
			failed++
			b.linef("- Item #%d %s — could not start, and is back at the top of the backlog: %s", st.Item.ID, st.Item.IssueURL,
				c.h.errorText(c, st.Err))
			continue
		}
		b.linef("- Item #%d %s → session #%d (%s), a spot %s child of session #%d: %s", st.Item.ID, st.Item.IssueURL,
			st.Session.ID, st.Session.Status, orchestrator.BacklogRoot, caller.ID, sessionURL(c, st.Session.ID))
	}
	if failed > 0 && failed == len(out.Started) {
		return "", fail("%s", b.String())
	}
	return b.String(), nil
}
