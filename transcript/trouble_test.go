package transcript

import (
	"testing"
	"time"
)

// Each runtime's real failure lines, read into the class the runner acts on.
func TestDiagnoseReadsEachRuntimesFailureShapes(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name, line, stderr string
		class              string
		reset              time.Time
	}{
		{name: "claude overloaded", class: TroubleOverloaded,
			line: `{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}`},
		{name: "claude 500 as assistant text", class: TroubleOverloaded,
			line: `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"API Error: 500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}"}]}}`},
		{name: "claude usage limit with its reset", class: TroubleRateLimit, reset: time.Unix(1796302800, 0).UTC(),
			line: `{"type":"result","subtype":"success","is_error":true,"result":"Claude AI usage limit reached|1796302800"}`},
		{name: "claude five-hour limit resets at a clock time", class: TroubleRateLimit, reset: time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC),
			line: `{"type":"result","is_error":true,"result":"5-hour limit reached ∙ resets 3pm"}`},
		{name: "claude clock time in a zone", class: TroubleRateLimit, reset: time.Date(2026, 12, 4, 8, 30, 0, 0, time.UTC),
			line: `{"type":"result","is_error":true,"result":"Weekly limit reached ∙ resets at 9:30 AM (Europe/Berlin)"}`},
		{name: "claude invalid key", class: TroubleAuth,
			line: `{"type":"result","is_error":true,"result":"Invalid API key · Please run /login"}`},
		{name: "claude prompt too long", class: TroubleContext,
			line: `{"type":"result","is_error":true,"result":"Prompt is too long"}`},
		{name: "codex usage limit", class: TroubleRateLimit, reset: now.Add(time.Hour + 2*time.Minute),
			line: `{"type":"error","message":"You've hit your usage limit. Upgrade to Pro or try again in 1 hour 2 minutes."}`},
		{name: "codex 503", class: TroubleOverloaded,
			line: `{"type":"turn.failed","error":{"message":"unexpected status 503 Service Unavailable: upstream connect error"}}`},
		{name: "codex unauthorized", class: TroubleAuth,
			line: `{"type":"error","message":"unexpected status 401 Unauthorized: Missing bearer authentication in header"}`},
		{name: "codex context window", class: TroubleContext,
			line: `{"type":"turn.failed","error":{"message":"Codex ran out of room in the model's context window. Start a new conversation."}}`},
		{name: "pi rate limited, exit 0", class: TroubleRateLimit, reset: now.Add(30 * time.Second),
			line: `{"type":"message_end","message":{"role":"assistant","stopReason":"error","errorMessage":"429 rate_limit_error: retry after 30 seconds"}}`},
		{name: "pi overloaded", class: TroubleOverloaded,
			line: `{"type":"message_end","message":{"role":"assistant","stopReason":"error","errorMessage":"529 overloaded_error"}}`},
		{name: "only stderr says it", class: TroubleOverloaded, stderr: "Error: read ECONNRESET"},
		{name: "a plain crash is no known trouble", stderr: "panic: runtime error: index out of range"},
		{name: "a clean result is no trouble", line: `{"type":"result","subtype":"success","is_error":false,"result":"done"}`},
		{name: "an ordinary reply mentioning a 401 is not an error line",
			line: `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I fixed the 401 handler"}]}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := Parse(1, 1, []byte(c.line))
			got := Diagnose(ev.Error, c.stderr, now)
			if got.Class != c.class {
				t.Fatalf("class %q (from %q), want %q", got.Class, ev.Error, c.class)
			}
			if !got.ResetAt.Equal(c.reset) {
				t.Fatalf("reset %v, want %v", got.ResetAt, c.reset)
			}
			if c.class != "" && got.Text == "" {
				t.Fatal("the runtime's words are kept for the timeline")
			}
		})
	}
}
