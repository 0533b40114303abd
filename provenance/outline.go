package provenance

import (
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/lineage"
)

// Outline draws the hierarchy one line per session, depth-first over the breadth-first set: each
// node followed by the subtree drawn under it, so indentation reads as "the line above reached
// me". Untrusted root names and titles are one-line sanitised.
//
//   - #101 [zimmer-router] {web_ui · priority} Add spot vs priority classification
//   - #102 [zimmer] {web_ui · priority} Implement the genesis column ← this session
func Outline(h *lineage.Hierarchy) string {
	tops, children := h.Forest()
	var lines []string
	var draw func(n lineage.Node, indent int)
	draw = func(n lineage.Node, indent int) {
		lines = append(lines, strings.Repeat("  ", indent)+OutlineLine(n))
		for _, k := range children[n.ID] {
			draw(k, indent+1)
		}
	}
	for _, t := range tops {
		draw(t, t.Depth)
	}
	return strings.Join(lines, "\n")
}

// OutlineLine is one node: `- #id [root] {genesis · class} Title (also senior: #a) ← this session`.
func OutlineLine(n lineage.Node) string {
	root := "—"
	if n.AgentRoot != "" {
		root = OneLine(n.AgentRoot)
	}
	genesis := n.Genesis
	if genesis == "" {
		genesis = "unknown"
	}
	title := n.Title
	if strings.TrimSpace(title) == "" {
		title = fmt.Sprintf("Session #%d", n.ID)
	}
	line := fmt.Sprintf("- #%d [%s] {%s · %s} %s", n.ID, root, OneLine(genesis), OneLine(n.Class), OneLine(title))
	if len(n.InGraphUncles) > 0 {
		line += " (" + AlsoSenior(n.InGraphUncles) + ")"
	}
	if n.Current {
		line += " ← this session"
	}
	return line
}

// AlsoSenior is the shared uncle phrase: `also senior: #4, #9`.
func AlsoSenior(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("#%d", id)
	}
	return "also senior: " + strings.Join(parts, ", ")
}
