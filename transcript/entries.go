package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
)

// Kind names what one transcript entry is, for a reader that draws each kind its own way.
type Kind string

// Entry kinds.
const (
	KindTurn      Kind = "turn"      // a turn began: Text is its prompt, Detail why it ran
	KindUser      Kind = "user"      // a user-role message
	KindAssistant Kind = "assistant" // what the assistant said
	KindToolCall  Kind = "tool_call" // Name is the tool, Text its input; Result what came back
	KindCommand   Kind = "command"   // a shell command (Codex): Text is the command, Result its output
	KindNote      Kind = "note"      // output Zimmer left out
)

// Entry is one readable step of a transcript. A tool call carries its result (when the result
// followed it) so a reader can show the two together.
type Entry struct {
	Kind   Kind
	Name   string // the tool's name
	Text   string
	Detail string // a turn's reason and number
	Result string // a tool's or command's output, cut to MaxToolResult characters
	Error  bool   // the tool, command or turn reported failure
	// HasResult says a result line was seen (a result may be empty).
	HasResult bool
}

// Entries reads a transcript file's JSONL into readable entries, in order. Lines it does not
// recognise are left out; a tool result is attached to the latest call still waiting for one.
func Entries(data []byte) []Entry {
	var out []Entry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		for _, e := range entriesOf(m) {
			if e.Kind == kindResult {
				out = attachResult(out, e)
				continue
			}
			out = append(out, e)
		}
	}
	return out
}

// kindResult is a tool result on its way to the call it answers; it never leaves Entries
// unless no call is waiting.
const kindResult Kind = "tool_result"

func attachResult(out []Entry, r Entry) []Entry {
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Kind == KindToolCall && !out[i].HasResult {
			out[i].Result, out[i].Error, out[i].HasResult = r.Result, r.Error, true
			return out
		}
	}
	// A result whose call was read earlier (before the window, or by an earlier live read)
	// still shows: a call with no name.
	return append(out, Entry{Kind: KindToolCall, Result: r.Result, Error: r.Error, HasResult: true})
}

func entriesOf(m map[string]any) []Entry {
	switch t, _ := m["type"].(string); t {
	case TurnMarkerType:
		return []Entry{{Kind: KindTurn, Text: str(m["prompt"]), Detail: fmt.Sprintf("Turn %v (%v)", m["turn"], m["reason"])}}
	case "assistant", "user", "message_end":
		msg, _ := m["message"].(map[string]any)
		return contentEntries(msg)
	case "item.completed":
		item, _ := m["item"].(map[string]any)
		return codexEntries(item)
	case "result":
		if isError, _ := m["is_error"].(bool); isError {
			return []Entry{{Kind: KindNote, Text: "The turn ended in error: " + cut(str(m["result"])), Error: true}}
		}
	case "error":
		return []Entry{{Kind: KindNote, Text: "Error: " + cut(str(m["message"])), Error: true}}
	case CutType:
		if m["reason"] == CutWindow {
			return []Entry{{Kind: KindNote, Text: fmt.Sprintf("[%v earlier bytes of this transcript are not shown]", m["bytes"])}}
		}
		return []Entry{{Kind: KindNote, Text: fmt.Sprintf("[an output line of %v bytes was cut; it began: %s]", m["bytes"], cut(str(m["head"])))}}
	}
	return nil
}

// contentEntries reads a Claude or Pi message: its role and its content blocks.
func contentEntries(msg map[string]any) []Entry {
	kind := KindAssistant
	if role, _ := msg["role"].(string); role == "user" {
		kind = KindUser
	}
	if text, ok := msg["content"].(string); ok {
		return []Entry{{Kind: kind, Text: text}}
	}
	blocks, _ := msg["content"].([]any)
	var out []Entry
	for _, b := range blocks {
		block, _ := b.(map[string]any)
		switch block["type"] {
		case "text":
			out = append(out, Entry{Kind: kind, Text: str(block["text"])})
		case "tool_use", "toolCall":
			out = append(out, Entry{Kind: KindToolCall, Name: str(block["name"]), Text: compact(block["input"])})
		case "tool_result", "toolResult":
			isError, _ := block["is_error"].(bool)
			out = append(out, Entry{Kind: kindResult, Result: cut(resultText(block["content"])), Error: isError})
		}
	}
	return out
}

func codexEntries(item map[string]any) []Entry {
	switch item["type"] {
	case "agent_message":
		return []Entry{{Kind: KindAssistant, Text: str(item["text"])}}
	case "mcp_tool_call":
		failed := item["status"] == "failed" || item["error"] != nil
		return []Entry{{Kind: KindToolCall, Name: str(item["tool"]), Text: compact(item["arguments"]),
			Result: cut(compact(item["result"])), Error: failed, HasResult: true}}
	case "command_execution":
		code, _ := item["exit_code"].(float64)
		return []Entry{{Kind: KindCommand, Text: str(item["command"]), Result: cut(str(item["aggregated_output"])),
			Error: code != 0 || item["status"] == "failed", HasResult: true}}
	}
	return nil
}
