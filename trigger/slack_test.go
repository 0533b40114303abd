package trigger_test

import (
	"testing"

	"github.com/zimmerhq/zimmer/trigger"
)

func TestSlackConditionsMatchTheirChannelThreadEventTypeAndSenders(t *testing.T) {
	cond := func(cfg map[string]any) trigger.Condition {
		return trigger.Condition{Type: trigger.TypeSlack, Config: cfg}
	}
	top := trigger.SlackEvent{UserID: "U1", Channel: "C1", TS: "1.0"}
	reply := trigger.SlackEvent{UserID: "U1", Channel: "C1", TS: "2.0", ThreadTS: "1.0"}
	mention := trigger.SlackEvent{UserID: "U1", Channel: "C1", TS: "3.0", Mention: true}
	dm := trigger.SlackEvent{UserID: "U1", Channel: "D1", ChannelType: "im", TS: "4.0"}
	tests := []struct {
		name string
		cfg  map[string]any
		msg  trigger.SlackEvent
		want bool
	}{
		{"a new message in the channel", map[string]any{"channel_id": "C1"}, top, true},
		{"another channel", map[string]any{"channel_id": "C2"}, top, false},
		{"a reply is not a new message", map[string]any{"channel_id": "C1"}, reply, false},
		{"a reply in the watched thread", map[string]any{"channel_id": "C1", "event_type": "passive_listen_thread", "thread_ts": "1.0"}, reply, true},
		{"a reply in another thread", map[string]any{"channel_id": "C1", "event_type": "passive_listen_thread", "thread_ts": "9.0"}, reply, false},
		{"the channel listener hears replies", map[string]any{"channel_id": "C1", "event_type": "passive_listen_channel"}, reply, true},
		{"a mention", map[string]any{"channel_id": "C1", "event_type": "bot_mention"}, mention, true},
		{"a mention is not a new message", map[string]any{"channel_id": "C1"}, mention, false},
		{"a direct message", map[string]any{"event_type": "dm_message"}, dm, true},
		{"a channel post is not a DM", map[string]any{"event_type": "dm_message"}, top, false},
		{"an allowed sender", map[string]any{"channel_id": "C1", "allowed_user_ids": []any{"U1"}}, top, true},
		{"a sender off the allow-list", map[string]any{"channel_id": "C1", "allowed_user_ids": []any{"U2"}}, top, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := trigger.SlackMatches(cond(tt.cfg), tt.msg); got != tt.want {
				t.Fatalf("SlackMatches = %v; want %v", got, tt.want)
			}
		})
	}
}
