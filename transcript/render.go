package transcript

import (
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
	for _, e := range Entries(data) {
		for _, line := range renderEntry(e) {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func renderEntry(e Entry) []string {
	switch e.Kind {
	case KindTurn:
		return []string{"", "=== " + e.Detail + " ===", "User: " + e.Text}
	case KindUser:
		return []string{"User: " + e.Text}
	case KindAssistant:
		return []string{"Assistant: " + e.Text}
	case KindToolCall:
		lines := []string{fmt.Sprintf("Tool call: %s %s", e.Name, e.Text)}
		if e.HasResult {
			lines = append(lines, "Tool result: "+e.Result)
		}
		return lines
	case KindCommand:
		return []string{"Command: " + e.Text, "Output: " + e.Result}
	}
	return []string{e.Text}
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
