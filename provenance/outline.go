package provenance

import (
	"fmt"
	"strconv"
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
	var b strings.Builder
	b.Grow(len(h.Nodes) * 96) // a line is about this long; growing by doubling copies it all again
	var draw func(n lineage.Node, indent int)
	draw = func(n lineage.Node, indent int) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		for range indent {
			b.WriteString("  ")
		}
		writeOutlineLine(&b, n)
		for _, k := range children[n.ID] {
			draw(k, indent+1)
		}
	}
	for _, t := range tops {
		draw(t, t.Depth)
	}
	return b.String()
}

// writeOutlineLine writes one node: `- #id [root] {genesis · class} Title (also senior: #a) ← this
// session`. Written piece by piece: a wide hierarchy draws 151 of them on every read.
func writeOutlineLine(b *strings.Builder, n lineage.Node) {
	root := "—"
	if n.AgentRoot != "" {
		root = OneLine(n.AgentRoot)
	}
	genesis := n.Genesis
	if genesis == "" {
		genesis = "unknown"
	}
	b.WriteString("- #")
	b.WriteString(strconv.FormatInt(n.ID, 10))
	b.WriteString(" [")
	b.WriteString(root)
	b.WriteString("] {")
	b.WriteString(OneLine(genesis))
	b.WriteString(" · ")
	b.WriteString(OneLine(n.Class))
	b.WriteString("} ")
	if strings.TrimSpace(n.Title) == "" {
		b.WriteString("Session #")
		b.WriteString(strconv.FormatInt(n.ID, 10))
	} else {
		b.WriteString(OneLine(n.Title))
	}
	if len(n.InGraphUncles) > 0 {
		b.WriteString(" (")
		b.WriteString(AlsoSenior(n.InGraphUncles))
		b.WriteString(")")
	}
	if n.Current {
		b.WriteString(" ← this session")
	}
}

// AlsoSenior is the shared uncle phrase: `also senior: #4, #9`.
func AlsoSenior(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("#%d", id)
	}
	return "also senior: " + strings.Join(parts, ", ")
}
