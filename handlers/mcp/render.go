package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/provenance"
)

// doc builds a tool's Markdown: `## Heading`, then `- **Label:** value` lines, sections
// separated by blank lines. Untrusted text goes through oneLine or fenced on its way in.
type doc struct{ strings.Builder }

func (d *doc) heading(level int, text string) {
	if d.Len() > 0 && !strings.HasSuffix(d.Builder.String(), "\n\n") {
		d.WriteString("\n")
	}
	d.WriteString("######"[:level])
	d.WriteByte(' ')
	d.WriteString(text)
	d.WriteString("\n\n")
}

// line writes s and a newline without joining them first: s may be a whole outline.
func (d *doc) line(s string) {
	d.WriteString(s)
	d.WriteByte('\n')
}

func (d *doc) linef(format string, a ...any) { d.line(fmt.Sprintf(format, a...)) }

// field writes `- **label:** value`, value as %v would show it; a page has dozens, so without
// a format string to parse.
func (d *doc) field(label string, value any) {
	d.WriteString("- **")
	d.WriteString(label)
	d.WriteString(":** ")
	if s, ok := value.(string); ok {
		d.WriteString(s)
	} else {
		fmt.Fprint(&d.Builder, value)
	}
	d.WriteByte('\n')
}

func (d *doc) blank() { d.WriteString("\n") }
func (d *doc) optField(label string, v string) {
	if v != "" {
		d.field(label, v)
	}
}

// fence writes text inside a ``` block that the text cannot close.
func (d *doc) fence(lang, text string) {
	d.line("```" + lang)
	d.line(provenance.Fenced(text))
	d.line("```")
}

func (d *doc) String() string { return strings.TrimRight(d.Builder.String(), "\n") }

// oneLine makes an untrusted value safe on one Markdown line.
func oneLine(s string) string { return provenance.OneLine(s) }

func listOrNone(items []string) string {
	if len(items) == 0 {
		return "(none)"
	}
	return strings.Join(items, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func optTimestamp(t *time.Time) string {
	if t == nil {
		return ""
	}
	return timestamp(*t)
}

// cut is the first n characters of s and whether anything was cut.
func cut(s string, n int) (string, bool) {
	r := []rune(s)
	if len(r) <= n {
		return s, false
	}
	return string(r[:n]), true
}

// preview is the first n characters of s on one line, "..." marking a cut.
func preview(s string, n int) string {
	flat := strings.Join(strings.Fields(s), " ")
	if head, cutOff := cut(flat, n); cutOff {
		return head + "..."
	}
	return flat
}

// prettyJSON is v indented, for a fenced block.
func prettyJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// sortedKeys are a map's keys in order, for output that does not depend on map iteration.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
