package roster_test

import (
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/roster"
)

// chain seals n records of one session in order.
func chain(n int) []roster.Sealed {
	var out []roster.Sealed
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		m := roster.Message{ID: int64(10 + i), SessionID: 7, Author: "tadasant", Channel: roster.ChannelWebUI,
			Content: strings.Repeat("go ", i+1), OccurredAt: at.Add(time.Duration(i) * time.Minute), EntryPoint: "web_ui.follow_up"}
		var prev *roster.Sealed
		if i > 0 {
			prev = &out[i-1]
		}
		out = append(out, roster.Seal(m, at.Add(time.Duration(i)*time.Minute+time.Second), prev))
	}
	return out
}

func TestVerifyChainNamesTheFirstBrokenLink(t *testing.T) {
	tests := []struct {
		name       string
		tamper     func([]roster.Sealed) []roster.Sealed
		wantRecord int64
		wantReason string
	}{
		{"an intact chain", func(c []roster.Sealed) []roster.Sealed { return c }, 0, ""},
		{"content changed", func(c []roster.Sealed) []roster.Sealed { c[1].Content = "forged"; return c }, 11, "content no longer matches"},
		{"author changed", func(c []roster.Sealed) []roster.Sealed { c[2].Author = "juliehazz"; return c }, 12, "content no longer matches"},
		{"time moved", func(c []roster.Sealed) []roster.Sealed { c[0].OccurredAt = c[0].OccurredAt.Add(time.Hour); return c }, 10, "content no longer matches"},
		{"content and its digest rewritten", func(c []roster.Sealed) []roster.Sealed {
			c[1].Content = "forged"
			c[1].ContentDigest = roster.ContentDigest(c[1].Message, c[1].RecordedAt)
			return c
		}, 11, "own digest does not chain"},
		{"a record taken out of the middle", func(c []roster.Sealed) []roster.Sealed { return append(c[:1], c[2:]...) }, 12, "a record before it is missing"},
		{"the last record taken off", func(c []roster.Sealed) []roster.Sealed { return c[:3] }, 12, "a record after this one is missing"},
		{"a digest with no record", func(c []roster.Sealed) []roster.Sealed { c[0].Digest = ""; return c }, 10, "carries no digest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			full := chain(4)
			head := full[3]
			b := roster.VerifyChain(7, tt.tamper(chain(4)), 4, head.Digest)
			if tt.wantReason == "" {
				if b != nil {
					t.Fatalf("intact chain reported broken: %v", b)
				}
				return
			}
			if b == nil || b.RecordID != tt.wantRecord || b.SessionID != 7 || !strings.Contains(b.Reason, tt.wantReason) {
				t.Fatalf("got %v, want record #%d: …%s…", b, tt.wantRecord, tt.wantReason)
			}
		})
	}
}
