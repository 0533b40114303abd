package session

import (
	"testing"
	"time"
)

func TestSlackTimeReadsSlackTimestamps(t *testing.T) {
	tests := []struct {
		ts   string
		want time.Time
	}{
		{"1712345699.123456", time.Unix(1712345699, 123456000).UTC()},
		{"1712345699.1", time.Unix(1712345699, 100000000).UTC()},
		{"1712345699", time.Unix(1712345699, 0).UTC()},
		{"", time.Time{}},
		{"abc.def", time.Time{}},
		{"-5.000001", time.Time{}},
		{"1712345699.12x", time.Time{}},
	}
	for _, tt := range tests {
		if got := SlackTime(tt.ts); !got.Equal(tt.want) {
			t.Errorf("SlackTime(%q) = %v, want %v", tt.ts, got, tt.want)
		}
	}
}

func TestSlackThreadNeedsAStringChannel(t *testing.T) {
	tests := []struct {
		name            string
		meta            map[string]any
		channel, thread string
	}{
		{"channel and thread", map[string]any{SlackChannelKey: " C1 ", SlackThreadKey: "171.2"}, "C1", "171.2"},
		{"whole channel", map[string]any{SlackChannelKey: "D1"}, "D1", ""},
		{"thread without a channel binds nothing", map[string]any{SlackThreadKey: "171.2"}, "", ""},
		{"a number is not a channel id", map[string]any{SlackChannelKey: 12.0}, "", ""},
		{"a numeric thread is ignored", map[string]any{SlackChannelKey: "C1", SlackThreadKey: 171.2}, "C1", ""},
	}
	for _, tt := range tests {
		if c, th := SlackThread(tt.meta); c != tt.channel || th != tt.thread {
			t.Errorf("%s: got (%q, %q), want (%q, %q)", tt.name, c, th, tt.channel, tt.thread)
		}
	}
}
