package web

import (
	"regexp"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/lineage"
)

func ptr(v int64) *int64 { return &v }

func TestTheDrawingLinksEveryOtherSessionDashesUncleEdgesAndSaysTruncation(t *testing.T) {
	h := &lineage.Hierarchy{SessionID: 2, Truncated: true, Nodes: []lineage.Node{
		{NodeData: lineage.NodeData{ID: 1, Title: "Router", AgentRoot: "zimmer-router", Status: "running"}},
		{NodeData: lineage.NodeData{ID: 2, Title: "Worker", Status: "waiting", ParentID: ptr(1)}, Depth: 1, Current: true, Under: 1},
		{NodeData: lineage.NodeData{ID: 3, Title: `<script>alert(1)</script>`, Status: "failed", ParentID: ptr(1), UncleIDs: []int64{2}},
			Depth: 1, InGraphUncles: []int64{2}, Under: 1},
	}}
	svg := string(drawLineage(h))
	for _, want := range []string{`href="/sessions/1"`, `href="/sessions/3"`, "← this session", lineage.TruncationReason,
		`class="node failed"`, `class="node waiting current"`, "‹script›"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the drawing lacks %q", want)
		}
	}
	if strings.Contains(svg, `href="/sessions/2"`) || strings.Contains(svg, "<script>") {
		t.Error("the current session links to itself, or a title was not escaped")
	}
	if edges := len(regexp.MustCompile(`<path [^>]*class="edge[ "]`).FindAllString(svg, -1)); edges != 3 {
		t.Errorf("want 3 edges (two spawned, one uncle), got %d", edges)
	}
	if dashed := strings.Count(svg, `class="edge uncle"`); dashed != 1 {
		t.Errorf("want the one uncle edge dashed, got %d", dashed)
	}
}

func TestAWideTreeGrowsDownwardsWithEachParentLevelWithItsChildren(t *testing.T) {
	h := &lineage.Hierarchy{SessionID: 1, Nodes: []lineage.Node{{NodeData: lineage.NodeData{ID: 1, Status: "running"}, Current: true}}}
	for id := int64(2); id <= 41; id++ {
		h.Nodes = append(h.Nodes, lineage.Node{NodeData: lineage.NodeData{ID: id, Status: "waiting", ParentID: ptr(1)}, Depth: 1, Under: 1})
	}
	nodes, width, height := layout(h)
	if width != 2*margin+2*nodeW+gapX || height < 40*(nodeH+gapY) {
		t.Fatalf("40 children should stack in one column beside their parent: %d×%d", width, height)
	}
	at := map[int64]placed{}
	for _, n := range nodes {
		at[n.ID] = n
	}
	if mid := (at[2].y + at[41].y) / 2; at[1].y != mid || at[2].y >= at[3].y {
		t.Fatalf("the parent sits at %d, its children's middle is %d; children in id order: %d, %d", at[1].y, mid, at[2].y, at[3].y)
	}
}
