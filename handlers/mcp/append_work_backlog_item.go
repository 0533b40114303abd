package mcp

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func appendWorkBacklogItemTool() *toolDef {
	return &toolDef{name: "append_work_backlog_item", group: groupWorkBacklog, write: true, full: variant{
		description: "Append a cleared issue to the work backlog, placed by the band rules (after every item of its band or a " +
			"more urgent one, never above a human's pin) and stamped with the writing session and its agent root. It will " +
			"become an unattended implementing session, so append only an issue that is cleared to build. prompt, " +
			"precedence, pinned and added_by are refused: the prompt is written from the issue, and placement is the human's.",
		schema: newSchema(fields{
			"issue_url": str("The cleared issue (an http(s) URL).").maxLen(session.MaxBacklogURL),
			"title":     str("A one-line title.").maxLen(session.MaxBacklogTitle),
			"band":      str("The band the item belongs in (default normal).").enum(session.BacklogBands...),
			"notes":     str("Context for whoever picks it up.").maxLen(session.MaxBacklogNotes),
		}, "issue_url"),
		run: runAppendWorkBacklogItem,
	}}
}

// backlogRefused are the arguments an agent may not pass, and why.
var backlogRefused = []struct{ arg, why string }{
	{"prompt", "the session's prompt is written from the issue; put context in notes"},
	{"precedence", "placement is by band; only a human places an item by hand"},
	{"pinned", "only a human pins an item"},
	{"added_by", "the writer is stamped from this connection"},
}

func runAppendWorkBacklogItem(ctx context.Context, c *call) (string, error) {
	for _, r := range backlogRefused {
		if c.args.has(r.arg) {
			return "", fail("%s is refused on append_work_backlog_item: %s. Nothing was appended.", r.arg, r.why)
		}
	}
	if c.scope.SessionID == 0 {
		return "", fail("append_work_backlog_item stamps the writing session from this connection, and its URL names no session_id. " +
			"Append through the zimmer-work-backlog server Zimmer configures for your session. Nothing was appended.")
	}
	writer, err := c.sessionByID(ctx, c.scope.SessionID)
	if err != nil {
		return "", err
	}
	it, err := c.h.ops.AppendBacklogItem(ctx, orchestrator.BacklogAppend{
		IssueURL: c.args.text("issue_url"), Title: c.args.text("title"), Notes: c.args.text("notes"), Band: c.args.text("band"),
		AddedBySession: &writer.ID, AddedByRoot: writer.AgentRoot(),
	})
	if err != nil {
		return "", err
	}
	queue, err := c.h.ops.Backlog(ctx)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Backlog Item Appended")
	b.field("Position", fmt.Sprintf("%d of %d", it.Rank, len(queue)))
	renderBacklogItem(&b, it)
	return b.String(), nil
}
