package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func manageCategoriesTool() *toolDef {
	return &toolDef{name: "manage_categories", group: groupSessions, write: true, full: variant{
		description: "Organize sessions into categories on the humans' board: list (with session counts), create, " +
			"update (name, description, is_frozen — a frozen category's sessions are left out of bulk refreshes), " +
			"delete (its sessions fall back to Uncategorized), reorder (the ids given go first, in that order; the " +
			"rest keep their places), and set_session_category (category_id null puts a session back in Uncategorized).",
		schema: newSchema(fields{
			"action":      categoryVerbs.enum(),
			"category_id": number("The category; for set_session_category null means Uncategorized.").nullable(),
			"name":        str("The category's name, unique case-insensitively.").maxLen(orchestrator.MaxCategoryName),
			"description": str("What belongs in it (blank clears it).").maxLen(orchestrator.MaxCategoryDescription),
			"is_frozen":   boolean("Leave its sessions out of bulk refreshes."),
			"ids":         list("reorder: category ids in their new order (\"uncategorized\" names the default lane).", anyOf("", "number", "string")),
			"session_id":  sessionRef("set_session_category: the session, id or slug."),
		}, "action"),
		run: runManageCategories,
	}}
}

var categoryVerbs = verbs[func(context.Context, *call) (string, error)]{
	{"list", categoryList}, {"create", categoryCreate}, {"update", categoryUpdate}, {"delete", categoryDelete},
	{"reorder", categoryReorder}, {"set_session_category", categorySetSession},
}

func runManageCategories(ctx context.Context, c *call) (string, error) {
	run, err := categoryVerbs.lookup(c.args.text("action"))
	if err != nil {
		return "", err
	}
	return run(ctx, c)
}

// categoryID is the category_id argument the named action needs.
func categoryID(c *call) (int64, error) {
	id, ok := c.args.integer("category_id")
	if !ok {
		return 0, required("category_id", c.args.text("action"), "")
	}
	return id, nil
}

func categoryList(ctx context.Context, c *call) (string, error) {
	list, err := c.h.ops.Categories(ctx)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, fmt.Sprintf("Categories (%d)", len(list)))
	if len(list) == 0 {
		b.line("No categories yet: every session is Uncategorized.")
	}
	for _, cat := range list {
		writeCategory(&b, cat)
		b.field("Sessions", cat.Sessions)
	}
	return b.String(), nil
}

func writeCategory(b *doc, cat session.Category) {
	b.heading(3, fmt.Sprintf("%s (ID: %d)", oneLine(cat.Name), cat.ID))
	b.field("Position", cat.Position)
	b.field("Frozen", cat.IsFrozen)
	if cat.Description != nil {
		b.field("Description", oneLine(*cat.Description))
	}
}

func categoryCreate(ctx context.Context, c *call) (string, error) {
	name := c.args.text("name")
	if name == "" {
		return "", required("name", "create", "")
	}
	cat, err := c.h.ops.CreateCategory(ctx, name, c.args.str("description"), c.args.flag("is_frozen"))
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Category Created")
	writeCategory(&b, cat)
	return b.String(), nil
}

func categoryUpdate(ctx context.Context, c *call) (string, error) {
	id, err := categoryID(c)
	if err != nil {
		return "", err
	}
	ch := orchestrator.CategoryChange{}
	if c.args.has("name") {
		ch.Name = orchestrator.Opt[string]{Set: true, Value: c.args.str("name")}
	}
	if c.args.has("description") {
		ch.Description = orchestrator.Opt[string]{Set: true, Value: c.args.str("description")}
	}
	if c.args.has("is_frozen") {
		ch.IsFrozen = orchestrator.Opt[bool]{Set: true, Value: c.args.optFlag("is_frozen")}
	}
	if !ch.Name.Set && !ch.Description.Set && !ch.IsFrozen.Set {
		return "", fail(`provide at least one of "name", "description", or "is_frozen" for the "update" action.`)
	}
	cat, err := c.h.ops.UpdateCategory(ctx, id, ch)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Category Updated")
	writeCategory(&b, cat)
	return b.String(), nil
}

func categoryDelete(ctx context.Context, c *call) (string, error) {
	id, err := categoryID(c)
	if err != nil {
		return "", err
	}
	moved, err := c.h.ops.DeleteCategory(ctx, id)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("## Category Deleted\n\nCategory #%d was deleted; its %d session(s) are now Uncategorized.", id, moved), nil
}

func categoryReorder(ctx context.Context, c *call) (string, error) {
	raw, _ := c.args["ids"].([]any)
	var ids []int64
	uncategorized := false
	for _, v := range raw {
		if s, ok := v.(string); ok && strings.EqualFold(strings.TrimSpace(s), "uncategorized") {
			uncategorized = true
			continue
		}
		id, ok := intValue(v)
		if !ok {
			return "", fail("ids must be category ids or \"uncategorized\" (got %v)", v)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return "", required("ids", "reorder", " Pass a non-empty array of category ids.")
	}
	list, err := c.h.ops.ReorderCategories(ctx, ids)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, fmt.Sprintf("Categories Reordered (%d)", len(list)))
	for _, cat := range list {
		b.linef("%d. %s (ID: %d)", cat.Position, oneLine(cat.Name), cat.ID)
	}
	if uncategorized {
		b.blank()
		b.line("_Uncategorized is not stored with a position here: it keeps its place on the board._")
	}
	return b.String(), nil
}

func categorySetSession(ctx context.Context, c *call) (string, error) {
	key := c.args.text("session_id")
	if key == "" {
		return "", required("session_id", "set_session_category", "")
	}
	id, err := c.resolve(ctx, key)
	if err != nil {
		return "", err
	}
	s, cat, err := c.h.ops.SetSessionCategory(ctx, id, c.args.optInt("category_id"))
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Session Category Set", s)
	b.field("Category", categoryLabel(cat))
	return b.String(), nil
}

func categoryLabel(cat *session.Category) string {
	if cat == nil {
		return "Uncategorized"
	}
	return fmt.Sprintf("%s (ID: %d)", oneLine(cat.Name), cat.ID)
}
