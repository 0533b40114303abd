package provenance

import (
	"slices"
	"testing"

	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/roster"
)

func TestGatherMarksEachEntryHereOrElsewhere(t *testing.T) {
	rec := gather(tree(),
		msg(3, 102, "juliehazz", "second", 2),
		msg(1, 101, "tadasant", "first", 1),
		msg(2, 103, "ghost", "third", 3),
	)
	tests := []struct {
		name                       string
		got                        Entry
		origin                     Origin
		authoredIn, display, notes string
	}{
		{"a message to a sibling's router is elsewhere, labelled with root and title", rec.Entries[0], Elsewhere,
			"session #101 — zimmer-router · Route it", "Tadas", "Tadas's note."},
		{"a message to this session is here", rec.Entries[1], Here, "this session (#102)", "Julie", "Julie's note."},
		{"an author no row names still renders, under the raw key and without notes", rec.Entries[2], Elsewhere,
			"session #103 — zimmer · Review it", "ghost", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got.Origin != tt.origin || tt.got.AuthoredIn() != tt.authoredIn || tt.got.DisplayName != tt.display || tt.got.Notes != tt.notes {
				t.Fatalf("got %s %q %q %q", tt.got.Origin, tt.got.AuthoredIn(), tt.got.DisplayName, tt.got.Notes)
			}
		})
	}
	if rec.HereCount() != 1 || rec.ElsewhereCount() != 2 || !rec.HumanMessageHere() {
		t.Fatalf("counts %d/%d here=%v", rec.HereCount(), rec.ElsewhereCount(), rec.HumanMessageHere())
	}
}

func TestGatherIsChronologicalByTimeThenID(t *testing.T) {
	rec := gather(tree(), msg(9, 101, "tadasant", "b", 5), msg(4, 101, "tadasant", "a", 5), msg(1, 101, "tadasant", "c", 6))
	var ids []int64
	for _, e := range rec.Entries {
		ids = append(ids, e.ID)
	}
	if !slices.Equal(ids, []int64{4, 9, 1}) {
		t.Fatalf("order %v", ids)
	}
}

func TestElsewhereEntriesNeverAnswerHumanMessageHere(t *testing.T) {
	rec := gather(tree(), many(3, 1, 101, 0)...)
	if rec.HumanMessageHere() || rec.HereCount() != 0 || rec.ElsewhereCount() != 3 {
		t.Fatalf("only elsewhere entries: here=%v %d/%d", rec.HumanMessageHere(), rec.HereCount(), rec.ElsewhereCount())
	}
}

func TestSelections(t *testing.T) {
	ids := func(es []Entry) []int64 {
		var out []int64
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	span := func(from, to int64) []int64 {
		var out []int64
		for i := from; i <= to; i++ {
			out = append(out, i)
		}
		return out
	}
	// Two old here entries, then 30 chatty elsewhere ones.
	chatty := gather(tree(), append(many(2, 1, 102, 0), many(30, 3, 101, 10)...)...)
	tests := []struct {
		name string
		got  []Entry
		want []int64
	}{
		{"uncut keeps old here entries that 25 elsewhere ones would push out", chatty.UncutSelection(), append([]int64{1, 2}, span(8, 32)...)},
		{"summary is the newest five of each origin", chatty.SummarySelection(), append([]int64{1, 2}, span(28, 32)...)},
		{"the full prompt block is the newest 25 overall", chatty.Newest(25), span(8, 32)},
		{"a small record is listed whole", gather(tree(), many(3, 1, 102, 0)...).UncutSelection(), []int64{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(tt.got); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v\nwant %v", got, tt.want)
			}
		})
	}
	t.Run("the summary is a subset of the uncut selection", func(t *testing.T) {
		uncut := ids(chatty.UncutSelection())
		for _, id := range ids(chatty.SummarySelection()) {
			if !slices.Contains(uncut, id) {
				t.Fatalf("summary lists %d, which get_session_provenance would not", id)
			}
		}
	})
}

func TestCaptureGaps(t *testing.T) {
	withGenesis := func(genesis ...string) *lineage.Hierarchy {
		h := &lineage.Hierarchy{SessionID: 1}
		for i, g := range genesis {
			h.Nodes = append(h.Nodes, lineage.Node{NodeData: lineage.NodeData{ID: int64(i + 1), Genesis: g}})
		}
		return h
	}
	slackMapped := []roster.User{{Key: "tadasant"}, {Key: "juliehazz", SlackUserIDs: []string{"U1"}}}
	tests := []struct {
		name     string
		h        *lineage.Hierarchy
		users    []roster.User
		admin    string
		channels []string
		ids      [][]int64
	}{
		{"web UI work with a resolving admin is covered", withGenesis("web_ui"), users, "tadasant", nil, nil},
		{"web UI work with an admin naming no row is a gap", withGenesis("web_ui", "api", "web_ui"), users, "tadasnat",
			[]string{"web_ui"}, [][]int64{{1, 3}}},
		{"Slack work with no mapped Slack id is a gap", withGenesis("slack"), users, "tadasant", []string{"slack"}, [][]int64{{1}}},
		{"one mapped human closes the Slack gap", withGenesis("slack"), slackMapped, "tadasant", nil, nil},
		{"channels without a human boundary are never a gap",
			withGenesis("github_issue", "github_label", "schedule", "ao_event", "system_event", "api", "unknown", ""), nil, "nobody", nil, nil},
		{"gaps are ordered by channel, slack first", withGenesis("web_ui", "slack"), nil, "tadasant",
			[]string{"slack", "web_ui"}, [][]int64{{2}, {1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gaps := CaptureGaps(tt.h, tt.users, tt.admin)
			var channels []string
			var ids [][]int64
			for _, g := range gaps {
				channels, ids = append(channels, g.Channel), append(ids, g.SessionIDs)
			}
			if !slices.Equal(channels, tt.channels) || len(ids) != len(tt.ids) {
				t.Fatalf("gaps %v %v", channels, ids)
			}
			for i := range ids {
				if !slices.Equal(ids[i], tt.ids[i]) {
					t.Fatalf("gap %s ids %v, want %v", channels[i], ids[i], tt.ids[i])
				}
			}
		})
	}
}
