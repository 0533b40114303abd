package web

import (
	"cmp"
	"fmt"
	"html/template"
	"strings"

	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/provenance"
)

// The lineage drawn: the hierarchy as an SVG laid out here, on the server, so the page needs no
// script to show it. It is a tidy tree on its side — one column per depth, each session level
// with the middle of the sessions drawn under it, in the outline's order — so spawn edges never
// cross and a wide tree grows downwards, where a page scrolls, rather than sideways. Spawn edges
// are solid, uncle edges dashed, each node a link coloured by status, the current session
// outlined and not linked to itself; a truncated walk says so on the picture.

const (
	nodeW, nodeH     = 184, 40
	gapX, gapY       = 44, 10
	margin           = 10
	headH            = 24 // the line above the nodes: the legend or the truncation note
	maxTitle         = 20
	currentStrokePad = 3
	bend             = 30 // how far an edge's curve reaches out of its ends
)

type placed struct {
	lineage.Node
	x, y int
}

type edge struct {
	from, to int64
	uncle    bool
}

// drawLineage lays h out and returns the SVG.
func drawLineage(h *lineage.Hierarchy) template.HTML {
	nodes, width, height := layout(h)
	at := map[int64]placed{}
	for _, n := range nodes {
		at[n.ID] = n
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="group" aria-label="The session hierarchy, drawn">`,
		width, height, width, height)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" class="edge-head"/></marker></defs>`)
	note, noteClass := "solid: spawned · dashed: uncle edge (a session that also directed it)", "legend"
	if h.Truncated {
		note, noteClass = h.Reason(), "truncated"
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="%s">%s</text>`, margin, margin+12, noteClass, template.HTMLEscapeString(note))
	for _, e := range edges(h, at) {
		from, to := at[e.from], at[e.to]
		x1, y1, x2, y2 := from.x+nodeW, from.y+nodeH/2, to.x, to.y+nodeH/2
		class := "edge"
		if e.uncle {
			class = "edge uncle" // dashed by app.css, as the legend says
		}
		fmt.Fprintf(&b, `<path d="M%d,%d C%d,%d %d,%d %d,%d" class="%s"/>`, x1, y1, x1+bend, y1, x2-bend, y2, x2, y2, class)
	}
	for _, n := range nodes {
		drawNode(&b, n)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text in it went through HTMLEscapeString
}

// drawNode draws one session in its own coordinates (a translated group keeps the markup
// small: a 150-session tree stays well inside a page's budget). Its tooltip is the whole title.
func drawNode(b *strings.Builder, n placed) {
	title := provenance.OneLine(n.Title)
	if strings.TrimSpace(title) == "" {
		title = fmt.Sprintf("Session #%d", n.ID)
	}
	tip := fmt.Sprintf("#%d %s", n.ID, title)
	class := "node " + n.Status
	if n.Current {
		class += " current"
		tip += " ← this session"
	} else {
		fmt.Fprintf(b, `<a href="/sessions/%d">`, n.ID)
	}
	fmt.Fprintf(b, `<g class="%s" transform="translate(%d,%d)"><title>%s</title>`, template.HTMLEscapeString(class), n.x, n.y, template.HTMLEscapeString(tip))
	if n.Current {
		fmt.Fprintf(b, `<rect x="-%d" y="-%d" width="%d" height="%d" rx="8" class="halo"/>`,
			currentStrokePad, currentStrokePad, nodeW+2*currentStrokePad, nodeH+2*currentStrokePad)
	}
	fmt.Fprintf(b, `<rect width="%d" height="%d" rx="6"/><rect width="6" height="%d" rx="2" class="bar"/>`, nodeW, nodeH, nodeH)
	fmt.Fprintf(b, `<text x="12" y="17" class="t">#%d %s</text>`, n.ID, template.HTMLEscapeString(clip(title, maxTitle)))
	sub := fmt.Sprintf("[%s] %s", clip(cmp.Or(n.AgentRoot, "—"), 14), n.Status)
	fmt.Fprintf(b, `<text x="12" y="32" class="s">%s</text></g>`, template.HTMLEscapeString(sub))
	if !n.Current {
		b.WriteString(`</a>`)
	}
}

func clip(s string, n int) string {
	s = provenance.OneLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// layout places every node: the outline's tree (each node under the node it is drawn under,
// children by id), a column per level, leaves one slot each from the top and every other node
// level with the middle of its children.
func layout(h *lineage.Hierarchy) ([]placed, int, int) {
	tops, children := h.Forest()
	var out []placed
	slot, deepest := 0, 0
	var place func(n lineage.Node, col int) int
	place = func(n lineage.Node, col int) int {
		deepest = max(deepest, col)
		kids := children[n.ID]
		i := len(out)
		out = append(out, placed{Node: n, x: margin + col*(nodeW+gapX)})
		var y int
		if len(kids) == 0 {
			y = margin + headH + slot*(nodeH+gapY)
			slot++
		} else {
			first := place(kids[0], col+1)
			last := first
			for _, k := range kids[1:] {
				last = place(k, col+1)
			}
			y = (first + last) / 2
		}
		out[i].y = y
		return y
	}
	for _, t := range tops {
		place(t, t.Depth)
	}
	return out, 2*margin + (deepest+1)*(nodeW+gapX) - gapX, margin + headH + slot*(nodeH+gapY) - gapY + margin
}

// edges are the spawn edges (lineage parent → child) and uncle edges inside the drawing.
func edges(h *lineage.Hierarchy, at map[int64]placed) []edge {
	var out []edge
	for _, n := range h.Nodes {
		if n.ParentID != nil {
			if _, ok := at[*n.ParentID]; ok {
				out = append(out, edge{from: *n.ParentID, to: n.ID})
			}
		}
		for _, u := range n.InGraphUncles {
			out = append(out, edge{from: u, to: n.ID, uncle: true})
		}
	}
	return out
}
