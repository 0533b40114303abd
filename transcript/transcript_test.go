package transcript

import (
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

func TestParseFindsUsageInEachRuntimesStream(t *testing.T) {
	cases := []struct {
		name, line string
		want       *Usage
	}{
		{"claude assistant", `{"type":"assistant","message":{"id":"msg_1","model":"claude-opus-4","role":"assistant","usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":3,"cache_creation_input_tokens":2}}}`,
			&Usage{RequestID: "msg_1", Model: "claude-opus-4", TokenCounts: session.TokenCounts{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 3, CacheCreationTokens: 2}}},
		{"claude request id wins", `{"type":"assistant","requestId":"req_9","message":{"id":"msg_1","usage":{"input_tokens":1}}}`,
			&Usage{RequestID: "req_9", TokenCounts: session.TokenCounts{InputTokens: 1}}},
		{"claude result is a repeat", `{"type":"result","usage":{"input_tokens":10}}`, nil},
		{"codex turn", `{"type":"turn.completed","usage":{"input_tokens":7,"cached_input_tokens":4,"output_tokens":2}}`,
			&Usage{RequestID: "session-5-line-12", TokenCounts: session.TokenCounts{InputTokens: 7, OutputTokens: 2, CacheReadTokens: 4}}},
		{"pi message", `{"type":"message_end","message":{"role":"assistant","model":"sonnet","usage":{"input":8,"output":6,"cacheRead":1,"cacheWrite":2}}}`,
			&Usage{RequestID: "session-5-line-12", Model: "sonnet", TokenCounts: session.TokenCounts{InputTokens: 8, OutputTokens: 6, CacheReadTokens: 1, CacheCreationTokens: 2}}},
		{"claude transcript line with split cache writes, web tools, tier and its own time",
			`{"type":"assistant","timestamp":"2026-03-01T10:20:30.5Z","requestId":"req_2","message":{"id":"msg_2","model":"claude-sonnet-4-5","usage":{"input_tokens":4,"output_tokens":9,"cache_creation_input_tokens":30,"cache_creation":{"ephemeral_5m_input_tokens":10,"ephemeral_1h_input_tokens":20},"service_tier":"standard","server_tool_use":{"web_search_requests":2,"web_fetch_requests":1}}}}`,
			&Usage{RequestID: "req_2", Model: "claude-sonnet-4-5", ServiceTier: "standard", At: time.Date(2026, 3, 1, 10, 20, 30, 5e8, time.UTC),
				TokenCounts: session.TokenCounts{InputTokens: 4, OutputTokens: 9, CacheCreationTokens: 30, CacheCreation5mTokens: 10, CacheCreation1hTokens: 20, WebSearchRequests: 2, WebFetchRequests: 1}}},
		{"pi message timed in milliseconds", `{"type":"message_end","message":{"role":"assistant","model":"sonnet","timestamp":1767225600000,"usage":{"input":1}}}`,
			&Usage{RequestID: "session-5-line-12", Model: "sonnet", At: time.UnixMilli(1767225600000).UTC(), TokenCounts: session.TokenCounts{InputTokens: 1}}},
		{"not json", `garbage`, nil},
		{"no usage", `{"type":"system","subtype":"init"}`, nil},
	}
	for _, c := range cases {
		ev := Parse(5, 12, []byte(c.line))
		switch {
		case c.want == nil && ev.Usage != nil:
			t.Errorf("%s: unexpected usage %+v", c.name, ev.Usage)
		case c.want != nil && (ev.Usage == nil || *ev.Usage != *c.want):
			t.Errorf("%s: got %+v, want %+v", c.name, ev.Usage, c.want)
		}
	}
}

func TestParseCapturesCodexThreadID(t *testing.T) {
	if ev := Parse(1, 1, []byte(`{"type":"thread.started","thread_id":"th_1"}`)); ev.ThreadID != "th_1" {
		t.Fatalf("thread id %q", ev.ThreadID)
	}
}

func TestRenderShowsTurnsTextToolsAndCutsResults(t *testing.T) {
	long := strings.Repeat("x", 700)
	data := strings.Join([]string{
		`{"type":"zimmer_turn","turn":1,"reason":"start","prompt":"do it"}`,
		`{"type":"system","subtype":"init"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"on it"},{"type":"tool_use","name":"update_title","input":{"title":"T"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"` + long + `"}]}}`,
		`{"type":"item.completed","item":{"type":"agent_message","text":"codex says"}}`,
		`not json`,
	}, "\n")
	out := Render([]byte(data))
	for _, want := range []string{"=== Turn 1 (start) ===", "User: do it", "Assistant: on it", `Tool call: update_title {"title":"T"}`, "Assistant: codex says", "… [cut]"} {
		if !strings.Contains(out, want) {
			t.Errorf("rendering lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, strings.Repeat("x", 501)) {
		t.Error("tool results are cut at 500 characters")
	}
}
