package mcp

import (
	"context"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/pricing"
)

var costsFields = fields{
	"days":       integer("Window in days (default 7; ignored with from/to).").min(1).max(365),
	"from":       str("First day, YYYY-MM-DD."),
	"to":         str("Last day, YYYY-MM-DD (default today)."),
	"agent_root": str("Only this agent root's spend."),
	"session_id": integer("Only this session's spend (wins over agent_root)."),
	"include_descendants": boolean("With session_id or agent_root: add every session it spawned, transitively over spawn edges " +
		"(uncle edges excluded; each session counted once)."),
}

func getCostsTool() *toolDef {
	full := newSchema(costsFields)
	return &toolDef{name: "get_costs", group: groupHealth, composites: []string{compositeSelf},
		full: variant{
			description: "Token spend from the ledger, at list price: by agent root, model, session and kind of token, " +
				"fleet-wide by default; agent_root or session_id scope it, include_descendants rolls a session's or agent root's " +
				"whole spawn hierarchy up, days or from/to set the window. Says how complete the ledger is.",
			schema: full,
			run:    runCosts,
		},
		overrides: map[string]variant{compositeSelf: {
			description: "This session's own token spend at list price — the session this connection was written for, " +
				"never the fleet's. The fleet report lives in the health tool group and on the Costs page.",
			schema: full.only("days", "from", "to", "session_id"),
			run:    runSelfCosts,
		}},
	}
}

func costQuery(c *call) orchestrator.CostQuery {
	days, _ := c.args.integer("days")
	id, _ := c.args.integer("session_id")
	return orchestrator.CostQuery{Days: int(min(max(days, 0), 1000)), From: c.args.text("from"), To: c.args.text("to"),
		AgentRoot: c.args.text("agent_root"), SessionID: id, IncludeDescendants: c.args.flag("include_descendants")}
}

func runCosts(ctx context.Context, c *call) (string, error) {
	r, err := c.h.ops.Costs(ctx, costQuery(c))
	if err != nil {
		return "", err
	}
	return renderCosts(r), nil
}

// runSelfCosts reports the calling session's own spend: no agent_root, no roll-up, no other
// session's id, and some session named.
func runSelfCosts(ctx context.Context, c *call) (string, error) {
	for _, k := range []string{"agent_root", "include_descendants"} {
		if c.args.has(k) {
			return "", fail("%s is not accepted here: this get_costs reports only the calling session's own spend. "+
				"The fleet report, by agent root, is get_costs on a connection with the health tool group, or the Costs page.", k)
		}
	}
	s, err := c.ownSession(ctx, "session_id")
	if err != nil {
		return "", err
	}
	q := costQuery(c)
	q.SessionID = s.ID
	r, err := c.h.ops.Costs(ctx, q)
	if err != nil {
		return "", err
	}
	return renderCosts(r), nil
}

// renderCosts is the report as Markdown: what was spent, where it went, and how complete the
// ledger behind it is.
func renderCosts(r *orchestrator.CostReport) string {
	var b doc
	scope := ""
	switch {
	case r.SessionID != 0:
		scope = fmt.Sprintf(" · session #%d", r.SessionID)
	case r.AgentRoot != "":
		scope = fmt.Sprintf(" · agent root `%s`", oneLine(r.AgentRoot))
	}
	if scope != "" && r.IncludeDescendants {
		scope += " and every session it spawned"
	}
	b.heading(2, "Token spend — "+r.Window.Label+scope)
	if r.Totals.Calls == 0 {
		switch {
		case r.SessionID != 0:
			b.linef("No spend recorded for session #%d%s over %s.", r.SessionID, descendantsNote(r), r.Window.Label)
		case r.AgentRoot != "":
			b.linef("No spend recorded for agent root `%s`%s over %s.", oneLine(r.AgentRoot), descendantsNote(r), r.Window.Label)
		default:
			b.linef("No token usage recorded over %s. Spend is recorded as agent turns run; backfill_token_usage (action_health) sweeps older transcripts in.", r.Window.Label)
		}
		coverage(&b, r.LedgerCoverage)
		return b.String()
	}
	b.linef("**%s** at list price · %d model calls · %d tokens · %d %s", pricing.Dollars(r.Totals.ListPrice), r.Totals.Calls, r.Totals.Tokens,
		r.Totals.Sessions, plural(r.Totals.Sessions, "session", "sessions"))
	b.heading(3, "Where the money goes")
	t := r.TokenBreakdown
	b.line("| kind | volume | list price |")
	b.line("|---|---:|---:|")
	b.linef("| input | %d tokens | %s |", t.InputTokens, pricing.Dollars(r.CostBreakdown.Input))
	b.linef("| output | %d tokens | %s |", t.OutputTokens, pricing.Dollars(r.CostBreakdown.Output))
	b.linef("| cache reads | %d tokens | %s |", t.CacheReadTokens, pricing.Dollars(r.CostBreakdown.CacheRead))
	b.linef("| cache writes (5 min %d, 1 h %d) | %d tokens | %s |", t.CacheCreation5mTokens, t.CacheCreation1hTokens, t.CacheCreationTokens, pricing.Dollars(r.CostBreakdown.CacheWrite))
	b.linef("| web searches | %d | %s |", t.WebSearchRequests, pricing.Dollars(r.CostBreakdown.WebSearch))
	b.linef("| web fetches | %d | %s |", t.WebFetchRequests, pricing.Dollars(r.CostBreakdown.WebFetch))
	costTable(&b, "By agent root", "agent root", r.ByAgentRoot)
	costTable(&b, "By model", "model", r.ByModel)
	coverage(&b, r.LedgerCoverage)
	costTable(&b, "Daily", "day", r.ByDay)
	costTable(&b, "Most expensive sessions", "session", r.TopSessions)
	injectedTable(&b, r.InjectedBlocks)
	if len(r.UnpricedModels) > 0 {
		b.heading(3, "⚠️ Unpriced models")
		b.linef("No rate is configured for %s: their requests count as $0 above. Add them to prices.json in the catalog folder.", listOrNone(quoted(r.UnpricedModels)))
	}
	b.blank()
	b.line("_Dollar figures are list price, on accounts that may be subscription-billed: a unit comparable across models, not money owed._")
	return b.String()
}

// injectedTable is the share of the spend that Zimmer's own prompt blocks take.
func injectedTable(b *doc, lines []orchestrator.InjectedLine) {
	if len(lines) == 0 {
		return
	}
	b.heading(3, "Zimmer's injected prompt blocks")
	b.line("A share of the spend above, not an addition: tokens estimated at a quarter of the bytes, priced once per sending as input at the turn's model.")
	b.line("| block | model | times sent | bytes | estimated tokens | list price |")
	b.line("|---|---|---:|---:|---:|---:|")
	for _, l := range lines {
		b.linef("| %s | %s | %d | %d | %d | %s |", l.Block, oneLine(l.Model), l.Occurrences, l.Bytes, l.Tokens, pricing.Dollars(l.ListPrice))
	}
}

func descendantsNote(r *orchestrator.CostReport) string {
	if r.IncludeDescendants {
		return " or any session it spawned"
	}
	return ""
}

const maxCostLines = 10

func costTable(b *doc, title, key string, lines []orchestrator.CostLine) {
	if len(lines) == 0 {
		return
	}
	b.heading(3, title)
	b.linef("| %s | list price | calls | tokens |", key)
	b.line("|---|---:|---:|---:|")
	for _, l := range lines[:min(len(lines), maxCostLines)] {
		b.linef("| %s | %s | %d | %d |", oneLine(l.Key), pricing.Dollars(l.ListPrice), l.Calls, l.Tokens)
	}
	if len(lines) > maxCostLines {
		b.linef("…and %d more", len(lines)-maxCostLines)
	}
}

// coverage says how complete the ledger is: a partial history while a sweep of every
// transcript has not finished, else the window it covers.
func coverage(b *doc, c orchestrator.LedgerCoverage) {
	bf := c.Backfill
	switch {
	case bf.Running():
		b.heading(3, "⚠️ Partial history")
		b.linef("The sweep of every transcript into the ledger is running: %d of %d transcripts read, %d requests added. "+
			"Older spend appears as it goes.", bf.FilesDone, bf.FilesTotal, bf.SessionRows)
	case bf.Run == 0:
		b.heading(3, "⚠️ Partial history")
		b.line("The ledger holds spend since ingestion was deployed; older transcripts have never been swept in " +
			"(action_health backfill_token_usage).")
	case c.CoversSince != nil:
		b.blank()
		b.linef("Ledger covers %s onward (every transcript swept in %s).", c.CoversSince.Format(time.DateOnly), bf.FinishedAt.Format(time.DateOnly))
	}
}

func quoted(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + oneLine(s) + "`"
	}
	return out
}
