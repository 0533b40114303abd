package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func quickSearchSessionsTool() *toolDef {
	return &toolDef{name: "quick_search_sessions", group: groupSessions, full: variant{
		description: "Find sessions. query is one case-insensitive phrase matched against titles and the metadata and " +
			"custom_metadata JSON (search one key/value pair like \"router_issue\":\"577\" or a bare value; spacing " +
			"after the colon does not matter); it does not read prompts. search_contents: true also scans transcripts, " +
			"newest first, bounded by per_page matches and a time budget: it reports no total and returns a scan_cursor " +
			"to continue — an empty \"scan incomplete\" result means not found yet, not absent. Archived sessions are " +
			"left out unless show_archived: true or status names archived, so a duplicate check must pass one of them. " +
			"Rows are compact (no slug, category, repository, branch, prompt preview or MCP servers); verbose: true " +
			"returns full rows, get_session one session in full.",
		schema: newSchema(paging(fields{
			"id":              integer("Return this one session (all filters ignored)."),
			"query":           str("A phrase matched as one substring.").maxLen(orchestrator.MaxQueryLength),
			"status":          anyOf("A status, or an array of them (any of).", "string", "array"),
			"agent_runtime":   str("Only this runtime (claude_code, codex, pi)."),
			"priority_class":  str("Only sessions running in this class.").enum("spot", "priority"),
			"genesis":         str("Only sessions that came in this way.").enum(genesisNames()...),
			"visibility":      str("Only sessions with this board visibility (unset: all).").enum("visible", "hidden", "snoozed"),
			"order":           str("created_desc (default) or precedence (highest first).").enum(orchestrator.OrderCreatedDesc, orchestrator.OrderPrecedence),
			"show_archived":   boolean("Include archived sessions (default false)."),
			"verbose":         boolean("Full rows: slug, category, repository, branch, prompt preview, MCP servers."),
			"search_contents": boolean("Also scan transcripts (bounded; see scan_cursor)."),
			"scan_cursor":     str("Continue a content scan where it stopped; pass the same query and filters."),
		})),
		run: runQuickSearch,
	}}
}

func genesisNames() []string {
	names := make([]string, len(session.Geneses))
	for i, g := range session.Geneses {
		names[i] = string(g)
	}
	return names
}

// compactOmission is said wherever a compact row is shown: the cut is never silent.
const compactOmission = "_Compact rows omit six fields — slug, category, repository, branch, the prompt preview and the MCP server list. " +
	"Pass `verbose: true` for full rows, or call `get_session` for one session in full._"

func runQuickSearch(ctx context.Context, c *call) (string, error) {
	verbose := c.args.flag("verbose")
	if id, ok := c.args.integer("id"); ok {
		return searchByID(ctx, c, id, verbose)
	}
	p, err := searchParams(c)
	if err != nil {
		return "", err
	}
	if c.args.flag("search_contents") {
		return scanContents(ctx, c, p, verbose)
	}
	list, page, err := c.h.ops.Search(ctx, p)
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "No sessions found matching the specified criteria." + archivedHint(p), nil
	}
	names, err := c.categoryNames(ctx, verbose)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Agent Sessions")
	b.linef("Found %d session(s) (page %d of %d):", page.TotalCount, page.Page, page.TotalPages)
	for _, s := range list {
		writeRow(&b, s, verbose, names)
	}
	writeOmission(&b, verbose)
	if page.Page < page.TotalPages {
		b.blank()
		b.linef("*More sessions available. Use page=%d to see the next page.*", page.Page+1)
	}
	return b.String(), nil
}

// searchByID is the short circuit: one session, every filter ignored.
func searchByID(ctx context.Context, c *call, id int64, verbose bool) (string, error) {
	s, err := c.sessionByID(ctx, id)
	if err != nil {
		return "", err
	}
	names, err := c.categoryNames(ctx, verbose)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Session Found")
	writeRow(&b, s, verbose, names)
	writeOmission(&b, verbose)
	return b.String(), nil
}

func searchParams(c *call) (orchestrator.SearchParams, error) {
	p := orchestrator.SearchParams{
		Query: c.args.text("query"), AgentRuntime: c.args.text("agent_runtime"), PriorityClass: c.args.text("priority_class"),
		Genesis: c.args.text("genesis"), Visibility: c.args.text("visibility"), Order: c.args.text("order"),
		ShowArchived: c.args.flag("show_archived"), Page: intOr(c.args, "page", 1), PerPage: intOr(c.args, "per_page", orchestrator.DefaultPerPage),
	}
	switch st := c.args["status"].(type) {
	case string:
		p.Statuses = []string{st}
	case []any:
		for _, v := range st {
			s, ok := v.(string)
			if !ok {
				return p, fail("Invalid arguments: status must be a string or an array of strings")
			}
			p.Statuses = append(p.Statuses, s)
		}
	}
	return p, nil
}

func intOr(a args, k string, def int) int {
	if n, ok := a.integer(k); ok {
		return int(n)
	}
	return def
}

// archivedHint reminds a caller whose empty result may be a duplicate check that archived
// sessions (the ones that finished their work) were not searched.
func archivedHint(p orchestrator.SearchParams) string {
	if p.ShowArchived {
		return ""
	}
	for _, s := range p.Statuses {
		if s == string(session.StatusArchived) {
			return ""
		}
	}
	return " Archived sessions were not searched: pass show_archived: true to include them."
}

// writeRow is one session in a listing: compact by default, everything with verbose.
func writeRow(b *doc, s *session.Session, verbose bool, names map[int64]string) {
	b.heading(3, fmt.Sprintf("%s (ID: %d)", oneLine(s.DisplayTitle()), s.ID))
	b.field("Status", s.Status)
	b.field("Agent Runtime", s.AgentRuntime)
	if verbose && s.Slug != nil {
		b.field("Slug", *s.Slug)
	}
	b.optField("Paused", pausedBy(s))
	b.optField("Visibility", visibilityLine(s))
	b.field("Genesis", fmt.Sprintf("%s (%s)", s.Genesis, s.PriorityClass()))
	b.field("Precedence", s.Precedence)
	if verbose {
		if s.CategoryID != nil {
			b.field("Category", categoryName(*s.CategoryID, names))
		}
		b.field("Repository", oneLine(session.RedactCredentials(s.GitRoot)))
		b.field("Branch", oneLine(s.Branch))
		if s.Prompt != nil && *s.Prompt != "" {
			b.field("Prompt", oneLine(preview(*s.Prompt, 100)))
		}
		b.field("MCP Servers", listOrNone(s.AllMCPServers()))
	}
	b.field("Created", timestamp(s.CreatedAt))
	b.field("Updated", timestamp(s.UpdatedAt))
}

func writeOmission(b *doc, verbose bool) {
	if !verbose {
		b.blank()
		b.line(compactOmission)
	}
}

// pausedBy says who paused a session, "" when it was not paused by anyone.
func pausedBy(s *session.Session) string {
	by := s.PausedBy()
	if by == "" {
		return ""
	}
	return "by " + oneLine(by)
}

// visibilityLine is the board visibility of a tucked-away session, "" for a visible one.
func visibilityLine(s *session.Session) string {
	switch s.Visibility {
	case "", orchestrator.VisibilityVisible:
		return ""
	case orchestrator.VisibilitySnoozed:
		until := session.BagString(s.Metadata, session.MetaSnoozedUntil)
		return "snoozed until " + oneLine(until) + " (board only: it runs exactly as it would anyway)"
	}
	return oneLine(s.Visibility) + " (board only: it runs exactly as it would anyway)"
}

// scanContents runs or continues a bounded transcript scan.
func scanContents(ctx context.Context, c *call, p orchestrator.SearchParams, verbose bool) (string, error) {
	fingerprint := scanFingerprint(p)
	before, err := parseScanCursor(c.args.text("scan_cursor"), fingerprint)
	if err != nil {
		return "", err
	}
	res, err := c.h.ops.ScanContents(ctx, orchestrator.ScanParams{Search: p, Before: before, Limit: p.PerPage, Budget: c.h.scanBudget})
	if err != nil {
		return "", err
	}
	names, err := c.categoryNames(ctx, verbose)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Agent Sessions (content scan)")
	b.linef("Found %d matching session(s) in this pass, newest first. A content scan reports no total count.", len(res.Matches))
	for _, s := range res.Matches {
		writeRow(&b, s, verbose, names)
	}
	if len(res.Matches) > 0 {
		writeOmission(&b, verbose)
	}
	b.blank()
	b.linef("**Transcripts read:** %d, for %d candidate(s) scanned. A session that has never run has no transcript, so only its title and metadata can match; one already matched by those is not read.",
		res.WithTranscript, res.Scanned)
	if res.TranscriptsCut > 0 {
		b.linef("%d transcript(s) were too long to read whole; only their most recent part was searched.", res.TranscriptsCut)
	}
	b.blank()
	if res.Complete {
		b.linef("**Scan complete:** every candidate passing the filters was checked (%d in this pass).", res.Scanned)
		return b.String(), nil
	}
	why := fmt.Sprintf("it reached per_page (%d) matches", p.PerPage)
	if res.OutOfTime {
		why = fmt.Sprintf("it used its %s time budget", c.h.scanBudget)
	}
	b.linef("**Scan incomplete:** it stopped after %d candidate(s) because %s. No match here means \"not found yet\", not \"not there\".", res.Scanned, why)
	b.linef("To continue from exactly where it stopped, call again with the same query and filters and `scan_cursor: %q`.", formatScanCursor(res.Cursor, fingerprint))
	return b.String(), nil
}

// scanFingerprint ties a cursor to the query and filters it was issued for.
func scanFingerprint(p orchestrator.SearchParams) string {
	h := sha256.Sum256([]byte(strings.Join([]string{strings.ToLower(strings.TrimSpace(p.Query)), strings.Join(p.Statuses, ","),
		p.AgentRuntime, p.PriorityClass, p.Genesis, p.Visibility, strconv.FormatBool(p.ShowArchived)}, "\x00")))
	return hex.EncodeToString(h[:6])
}

func formatScanCursor(before int64, fingerprint string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("v1:%d:%s", before, fingerprint)))
}

// parseScanCursor is where to resume (0: from the newest).
func parseScanCursor(cursor, fingerprint string) (int64, error) {
	if cursor == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	parts := strings.Split(string(raw), ":")
	if err != nil || len(parts) != 3 || parts[0] != "v1" {
		return 0, fail("Invalid scan_cursor: pass back exactly the value a previous scan returned, or omit it to start from the newest session.")
	}
	if parts[2] != fingerprint {
		return 0, fail("Invalid scan_cursor: it was issued for a different query or filters. Pass the same query and filters it came with, or omit it to start over.")
	}
	before, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || before < 1 {
		return 0, fail("Invalid scan_cursor: pass back exactly the value a previous scan returned.")
	}
	return before, nil
}

// categoryNames maps category ids to names, read only when a verbose row will show them.
func (c *call) categoryNames(ctx context.Context, verbose bool) (map[int64]string, error) {
	if !verbose {
		return nil, nil
	}
	list, err := c.h.ops.Categories(ctx)
	if err != nil {
		return nil, err
	}
	names := make(map[int64]string, len(list))
	for _, cat := range list {
		names[cat.ID] = cat.Name
	}
	return names, nil
}

// categoryName is "Name (ID: n)", or says the category is gone.
func categoryName(id int64, names map[int64]string) string {
	if name, ok := names[id]; ok {
		return fmt.Sprintf("%s (ID: %d)", oneLine(name), id)
	}
	return fmt.Sprintf("#%d (no longer exists)", id)
}
