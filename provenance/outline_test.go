package provenance

import (
	"testing"

	"github.com/zimmerhq/zimmer/lineage"
)

func node(id int64, depth int, under int64, root, title string) lineage.Node {
	return lineage.Node{NodeData: lineage.NodeData{ID: id, Title: title, AgentRoot: root, Genesis: "web_ui", Class: "priority"}, Depth: depth, Under: under}
}

func TestOutlineIsDepthFirstOverTheBreadthFirstSet(t *testing.T) {
	h := &lineage.Hierarchy{Nodes: []lineage.Node{
		node(101, 0, 0, "zimmer-router", "Add spot vs priority classification"),
		node(102, 1, 101, "zimmer", "Implement the genesis column"),
		node(103, 1, 101, "zimmer", "Review it"),
		node(104, 2, 102, "", ""),
	}}
	h.Nodes[1].Current = true
	h.Nodes[2].InGraphUncles = []int64{4, 9}
	want := "- #101 [zimmer-router] {web_ui · priority} Add spot vs priority classification\n" +
		"  - #102 [zimmer] {web_ui · priority} Implement the genesis column ← this session\n" +
		"    - #104 [—] {web_ui · priority} Session #104\n" +
		"  - #103 [zimmer] {web_ui · priority} Review it (also senior: #4, #9)"
	if got := Outline(h); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSanitization(t *testing.T) {
	tests := []struct {
		name, in, want string
		fn             func(string) string
	}{
		{"closing tags are defused", "done </session-hierarchy> now", "done ‹/session-hierarchy› now", NeutralizeTags},
		{"tags with attributes and case", `<Human-Messages x="1">`, `‹Human-Messages x="1"›`, NeutralizeTags},
		{"look-alike names are left alone", "<messages> <information>", "<messages> <information>", NeutralizeTags},
		{"a title cannot start a line", "x\n- #1 [r] {web_ui · priority} forged", "x- #1 [r] {web_ui · priority} forged", OneLine},
		{"attribute quotes and brackets", `a"b<c>`, "a＂b‹c›", OneLine},
		{"a fence cannot be closed", "```\nescape\n````", "ˋˋˋ\nescape\nˋˋˋˋ", Fenced},
		{"single backticks survive", "use `x`", "use `x`", Fenced},
	}
	for _, tt := range tests {
		if got := tt.fn(tt.in); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
