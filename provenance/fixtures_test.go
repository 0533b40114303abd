package provenance

import (
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/roster"
)

var t0 = time.Date(2026, 8, 2, 4, 5, 6, 0, time.UTC)

// users is the seeded roster plus nothing else; admin resolves to tadasant.
var users = []roster.User{
	{Key: "juliehazz", DisplayName: "Julie", Notes: "Julie's note."},
	{Key: "tadasant", DisplayName: "Tadas", Notes: "Tadas's note."},
}

// tree is router #101 (web_ui) spawning #102 (the viewed session) and #103.
func tree() *lineage.Hierarchy {
	mk := func(id int64, depth int, under int64, root, title string, current bool) lineage.Node {
		return lineage.Node{NodeData: lineage.NodeData{ID: id, Title: title, AgentRoot: root, Genesis: "web_ui", Class: "priority"},
			Depth: depth, Under: under, Current: current}
	}
	return &lineage.Hierarchy{SessionID: 102, OriginID: 101, RootIDs: []int64{101}, Nodes: []lineage.Node{
		mk(101, 0, 0, "zimmer-router", "Route it", false),
		mk(102, 1, 101, "zimmer", "Do it", true),
		mk(103, 1, 101, "zimmer", "Review it", false),
	}}
}

// solitary is session #7 alone in its tree.
func solitary() *lineage.Hierarchy {
	return &lineage.Hierarchy{SessionID: 7, OriginID: 7, RootIDs: []int64{7}, Nodes: []lineage.Node{
		{NodeData: lineage.NodeData{ID: 7, Genesis: "api", Class: "spot"}, Current: true},
	}}
}

// msg is message id said to session by author, minutes after t0, through the web UI.
func msg(id, session int64, author, content string, minutes int) roster.Message {
	return roster.Message{ID: id, SessionID: session, Author: author, Channel: roster.ChannelWebUI, Content: content,
		OccurredAt: t0.Add(time.Duration(minutes) * time.Minute), EntryPoint: "web_ui.follow_up"}
}

// many makes n messages said to session, one a minute from start, ids from firstID.
func many(n int, firstID, session int64, start int) []roster.Message {
	var out []roster.Message
	for i := range n {
		out = append(out, msg(firstID+int64(i), session, "tadasant", fmt.Sprintf("message %d", firstID+int64(i)), start+i))
	}
	return out
}

func gather(h *lineage.Hierarchy, msgs ...roster.Message) Record {
	return Gather(nil, h, msgs, users, "tadasant")
}
