package mcp

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func getWorkBacklogTool() *toolDef {
	return &toolDef{name: "get_work_backlog", group: groupWorkBacklog, full: variant{
		description: "The work backlog in rank order, each item with its whole-queue position. Every item here becomes an " +
			"unattended implementing session: the backlog job starts the top item whenever it has room, and " +
			"pull_work_backlog_items starts the top items as your children now.",
		schema: newSchema(paging(fields{})),
		run:    runGetWorkBacklog,
	}}
}

func runGetWorkBacklog(ctx context.Context, c *call) (string, error) {
	queue, err := c.h.ops.Backlog(ctx)
	if err != nil {
		return "", err
	}
	page, per := intOr(c.args, "page", 1), min(intOr(c.args, "per_page", orchestrator.DefaultPerPage), 100)
	pages := max(1, (len(queue)+per-1)/per)
	var b doc
	b.heading(2, fmt.Sprintf("Work Backlog (%d total, page %d of %d)", len(queue), page, pages))
	if len(queue) == 0 {
		b.line("The backlog is empty.")
		return b.String(), nil
	}
	from := min((page-1)*per, len(queue))
	for _, it := range queue[from:min(from+per, len(queue))] {
		b.heading(3, fmt.Sprintf("%d. %s", it.Rank, oneLine(displayBacklogTitle(it))))
		renderBacklogItem(&b, it)
	}
	if page < pages {
		b.blank()
		b.linef("*More items available. Use page=%d to see the next page.*", page+1)
	}
	return b.String(), nil
}

func displayBacklogTitle(it session.BacklogItem) string {
	if it.Title != "" {
		return it.Title
	}
	return it.IssueURL
}

// renderBacklogItem is an item's fields, the same in every backlog tool's output.
func renderBacklogItem(b *doc, it session.BacklogItem) {
	b.field("Item ID", it.ID)
	b.field("Issue", it.IssueURL)
	band := it.Band
	if it.Pinned {
		band += " (pinned by a human: appends land below it)"
	}
	b.field("Band", band)
	b.field("Added by", backlogAuthor(it))
	b.field("Added at", timestamp(it.CreatedAt))
	if it.Notes != "" {
		b.field("Notes", preview(it.Notes, 300))
	}
}

func backlogAuthor(it session.BacklogItem) string {
	switch {
	case it.AddedBySession != nil && it.AddedByRoot != "":
		return fmt.Sprintf("session #%d (agent root %s)", *it.AddedBySession, it.AddedByRoot)
	case it.AddedBySession != nil:
		return fmt.Sprintf("session #%d", *it.AddedBySession)
	case it.AddedBy != "":
		return it.AddedBy
	}
	return "unknown"
}
