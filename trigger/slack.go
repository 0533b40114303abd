package trigger

import "slices"

// SlackEvent is a Slack message as a slack condition judges it.
type SlackEvent struct {
	UserID, Channel, ChannelType, TS, ThreadTS string
	Mention                                    bool // an app_mention: the bot was addressed
}

// SlackMatches says whether a slack condition fires for the message: its allow-list admits the
// sender, its thread filter matches, and its event_type describes the message —
// new_message (a top-level post in the channel), bot_mention, dm_message, passive_listen_thread
// (a reply in its thread), passive_listen_channel / passive_listen (anything in the channel).
func SlackMatches(c Condition, m SlackEvent) bool {
	if c.Type != TypeSlack {
		return false
	}
	if allowed := c.Strings("allowed_user_ids"); len(allowed) > 0 && !slices.Contains(allowed, m.UserID) {
		return false
	}
	if th := c.Str("thread_ts"); th != "" && m.ThreadTS != th {
		return false
	}
	channel := c.Str("channel_id")
	inChannel := channel == "" || channel == m.Channel
	switch c.Str("event_type") {
	case "", "new_message":
		return !m.Mention && channel == m.Channel && (m.ThreadTS == "" || m.ThreadTS == m.TS)
	case "bot_mention":
		return m.Mention && inChannel
	case "dm_message":
		return !m.Mention && m.ChannelType == "im" && inChannel
	case "passive_listen_thread":
		return !m.Mention && channel == m.Channel && m.ThreadTS != "" && m.ThreadTS != m.TS
	case "passive_listen_channel", "passive_listen":
		return !m.Mention && channel == m.Channel
	}
	return false
}
