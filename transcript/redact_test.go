package transcript

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRedactMasksEachCredentialShapeAndKeepsJSONValid(t *testing.T) {
	tests := []struct {
		name, secret, label string
	}{
		{"an Anthropic key", "sk-ant-api03-" + strings.Repeat("a1B2", 10), "ANTHROPIC_API_KEY"},
		{"an OpenAI key", "sk-proj-" + strings.Repeat("Zx9_", 8), "OPENAI_API_KEY"},
		{"a GitHub token", "ghp_" + strings.Repeat("A1b2", 9), "GITHUB_TOKEN"},
		{"a fine-grained GitHub token", "github_pat_" + strings.Repeat("11AB_", 6), "GITHUB_TOKEN"},
		{"an AWS access key id", "AKIAIOSFODNN7EXAMPLE", "AWS_ACCESS_KEY_ID"},
		{"a Slack token", "xoxb-1234567890-abcdefghij", "SLACK_TOKEN"},
		{"a bearer token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc", "BEARER_TOKEN"},
		{"URL credentials", "x-access-token:s3cr3t", "URL_CREDENTIALS"},
		{"a private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----", "PRIVATE_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := map[string]string{
				"a bearer token":  "Authorization: Bearer " + tt.secret,
				"URL credentials": "git clone https://" + tt.secret + "@github.com/x/y",
			}[tt.name]
			if text == "" {
				text = "the value is " + tt.secret + " here"
			}
			line, _ := json.Marshal(map[string]any{"type": "user", "content": text})
			got := Redact(string(line))
			var back map[string]any
			if err := json.Unmarshal([]byte(got), &back); err != nil {
				t.Fatalf("redacted line is not JSON: %v\n%s", err, got)
			}
			content := back["content"].(string)
			if strings.Contains(content, tt.secret) || !strings.Contains(content, "[REDACTED:"+tt.label+"]") {
				t.Fatalf("%q redacted to %q", text, content)
			}
		})
	}
	for _, plain := range []string{"ask the skeptic", "see https://github.com/x/y", "task-12345 done", "Bearer of bad news"} {
		if got := Redact(plain); got != plain {
			t.Errorf("%q changed to %q", plain, got)
		}
	}
}
