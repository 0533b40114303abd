package orchestrator

import (
	"cmp"
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
)

// SlackMessage is one human-visible message posted in Slack, as the signed Events API
// delivered it.
type SlackMessage struct {
	EventID     string // Slack's id of the event, the same on every retry; "" is never deduplicated
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
	SlackDuplicate SlackOutcome = "duplicate"  // this event was delivered already (a Slack retry, or a replay)
	SlackRefused   SlackOutcome = "refused"    // mapped-only deployment, and the sender maps to no roster row
)

// SlackEventTTL is how long a delivered event's id is remembered: far past Slack's retries
// (three, within minutes) and the five minutes a signed request is accepted at all.
const SlackEventTTL = 24 * time.Hour

// releaseBudget bounds giving a claim back after a failed delivery, on a context of its own:
// the request's may be what ran out.
const releaseBudget = 5 * time.Second

// DeliverSlackMessage follows up the session bound to the message's channel and thread with its
// text. The sender is attributed only through the roster's Slack ids: a mapped human's words
// are recorded (slack.dm for a direct message, else slack.channel_message); anyone else's are
// delivered and recorded as nobody's — or, on a mapped-only deployment, refused and logged. A
// Slack trigger's allowed users are not attribution.
//
// An event is delivered once: its id is claimed in the graph before delivery (Slack retries
// and replays carry the same id), and given back only when the delivery failed in a way a
// retry could fix.
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
	author := s.slackAuthor(ctx, m.UserID)
	if author == "" && s.slackMappedOnly {
		s.log.Warn("Slack message refused: only humans on the roster may reach a session, and no roster row maps the sender",
			"slack_user_id", m.UserID, "channel", m.Channel, "event_id", m.EventID, "session_id", sess.ID)
		return SlackRefused, nil, nil
	}
	if m.EventID == "" {
		return s.followUpFromSlack(ctx, sess.ID, m, author)
	}
	claim, fresh, err := s.store.ClaimSlackEvent(ctx, m.EventID, SlackEventTTL)
	if err != nil {
		return "", nil, err
	}
	if !fresh {
		return SlackDuplicate, nil, nil
	}
	out, res, err := s.followUpFromSlack(ctx, sess.ID, m, author)
	var ve *ValidationError
	if err != nil && !errors.As(err, &ve) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseBudget)
		defer cancel()
		if rerr := s.store.ReleaseSlackEvent(rctx, claim); rerr != nil {
			s.log.Warn("Slack event stays marked after a failed delivery; Slack's retry of it will be dropped", "event_id", m.EventID, "err", rerr)
		}
	}
	return out, res, err
}

// followUpFromSlack delivers m to the session and records it when author names a human.
func (s *Service) followUpFromSlack(ctx context.Context, sessionID int64, m SlackMessage, author string) (SlackOutcome, *FollowUpResult, error) {
	w := words{channel: roster.ChannelSlack, content: m.Text, author: author,
		entry: always(slackEntry(m.ChannelType)),
		slack: SlackOrigin{UserID: m.UserID, Channel: m.Channel, Permalink: cmp.Or(m.Permalink, s.slackPermalink(m)), At: session.SlackTime(m.TS)}}
	res, err := s.FollowUp(ctx, sessionID, FollowUpParams{Prompt: m.Text, captured: s.capturing(w)})
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

// slackPermalink is the message's address in the workspace, as Slack spells its permalinks
// (/archives/<channel>/p<ts without its dot>, a reply naming its thread), or "" when the
// workspace is not configured or the ids are not Slack's.
func (s *Service) slackPermalink(m SlackMessage) string {
	if s.slackWorkspace == "" || !slackID.MatchString(m.Channel) || !slackTS.MatchString(m.TS) {
		return ""
	}
	link := s.slackWorkspace + "/archives/" + m.Channel + "/p" + strings.Replace(m.TS, ".", "", 1)
	if m.ThreadTS != "" && m.ThreadTS != m.TS && slackTS.MatchString(m.ThreadTS) {
		link += "?thread_ts=" + m.ThreadTS + "&cid=" + m.Channel
	}
	return link
}

var (
	slackID = regexp.MustCompile(`^[A-Za-z0-9_]{1,80}$`)
	slackTS = regexp.MustCompile(`^[0-9]{1,12}\.[0-9]{1,9}$`)
)
