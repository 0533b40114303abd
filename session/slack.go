package session

import (
	"strconv"
	"strings"
	"time"
)

// Keys of custom_metadata that bind a session to a Slack conversation: messages posted in that
// channel and thread are delivered to the session as follow-ups. Whatever creates the session
// from Slack writes them; slack_thread_ts absent binds the whole channel (a DM, say).
const (
	SlackChannelKey = "slack_channel_id"
	SlackThreadKey  = "slack_thread_ts"
)

// SlackThread reads the Slack conversation a session is bound to; channel is "" when none.
// Only strings count: Slack ids and timestamps are strings, and a number here would already
// have lost the timestamp's precision.
func SlackThread(customMetadata map[string]any) (channel, thread string) {
	channel, _ = customMetadata[SlackChannelKey].(string)
	if channel = strings.TrimSpace(channel); channel == "" {
		return "", ""
	}
	thread, _ = customMetadata[SlackThreadKey].(string)
	return channel, strings.TrimSpace(thread)
}

// SlackTime reads a Slack timestamp ("1712345678.123456", seconds and microseconds since the
// epoch) as a time; the zero time when it is not one.
func SlackTime(ts string) time.Time {
	secs, frac, _ := strings.Cut(strings.TrimSpace(ts), ".")
	sec, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || sec <= 0 {
		return time.Time{}
	}
	var micros int64
	if frac != "" {
		frac = (frac + "000000")[:6]
		if micros, err = strconv.ParseInt(frac, 10, 64); err != nil {
			return time.Time{}
		}
	}
	return time.Unix(sec, micros*1000).UTC()
}
