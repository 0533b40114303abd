package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func getSystemHealthTool() *toolDef {
	return &toolDef{name: "get_system_health", group: groupHealth, full: variant{
		description: "The deployment's health: queue recovery mode, ready backlog by queue and job class with " +
			"head-of-line ages, in-flight/oldest/youngest execution per lane, sessions by status, Neo4j and Redis, disk " +
			"used by workspaces and transcripts, and the secret names the MCP catalog lacks (names only).",
		schema: newSchema(fields{
			"include_cli_status": boolean("Also report the agent CLIs' status."),
		}),
		run: runGetSystemHealth,
	}}
}

func runGetSystemHealth(ctx context.Context, c *call) (string, error) {
	r := c.h.ops.SystemHealth(ctx)
	v := r.View()
	var b doc
	b.heading(2, "System Health Report")
	b.field("Timestamp", timestamp(r.At))
	b.field("Queue recovery mode", recoveryLine(v.QueueRecoveryMode))
	writeBacklog(&b, r, v)
	writeSessions(&b, r)
	for _, name := range []string{"neo4j", "redis"} {
		d := v.Dependencies[name]
		text := fmt.Sprintf("%s (%.1f ms)", d.State, d.LatencyMS)
		if d.Error != "" {
			text = "down: " + d.Error
		}
		b.field(map[string]string{"neo4j": "Neo4j", "redis": "Redis"}[name], text)
	}
	b.field("Disk", fmt.Sprintf("workspaces %s; transcripts %s", diskLine(v.Disk["workspaces"]), diskLine(v.Disk["transcripts"])))
	b.blank()
	b.heading(3, "Secret Store")
	if v.Secrets.SecretsFileConfigured {
		b.field("Secrets file", "configured (ZIMMER_SECRETS_FILE), read before the environment")
	} else {
		b.field("Secrets file", "none (the environment only)")
	}
	if v.Secrets.SecretsFileError != "" {
		b.field("Secrets file state", "unreadable, so which names resolve is unknown: "+v.Secrets.SecretsFileError)
	}
	b.field("Missing (catalog MCP servers need them; they resolve nowhere)", namesOrNone(v.Secrets.Missing))
	b.field("Not readable by MCP servers (ZIMMER_MCP_VARIABLES or Zimmer's own)", namesOrNone(v.Secrets.Refused))
	if c.args.flag("include_cli_status") {
		b.blank()
		b.heading(3, "CLI Status")
		writeCLIStatus(ctx, &b, c)
	}
	b.blank()
	b.heading(3, "Health Details")
	b.fence("json", prettyJSON(v))
	return b.String(), nil
}

// recoveryLine states queue recovery mode first, since a pending count means something else
// while the lanes are halted.
func recoveryLine(m orchestrator.RecoveryView) string {
	switch {
	case m.Error != "":
		return "unknown (" + m.Error + ")"
	case !m.Active:
		return "Off (background jobs processing normally)"
	}
	line := fmt.Sprintf("⏸ QUEUE RECOVERY MODE IS ON — halted: %s; live: %s. Auto-exit at %s (in %s).",
		strings.Join(m.HaltedQueues, ", "), strings.Join(m.LiveQueues, ", "), timestamp(*m.ExpiresAt),
		time.Duration(m.ExpiresInSeconds)*time.Second)
	if m.Reason != "" {
		line += " Reason: " + oneLine(m.Reason) + "."
	}
	if m.EnteredBy != "" {
		line += " Entered by " + oneLine(m.EnteredBy) + "."
	}
	return line + " Ready counts below pile up by design until it is lifted."
}

// writeBacklog renders ready work (only when some waits) and, when the workers hold anything,
// what each lane executes against its concurrency and since when.
func writeBacklog(b *doc, r orchestrator.HealthReport, v orchestrator.HealthView) {
	if r.LanesErr != nil {
		b.field("Ready backlog breakdown", "unavailable ("+r.LanesErr.Error()+")")
		return
	}
	var byQueue, inFlight, oldest, youngest []string
	byClass := map[string]int{}
	for _, l := range v.Queues {
		if l.Ready > 0 {
			byQueue = append(byQueue, fmt.Sprintf("%s=%d (head-of-line %s)", l.Queue, l.Ready, age(l.HeadOfLineAgeSeconds)))
			for class, n := range l.ReadyByJobClass {
				byClass[class] += n
			}
		}
		if l.InFlight > 0 || l.Active > 0 {
			inFlight = append(inFlight, fmt.Sprintf("%s %d/%d per worker (%d %s)", l.Queue, l.InFlight, l.Concurrency, l.Workers, plural(l.Workers, "worker", "workers")))
		}
		if l.OldestExecutionSeconds != nil {
			oldest = append(oldest, fmt.Sprintf("%s %s", l.Queue, age(*l.OldestExecutionSeconds)))
			youngest = append(youngest, fmt.Sprintf("%s %s", l.Queue, age(*l.YoungestExecutionSecs)))
		}
	}
	if len(byQueue) > 0 {
		var classes []string
		for _, class := range sortedKeys(byClass) {
			classes = append(classes, fmt.Sprintf("%s=%d", class, byClass[class]))
		}
		b.field("Ready backlog by queue", strings.Join(byQueue, ", "))
		b.field("Ready backlog by job class", strings.Join(classes, ", "))
		if w := v.LongestWaiting; w != nil {
			b.field("Longest-waiting job", fmt.Sprintf("%s on %s, waiting %s", w.JobClass, w.Queue, age(w.AgeSeconds)))
		}
	}
	if len(inFlight) > 0 {
		b.field("In flight by queue", strings.Join(inFlight, ", "))
		b.field("Oldest execution by queue", listOrNone(oldest))
		b.field("Youngest execution by queue", listOrNone(youngest))
	}
}

func writeSessions(b *doc, r orchestrator.HealthReport) {
	if r.SessionsErr != nil {
		b.field("Sessions by status", "unavailable ("+r.SessionsErr.Error()+")")
		return
	}
	var parts []string
	for _, st := range session.Statuses {
		parts = append(parts, fmt.Sprintf("%s=%d", st, r.Sessions[st]))
	}
	b.field("Sessions by status", strings.Join(parts, ", "))
}

func age(seconds float64) string {
	return (time.Duration(seconds * float64(time.Second))).Round(time.Second).String()
}

func diskLine(d orchestrator.DiskView) string {
	text := fmt.Sprintf("%.1f MB in %d %s", float64(d.Bytes)/1e6, d.Files, plural(int(d.Files), "file", "files"))
	if d.Truncated {
		text = "at least " + text + " (the walk stopped at its bound)"
	}
	if d.Error != "" {
		text += " (" + d.Error + ")"
	}
	return text
}

func namesOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "`" + n + "`"
	}
	return strings.Join(quoted, ", ")
}

func writeCLIStatus(ctx context.Context, b *doc, c *call) {
	v, err := c.h.ops.CLIStatus(ctx)
	if err != nil {
		b.line("*Could not fetch CLI status: " + err.Error() + "*")
		return
	}
	for _, e := range v.CLIs {
		b.field(e.Runtime, cliLine(e))
	}
}

// cliLine is one runtime's cached probe in a sentence.
func cliLine(e orchestrator.CLIEntry) string {
	if e.Missing {
		return "not checked yet (action_health cli_refresh asks)"
	}
	var text string
	switch {
	case !e.Installed:
		text = "not installed (" + e.Binary + ")"
	case e.Version != "":
		text = e.Version
	default:
		text = "installed, version unknown"
	}
	if e.Authenticated != nil {
		text += map[bool]string{true: "; logged in", false: "; not logged in"}[*e.Authenticated]
	}
	if e.Error != "" && e.Installed {
		text += "; " + e.Error
	}
	if e.CheckedAt != nil { // a record the worker wrote without its time reads as stale, never as a crash
		text += "; checked " + timestamp(*e.CheckedAt)
	}
	if e.Stale {
		text += " (stale: the periodic refresh has not run since)"
	}
	return text
}
