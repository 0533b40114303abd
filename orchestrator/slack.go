package orchestrator

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
)

// SlackMessage is one human-visible message posted in Slack, as the signed Events API
// delivered it.
type SlackMessage struct {
	UserID      string // who posted it (Slack user id)
	Channel     string // channel id
	ChannelType string // "im" for a direct message
	TS          string // the message's own timestamp
	ThreadTS    string // the thread it was posted in; "" for a top-level message
	Text        string
	Permalink   string // when known
}

// SlackOutcome says what happened to a Slack message.
type SlackOutcome string

// Outcomes of DeliverSlackMessage.
const (
	SlackNoSession SlackOutcome = "no_session" // no session listens on that channel and thread
	SlackDelivered SlackOutcome = "delivered"  // delivered; recorded only if the sender is a mapped human
)

// DeliverSlackMessage follows up the session bound to the message's channel and thread with its
// text. The sender is attributed only through the roster's Slack ids: a mapped human's words
// are recorded (slack.dm for a direct message, else slack.channel_message); anyone else's are
// delivered and recorded as nobody's. A Slack trigger's allowed users are not attribution.
func (s *Service) DeliverSlackMessage(ctx context.Context, m SlackMessage) (SlackOutcome, *FollowUpResult, error) {
	thread := m.ThreadTS
	if thread == "" {
		thread = m.TS // a top-level message starts its own thread
	}
	sess, err := s.store.SessionForSlackThread(ctx, m.Channel, thread)
	if errors.Is(err, graph.ErrNotFound) {
		return SlackNoSession, nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	w := words{channel: roster.ChannelSlack, content: m.Text, author: s.slackAuthor(ctx, m.UserID),
		entry: always(slackEntry(m.ChannelType)),
		slack: SlackOrigin{UserID: m.UserID, Channel: m.Channel, Permalink: m.Permalink, At: session.SlackTime(m.TS)}}
	p := FollowUpParams{Prompt: m.Text, captured: s.capturing(w)}
	res, err := s.FollowUp(ctx, sess.ID, p)
	if err != nil {
		return "", nil, err
	}
	return SlackDelivered, &res, nil
}

func slackEntry(channelType string) string {
	if channelType == "im" {
		return EntrySlackDM
	}
	return EntrySlackChannel
}

// slackAuthor resolves a Slack user id to the roster key that maps it; "" (nobody) when no row
// does, the id is blank, or the roster cannot be read.
func (s *Service) slackAuthor(ctx context.Context, slackUserID string) string {
	id := strings.TrimSpace(slackUserID)
	if id == "" {
		return ""
	}
	users, err := s.store.Users(ctx)
	if err != nil {
		s.log.Warn("Slack message will not be recorded: the roster could not be read", "err", err)
		return ""
	}
	for _, u := range users {
		if slices.Contains(u.SlackUserIDs, id) {
			return u.Key
		}
	}
	return ""
}
