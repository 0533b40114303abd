package trigger

import (
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/session"
)

// Describe is a condition in one line, for listings.
func Describe(c Condition) string {
	tz := c.Str("timezone")
	if tz == "" {
		tz = "UTC"
	}
	switch c.Type {
	case TypeSchedule:
		switch {
		case c.Str("scheduled_at") != "":
			return fmt.Sprintf("once at %s (%s)", c.Str("scheduled_at"), tz)
		case c.Str("cron") != "":
			return fmt.Sprintf("cron %s (%s)", c.Str("cron"), tz)
		}
		out := fmt.Sprintf("every %d %s", max(1, session.BagInt(c.Config, "interval")), c.Str("unit"))
		if d := c.Str("day_of_week"); d != "" {
			out += " on " + d
		}
		if t := c.Str("time"); t != "" {
			out += " at " + t
		}
		return out + " (" + tz + ")"
	case TypeAOEvent:
		if w := c.WatchedSessionID(); w != 0 {
			return fmt.Sprintf("%s of session #%d (once)", c.EventName(), w)
		}
		return c.EventName() + " of any autonomous session"
	case TypeSystemEvent:
		return "system event " + c.EventName()
	case TypeSlack:
		et := c.Str("event_type")
		if et == "" {
			et = "new_message"
		}
		out := fmt.Sprintf("Slack %s in %s", et, c.Str("channel_id"))
		if th := c.Str("thread_ts"); th != "" {
			out += " thread " + th
		}
		return out
	case TypeGitHubLabel:
		target := c.Str("target")
		if target == "" {
			target = "pull_request"
		}
		return fmt.Sprintf("label %s added to a %s in %s", strings.Join(c.Strings("labels"), " or "), target, strings.Join(c.Strings("repos"), ", "))
	case TypeGitHubIssue:
		out := "new issue in " + strings.Join(c.Strings("repos"), ", ")
		if ex := c.Strings("exclude_labels"); len(ex) > 0 {
			out += " (not labelled " + strings.Join(ex, ", ") + ")"
		}
		return out
	}
	return string(c.Type)
}
