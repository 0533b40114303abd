package orchestrator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/roster"
)

// captureHuman is observational: whatever it is given, it never fails the delivery it describes.
// These cases cannot be reached through a transport (the transports validate first), so they
// are checked here, on the operation itself.
func TestCaptureHumanIsBestEffort(t *testing.T) {
	store := graphtest.Store(t)
	s := New(Deps{Store: store, Log: graphtest.Logger()})
	web := func(author, content string) words {
		return words{author: author, channel: roster.ChannelWebUI, content: content, entry: always(EntryWebFollowUp)}
	}
	long := strings.Repeat("x", roster.MaxContent+1)
	tests := []struct {
		name string
		w    words
		want string // the recorded content; "" for nothing
	}{
		{"blank content records nothing", web(roster.DefaultAdmin, " \n\t "), ""},
		{"no author records nothing", web("", "hello"), ""},
		{"an author off the roster is a swallowed failure", web("ghost-"+strings.ToLower(graphtest.Unique(t, "k")), "hello"), ""},
		{"content is stripped", web(roster.DefaultAdmin, "  hello  "), "hello"},
		{"content over the limit is clipped and marked", web(roster.DefaultAdmin, long), strings.Repeat("x", roster.MaxContent-20) + "\n…[truncated]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sess := graphtest.Session(t, store, nil)
			s.captureHuman(context.Background(), sess.ID, tt.w, false)
			msgs, err := store.HumanMessages(context.Background(), []int64{sess.ID})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && len(msgs) != 0:
				t.Fatalf("recorded %+v", msgs)
			case tt.want != "" && (len(msgs) != 1 || msgs[0].Content != tt.want):
				t.Fatalf("want one record of %d characters, got %d records", len([]rune(tt.want)), len(msgs))
			}
		})
	}
}

func TestCaptureHumanUsesSlacksTimestampWhenThereIsOne(t *testing.T) {
	store := graphtest.Store(t)
	s := New(Deps{Store: store, Log: graphtest.Logger()})
	sess := graphtest.Session(t, store, nil)
	at := time.Unix(1712345699, 5000).UTC()
	s.captureHuman(context.Background(), sess.ID, words{author: roster.DefaultAdmin, channel: roster.ChannelSlack, content: "hi",
		entry: always(EntrySlackDM), slack: SlackOrigin{UserID: "U1", Channel: "D1", Permalink: "https://x.slack.com/p1", At: at}}, false)
	msgs, err := store.HumanMessages(context.Background(), []int64{sess.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || !msgs[0].OccurredAt.Equal(at) || msgs[0].SlackPermalink != "https://x.slack.com/p1" || msgs[0].EntryPoint != EntrySlackDM {
		t.Fatalf("got %+v", msgs)
	}
}
