package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// MaxToolResult is how much of one tool result the text rendering keeps.
const MaxToolResult = 500

// Render turns a transcript file's JSONL into readable text: each turn's prompt, what the
// assistant said, the tools it called and (cut to MaxToolResult characters) what they returned.
// Lines it does not recognise are left out.
func Render(data []byte) string {
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		for _, line := range renderEvent(m) {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func renderEvent(m map[string]any) []string {
	switch t, _ := m["type"].(string); t {
	case TurnMarkerType:
		return []string{"", fmt.Sprintf("=== Turn %v (%v) ===", m["turn"], m["reason"]), "User: " + str(m["prompt"])}
	case "assistant", "user", "message_end":
		msg, _ := m["message"].(map[string]any)
		return renderContent(msg)
	case "item.completed":
		item, _ := m["item"].(map[string]any)
		return renderCodexItem(item)
	case CutType:
		if m["reason"] == CutWindow {
			return []string{fmt.Sprintf("[%v earlier bytes of this transcript are not shown]", m["bytes"])}
		}
		return []string{fmt.Sprintf("[an output line of %v bytes was cut; it began: %s]", m["bytes"], cut(str(m["head"])))}
	}
	return nil
}

// renderContent renders a Claude or Pi message: its role and its content blocks.
func renderContent(msg map[string]any) []string {
	role, _ := msg["role"].(string)
	if text, ok := msg["content"].(string); ok {
		return []string{label(role) + text}
	}
	blocks, _ := msg["content"].([]any)
	var out []string
	for _, b := range blocks {
		block, _ := b.(map[string]any)
		switch block["type"] {
		case "text":
			out = append(out, label(role)+str(block["text"]))
		case "tool_use", "toolCall":
			out = append(out, fmt.Sprintf("Tool call: %s %s", str(block["name"]), compact(block["input"])))
		case "tool_result", "toolResult":
			out = append(out, "Tool result: "+cut(resultText(block["content"])))
		}
	}
	return out
}

func renderCodexItem(item map[string]any) []string {
	switch item["type"] {
	case "agent_message":
		return []string{"Assistant: " + str(item["text"])}
	case "mcp_tool_call":
		return []string{fmt.Sprintf("Tool call: %s %s", str(item["tool"]), compact(item["arguments"])),
			"Tool result: " + cut(compact(item["result"]))}
	case "command_execution":
		return []string{"Command: " + str(item["command"]), "Output: " + cut(str(item["aggregated_output"]))}
	}
	return nil
}

func label(role string) string {
	if role == "user" {
		return "User: "
	}
	return "Assistant: "
}

func resultText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	parts, _ := v.([]any)
	var texts []string
	for _, p := range parts {
		if part, ok := p.(map[string]any); ok && part["type"] == "text" {
			texts = append(texts, str(part["text"]))
		}
	}
	if len(texts) == 0 {
		return compact(v)
	}
	return strings.Join(texts, "\n")
}

func cut(s string) string {
	if r := []rune(s); len(r) > MaxToolResult {
		return string(r[:MaxToolResult]) + "… [cut]"
	}
	return s
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func compact(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
