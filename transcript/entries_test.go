package transcript

import (
	"strings"
	"testing"
)

func TestEntriesPairEachToolCallWithItsResultAndFlagErrors(t *testing.T) {
	data := strings.Join([]string{
		`{"type":"zimmer_turn","turn":1,"reason":"initial","prompt":"do it"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"on it"},{"type":"tool_use","name":"read","input":{"path":"a"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"no such file","is_error":true}]}}`,
		`{"type":"item.completed","item":{"type":"command_execution","command":"make","aggregated_output":"ok","exit_code":0}}`,
		`{"type":"item.completed","item":{"type":"command_execution","command":"make test","aggregated_output":"FAIL","exit_code":2}}`,
		`{"type":"result","is_error":true,"result":"quota exceeded"}`,
		`not json`,
	}, "\n")
	got := Entries([]byte(data))
	want := []Entry{
		{Kind: KindTurn, Text: "do it", Detail: "Turn 1 (initial)"},
		{Kind: KindAssistant, Text: "on it"},
		{Kind: KindToolCall, Name: "read", Text: `{"path":"a"}`, Result: "no such file", Error: true, HasResult: true},
		{Kind: KindCommand, Text: "make", Result: "ok", HasResult: true},
		{Kind: KindCommand, Text: "make test", Result: "FAIL", Error: true, HasResult: true},
		{Kind: KindNote, Text: "The turn ended in error: quota exceeded", Error: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
