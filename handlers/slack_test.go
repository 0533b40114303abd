package handlers_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/session"
)

// bound makes a session listening on a Slack channel (and thread, when given).
func (h *humans) bound(t *testing.T, channel, thread string) *session.Session {
	t.Helper()
	return h.session(t, func(d *session.Session) {
		d.Genesis = session.GenesisSlack
		d.CustomMetadata = map[string]any{session.SlackChannelKey: channel}
		if thread != "" {
			d.CustomMetadata[session.SlackThreadKey] = thread
		}
	})
}

func slackIDs(t *testing.T) (user, channel string) {
	u := strings.ToUpper(strings.ReplaceAll(graphtest.Unique(t, "U"), "-", ""))
	c := strings.ToUpper(strings.ReplaceAll(graphtest.Unique(t, "C"), "-", ""))
	return u, c
}

func TestSlackMessagesFromMappedHumansAreRecorded(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	tests := []struct {
		name, channelType, entry string
		threaded                 bool
	}{
		{"channel message in a bound thread", "channel", "slack.channel_message", true},
		{"direct message to a bound DM", "im", "slack.dm", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slackUser, channel := slackIDs(t)
			human := h.user(t, slackUser)
			thread := ""
			if tt.threaded {
				thread = "1712345678.000100"
			}
			s := h.bound(t, channel, thread)
			ts := "1712345699.123456"
			p := h.slackEvent(t, slackMessage(slackUser, channel, tt.channelType, ts, thread, "  please ship it  "), 0, slackSecret)
			if p.status != http.StatusOK {
				t.Fatalf("want 200, got %d %s", p.status, p.body)
			}
			if got := h.get(t, s.ID); got.Prompt == nil || *got.Prompt != "please ship it" {
				t.Fatalf("the message must be delivered as a follow-up: %+v", got)
			}
			msgs := h.messages(t, s.ID)
			want := []string{human.Key + " slack " + tt.entry + " «please ship it»"}
			if got := describe(msgs); !slices.Equal(got, want) {
				t.Fatalf("got %q, want %q", got, want)
			}
			m := msgs[0]
			if m.SlackUserID != slackUser || m.SlackChannel != channel || !m.OccurredAt.Equal(time.Unix(1712345699, 123456000)) {
				t.Fatalf("provenance: %+v", m)
			}
		})
	}
}

func TestSlackMessagesFromUnmappedUsersAreDeliveredButNotRecorded(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	stranger, channel := slackIDs(t)
	h.user(t, "UOTHER"+strings.ToUpper(strings.ReplaceAll(graphtest.Unique(t, "x"), "-", ""))) // someone else is mapped
	s := h.bound(t, channel, "")
	p := h.slackEvent(t, slackMessage(stranger, channel, "channel", "1712345700.000001", "", "do the thing"), 0, slackSecret)
	if p.status != http.StatusOK {
		t.Fatalf("want 200, got %d %s", p.status, p.body)
	}
	if got := h.get(t, s.ID); got.Prompt == nil || *got.Prompt != "do the thing" {
		t.Fatalf("delivery does not depend on attribution: %+v", got)
	}
	if msgs := h.messages(t, s.ID); len(msgs) != 0 {
		t.Fatalf("an unmapped Slack user resolved to %q", describe(msgs))
	}
}

func TestSlackIgnoresBotsEditsAndUnboundThreads(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	slackUser, channel := slackIDs(t)
	h.user(t, slackUser)
	thread := "1712345678.000200"
	s := h.bound(t, channel, thread)
	edit := slackMessage(slackUser, channel, "channel", "1712345701.000001", thread, "edited words")
	edit["event"].(map[string]any)["subtype"] = "message_changed"
	bot := slackMessage(slackUser, channel, "channel", "1712345702.000001", thread, "bot words")
	bot["event"].(map[string]any)["bot_id"] = "B123"
	other := slackMessage(slackUser, channel, "channel", "1712345703.000001", "1712340000.000001", "another thread")
	elsewhere := slackMessage(slackUser, channel+"X", "channel", "1712345704.000001", thread, "another channel")
	for _, body := range []map[string]any{edit, bot, other, elsewhere} {
		if p := h.slackEvent(t, body, 0, slackSecret); p.status != http.StatusOK {
			t.Fatalf("Slack must get 200 for what Zimmer ignores, got %d %s", p.status, p.body)
		}
	}
	if got := h.get(t, s.ID); got.Status != session.StatusWaiting || got.Prompt != nil {
		t.Fatalf("nothing may reach the session: %+v", got)
	}
	if msgs := h.messages(t, s.ID); len(msgs) != 0 {
		t.Fatalf("recorded %q", describe(msgs))
	}
}

func TestSlackSignatureIsVerified(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	slackUser, channel := slackIDs(t)
	h.user(t, slackUser)
	s := h.bound(t, channel, "")
	body := slackMessage(slackUser, channel, "im", "1712345705.000001", "", "forged")
	tests := []struct {
		name   string
		ts     int64
		secret string
	}{
		{"wrong signature", 0, "not-the-secret"},
		{"timestamp older than 5 minutes", time.Now().Add(-6 * time.Minute).Unix(), slackSecret},
		{"timestamp far in the future", time.Now().Add(6 * time.Minute).Unix(), slackSecret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p := h.slackEvent(t, body, tt.ts, tt.secret); p.status != http.StatusUnauthorized {
				t.Fatalf("want 401, got %d %s", p.status, p.body)
			}
		})
	}
	if got := h.get(t, s.ID); got.Prompt != nil {
		t.Fatalf("a refused request delivered %q", *got.Prompt)
	}
	if msgs := h.messages(t, s.ID); len(msgs) != 0 {
		t.Fatalf("a refused request recorded %q", describe(msgs))
	}
}

func TestSlackURLVerificationEchoesTheChallenge(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	p := h.slackEvent(t, map[string]any{"type": "url_verification", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}, 0, slackSecret)
	if p.status != http.StatusOK || !strings.Contains(p.body, `"challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"`) {
		t.Fatalf("got %d %s", p.status, p.body)
	}
}

func TestSlackIs503UntilItHasASigningSecret(t *testing.T) {
	h := setupHumans(t, humansOpts{noSlack: true})
	p := h.slackEvent(t, map[string]any{"type": "url_verification", "challenge": "x"}, 0, "")
	if p.status != http.StatusServiceUnavailable || !strings.Contains(p.body, "Slack is not configured") {
		t.Fatalf("got %d %s", p.status, p.body)
	}
}
