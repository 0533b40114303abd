// Package roster defines the named humans Zimmer knows (the users roster), the messages they
// are known to have authored, and the rules both obey. It is pure: storage lives in graph.
package roster

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// User is one named human: a hand-seeded roster row, not an account.
type User struct {
	Key          string
	DisplayName  string
	Email        string // lowercased; "" when none
	SlackUserIDs []string
	Notes        string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Seeds are the rows every deployment starts with; Slack ids are set per deployment.
var Seeds = []User{
	{Key: "tadasant", DisplayName: "Tadas", Email: "tadas@tadasant.com",
		Notes: "Owns and operates this Zimmer deployment, and is its admin: anything typed into the Zimmer web UI is his. When his instruction conflicts with an inference you drew, his instruction wins."},
	{Key: "juliehazz", DisplayName: "Julie", Email: "julie@tadasant.com",
		Notes: "The other named human in this deployment's circle of trust. Her messages are genuine human instruction, but she is not the admin: web UI actions are not attributed to her."},
}

var (
	keyFormat   = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)
	emailFormat = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
)

// Normalize trims and lowercases what the rules say to, and dedupes Slack ids.
func (u User) Normalize() User {
	u.Key = strings.TrimSpace(u.Key)
	u.DisplayName = strings.TrimSpace(u.DisplayName)
	u.Email = strings.ToLower(strings.TrimSpace(u.Email))
	u.Notes = strings.TrimSpace(u.Notes)
	var ids []string
	for _, id := range u.SlackUserIDs {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	u.SlackUserIDs = ids
	if u.SlackUserIDs == nil {
		u.SlackUserIDs = []string{}
	}
	return u
}

// Validate checks one normalized row on its own; uniqueness against the rest of the roster
// (email, Slack ids) is checked by the store under its lock.
func (u User) Validate() []string {
	var bad []string
	if !keyFormat.MatchString(u.Key) {
		bad = append(bad, "Key must be lowercase letters, digits, dashes, dots or underscores")
	}
	if u.DisplayName == "" {
		bad = append(bad, "Display name can't be blank")
	}
	if u.Email != "" && !emailFormat.MatchString(u.Email) {
		bad = append(bad, "Email is not an email address")
	}
	return bad
}

// Channels a human message can arrive through.
const (
	ChannelWebUI = "web_ui"
	ChannelSlack = "slack"
)

// MaxContent bounds a recorded message, as the prompt column does.
const MaxContent = 500_000

// Message is words a named human said to one session: immutable evidence once recorded.
type Message struct {
	ID             int64
	SessionID      int64
	Author         string // a roster key, stored verbatim
	Channel        string
	Content        string
	OccurredAt     time.Time
	EntryPoint     string // e.g. web_ui.follow_up, slack.dm
	SlackUserID    string
	SlackChannel   string
	SlackPermalink string
}

// ClipContent strips the body and cuts one longer than MaxContent, marking the cut; blank
// content is reported so the caller records nothing.
func ClipContent(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	if r := []rune(s); len(r) > MaxContent {
		s = string(r[:MaxContent-20]) + "\n…[truncated]"
	}
	return s, true
}

// ChannelLabel is how a channel is named next to a message.
func (m Message) ChannelLabel() string {
	switch {
	case m.Channel == ChannelWebUI:
		return "Zimmer web UI"
	case m.Channel == ChannelSlack && m.SlackChannel != "":
		return fmt.Sprintf("Slack (%s)", m.SlackChannel)
	case m.Channel == ChannelSlack:
		return "Slack"
	}
	return m.Channel
}

// DefaultAdmin is the admin key when ZIMMER_ADMIN_USER is unset or blank.
const DefaultAdmin = "tadasant"

// AdminKey normalises a configured admin key: trimmed, and the default when blank.
func AdminKey(raw string) string {
	if k := strings.TrimSpace(raw); k != "" {
		return k
	}
	return DefaultAdmin
}

// ForKey finds the roster row with exactly this key; a blank key names nobody.
func ForKey(users []User, key string) (User, bool) {
	if key == "" {
		return User{}, false
	}
	for _, u := range users {
		if u.Key == key {
			return u, true
		}
	}
	return User{}, false
}

// Admin is the human the web UI speaks for: the row whose key is the admin key. None when the
// key names no row (a typo, a deleted row), so web-UI capture records nothing rather than guess.
func Admin(users []User, adminKey string) (User, bool) {
	return ForKey(users, AdminKey(adminKey))
}

// AnySlackMapping reports whether some row maps a Slack user id, which is what makes Slack
// capture configured at all.
func AnySlackMapping(users []User) bool {
	for _, u := range users {
		if len(u.SlackUserIDs) > 0 {
			return true
		}
	}
	return false
}
