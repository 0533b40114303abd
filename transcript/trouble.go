package transcript

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A turn that ends in trouble says so in the runtime's own words: Claude Code in its stream's
// result line (is_error) or an "API Error" assistant text, Codex in error / turn.failed events,
// Pi in an assistant message_end with stopReason "error" (Pi exits 0 even then). Diagnose reads
// those words, with the CLI's stderr, into a class the runner acts on.

// Trouble classes.
const (
	TroubleRateLimit  = "rate_limit" // a rate limit or a usage cap; ResetAt when the runtime said when it lifts
	TroubleOverloaded = "overloaded" // the API is overloaded or answered 5xx, or the connection broke
	TroubleAuth       = "auth"       // the CLI could not authenticate
	TroubleContext    = "context"    // the conversation no longer fits the model's context
)

// Trouble is what went wrong with a turn; Class is "" when nothing recognisable did.
type Trouble struct {
	Class   string
	ResetAt time.Time // a rate limit's announced end; zero when not said
	Text    string    // the runtime's message, for the timeline (bounded)
}

// errorText is the error a line reports, "" for any other line.
func errorText(m map[string]any) string {
	typ, _ := m["type"].(string)
	msg, _ := m["message"].(map[string]any)
	switch typ {
	case "result": // Claude Code
		if isErr, _ := m["is_error"].(bool); isErr || strings.HasPrefix(str(m["subtype"]), "error") {
			return firstNonEmpty(str(m["result"]), str(m["subtype"]))
		}
	case "assistant": // Claude Code prints an API failure as the assistant's text
		for _, c := range contentOf(msg) {
			if text := str(c["text"]); strings.HasPrefix(text, "API Error") || strings.Contains(text, "usage limit reached") {
				return text
			}
		}
	case "error": // Codex
		return str(m["message"])
	case "turn.failed": // Codex
		if e, ok := m["error"].(map[string]any); ok {
			return str(e["message"])
		}
	case "message_end": // Pi
		if msg != nil && str(msg["stopReason"]) == "error" {
			return firstNonEmpty(str(msg["errorMessage"]), "the model call failed")
		}
	}
	return ""
}

func contentOf(msg map[string]any) []map[string]any {
	list, _ := msg["content"].([]any)
	var out []map[string]any
	for _, c := range list {
		if m, ok := c.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// The words of each class, first match wins in this order: an authentication failure or a full
// context is not cured by waiting, whatever else the message mentions.
var troublePatterns = []struct {
	class string
	re    *regexp.Regexp
}{
	{TroubleAuth, regexp.MustCompile(`(?i)invalid api key|authentication_error|authentication failed|\b401\b|unauthori[sz]ed|please run /login|not logged in|invalid x-api-key|oauth token (has )?expired`)},
	{TroubleContext, regexp.MustCompile(`(?i)prompt is too long|context_length_exceeded|context window|exceeds? (the )?(model'?s? )?(maximum )?context|maximum context length|input is too long`)},
	{TroubleRateLimit, regexp.MustCompile(`(?i)usage limit|rate.?limit|\b429\b|limit reached|quota|too many requests`)},
	{TroubleOverloaded, regexp.MustCompile(`(?i)overloaded|\b5\d\d\b|internal server error|service unavailable|bad gateway|gateway time-?out|stream error|stream disconnected|connection (reset|refused|error)|econnreset|etimedout|network error|timed out`)},
}

// Diagnose classifies a turn's trouble from the error its transcript reported and the end of
// its stderr; now anchors relative reset times ("try again in 2 hours").
func Diagnose(reported, stderr string, now time.Time) Trouble {
	text := strings.TrimSpace(reported + "\n" + stderr)
	for _, p := range troublePatterns {
		if p.re.MatchString(text) {
			tr := Trouble{Class: p.class, Text: bounded(firstNonEmpty(strings.TrimSpace(reported), strings.TrimSpace(stderr)))}
			if p.class == TroubleRateLimit {
				tr.ResetAt = resetTime(text, now)
			}
			return tr
		}
	}
	return Trouble{}
}

func bounded(s string) string {
	const max = 500
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}

var (
	// Claude Code's "Claude AI usage limit reached|1767225600".
	resetUnix = regexp.MustCompile(`limit reached\|(\d{10})\b`)
	// Codex's "try again in 1 hour 2 minutes", "try again in 45s", "retry after 30 seconds".
	resetIn   = regexp.MustCompile(`(?i)(?:try again|retry) (?:in|after) ((?:\d+(?:\.\d+)? ?(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b[ ,]*(?:and )?)+)`)
	resetPart = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?) ?(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b`)
	// Claude Code's "5-hour limit reached ∙ resets 3pm (Europe/Berlin)" or "resets at 3:30 PM".
	resetClock = regexp.MustCompile(`(?i)resets?(?: at)? (\d{1,2})(?::(\d{2}))? ?(am|pm)(?: \(([A-Za-z_]+/[A-Za-z_/]+|UTC)\))?`)
)

// resetTime is when a rate limit lifts by the message's own account; zero when it does not say.
func resetTime(text string, now time.Time) time.Time {
	if m := resetUnix.FindStringSubmatch(text); m != nil {
		sec, _ := strconv.ParseInt(m[1], 10, 64)
		return time.Unix(sec, 0).UTC()
	}
	if m := resetIn.FindStringSubmatch(text); m != nil {
		var d time.Duration
		for _, part := range resetPart.FindAllStringSubmatch(m[1], -1) {
			n, _ := strconv.ParseFloat(part[1], 64)
			d += time.Duration(n * float64(unitOf(part[2])))
		}
		if d > 0 {
			return now.Add(d).UTC()
		}
	}
	if m := resetClock.FindStringSubmatch(text); m != nil {
		loc := time.UTC
		if m[4] != "" {
			if l, err := time.LoadLocation(m[4]); err == nil {
				loc = l
			}
		}
		hour, _ := strconv.Atoi(m[1])
		minute, _ := strconv.Atoi(m[2])
		if hour == 12 {
			hour = 0
		}
		if strings.EqualFold(m[3], "pm") {
			hour += 12
		}
		local := now.In(loc)
		at := time.Date(local.Year(), local.Month(), local.Day(), hour, minute, 0, 0, loc)
		if !at.After(now) {
			at = at.AddDate(0, 0, 1)
		}
		return at.UTC()
	}
	return time.Time{}
}

func unitOf(u string) time.Duration {
	switch strings.ToLower(u)[0] {
	case 'd':
		return 24 * time.Hour
	case 'h':
		return time.Hour
	case 'm':
		return time.Minute
	}
	return time.Second
}
