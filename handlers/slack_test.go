package handlers_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers/slack"
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

// pending is how many messages wait in a session's queue.
func (h *humans) pending(t *testing.T, id int64) int {
	t.Helper()
	n, err := h.store.CountPendingMessages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Slack sends an event again when its first attempt failed or timed out (X-Slack-Retry-Num), and
// a captured event can be posted again: either way the session gets one follow-up and the
// record one entry.
func TestASlackEventIsDeliveredOnceHoweverOftenItArrives(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	tests := []struct {
		name  string
		again []string // headers of the second post
	}{
		{"Slack's retry after an error", []string{"X-Slack-Retry-Num", "1", "X-Slack-Retry-Reason", "http_error"}},
		{"Slack's retry after a timeout", []string{"X-Slack-Retry-Num", "2", "X-Slack-Retry-Reason", "http_timeout"}},
		{"a replay, freshly signed, with no retry header", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slackUser, channel := slackIDs(t)
			h.user(t, slackUser)
			s := h.bound(t, channel, "")
			event := slackMessage(slackUser, channel, "im", "1712345710.000001", "", "deploy it")
			for i, hdr := range [][]string{nil, tt.again} {
				if p := h.slackEvent(t, event, time.Now().Unix()+int64(i), slackSecret, hdr...); p.status != http.StatusOK {
					t.Fatalf("post %d: want 200, got %d %s", i+1, p.status, p.body)
				}
			}
			if got := h.get(t, s.ID); got.Prompt == nil || *got.Prompt != "deploy it" {
				t.Fatalf("the first post delivers: %+v", got)
			}
			if n := h.pending(t, s.ID); n != 0 {
				t.Fatalf("the second post queued %d more follow-ups", n)
			}
			if msgs := h.messages(t, s.ID); len(msgs) != 1 {
				t.Fatalf("recorded %q, want one entry", describe(msgs))
			}
		})
	}
}

func TestSlackMappedOnlyRefusesSendersTheRosterDoesNotMap(t *testing.T) {
	var logs bytes.Buffer
	h := setupHumans(t, humansOpts{slackMappedOnly: true, log: slog.New(slog.NewTextHandler(&logs, nil))})
	stranger, channel := slackIDs(t)
	mapped := strings.ReplaceAll(stranger, "U", "M")
	human := h.user(t, mapped)
	s := h.bound(t, channel, "")

	p := h.slackEvent(t, slackMessage(stranger, channel, "channel", "1712345720.000001", "", "the secret plan"), 0, slackSecret)
	if p.status != http.StatusOK {
		t.Fatalf("Slack gets 200 for a refused message (a retry would not change it): %d %s", p.status, p.body)
	}
	if got := h.get(t, s.ID); got.Prompt != nil || got.Status != session.StatusWaiting || h.pending(t, s.ID) != 0 {
		t.Fatalf("nothing may reach the session: %+v", got)
	}
	if !strings.Contains(logs.String(), "Slack message refused") || !strings.Contains(logs.String(), "slack_user_id="+stranger) {
		t.Fatalf("the refusal is logged with the sender's Slack id:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "the secret plan") {
		t.Fatalf("the log carries the message text:\n%s", logs.String())
	}

	p = h.slackEvent(t, slackMessage(mapped, channel, "channel", "1712345721.000001", "", "ship it"), 0, slackSecret)
	if got := h.get(t, s.ID); p.status != http.StatusOK || got.Prompt == nil || *got.Prompt != "ship it" {
		t.Fatalf("a mapped human still reaches the session: %d %+v", p.status, got)
	}
	if got := describe(h.messages(t, s.ID)); !slices.Equal(got, []string{human.Key + " slack slack.channel_message «ship it»"}) {
		t.Fatalf("recorded %q", got)
	}
}

// An event body is bounded in size and in time: an oversized one is 413, one that trickles in
// is cut off with 408, and neither reaches the session.
func TestSlackRefusesOversizedAndSlowBodies(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	slackUser, channel := slackIDs(t)
	h.user(t, slackUser)
	s := h.bound(t, channel, "")

	big := slackMessage(slackUser, channel, "im", "1712345730.000001", "", strings.Repeat("x", 1<<20))
	if p := h.slackEvent(t, big, 0, slackSecret); p.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized: want 413, got %d %s", p.status, p.body)
	}

	body, _ := json.Marshal(slackMessage(slackUser, channel, "im", "1712345731.000001", "", "slowly"))
	ts := time.Now().Unix()
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: zimmer\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"+
		"X-Slack-Request-Timestamp: %d\r\nX-Slack-Signature: %s\r\n\r\n", slack.Path, len(body), ts, slack.Sign(slackSecret, ts, body))
	_, _ = conn.Write(body[:len(body)/2]) // and the rest never comes
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a trickled body after %s: %v", time.Since(start), err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || time.Since(start) > 5*time.Second {
		t.Fatalf("slow body: want 408 within seconds, got %d after %s", resp.StatusCode, time.Since(start))
	}
	if got := h.get(t, s.ID); got.Prompt != nil || len(h.messages(t, s.ID)) != 0 {
		t.Fatalf("a refused body reached the session: %+v", got)
	}
}

func TestARecordedSlackMessageLinksBackToSlackWhenTheWorkspaceIsKnown(t *testing.T) {
	h := setupHumans(t, humansOpts{slackWorkspace: "https://acme.slack.com"})
	slackUser, channel := slackIDs(t)
	h.user(t, slackUser)
	thread := "1712345678.000100"
	s := h.bound(t, channel, thread)
	p := h.slackEvent(t, slackMessage(slackUser, channel, "channel", "1712345699.123456", thread, "ship it"), 0, slackSecret)
	if p.status != http.StatusOK {
		t.Fatalf("%d %s", p.status, p.body)
	}
	msgs := h.messages(t, s.ID)
	want := "https://acme.slack.com/archives/" + channel + "/p1712345699123456?thread_ts=1712345678.000100&cid=" + channel
	if len(msgs) != 1 || msgs[0].SlackPermalink != want {
		t.Fatalf("want one record linking to %s, got %+v", want, msgs)
	}
	page := h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d", s.ID), nil)
	if link := `<a href="` + strings.ReplaceAll(want, "&", "&amp;") + `">view in Slack</a>`; !strings.Contains(page.body, link) {
		t.Errorf("the entry should link to Slack: %s", link)
	}
}
