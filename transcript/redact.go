package transcript

import "regexp"

// redactions are the credential shapes an agent's transcript may echo (a token in a command, a
// key in a file it read), each with the label its mask names. None matches a JSON quote or a
// backslash outside a key block, so a redacted JSONL line stays valid JSON.
var redactions = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`), "[REDACTED:PRIVATE_KEY]"},
	// Anthropic's keys start like OpenAI's, so they are masked first.
	{regexp.MustCompile(`sk-ant-[A-Za-z0-9_-]{20,}`), "[REDACTED:ANTHROPIC_API_KEY]"},
	{regexp.MustCompile(`sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}`), "[REDACTED:OPENAI_API_KEY]"},
	{regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`), "[REDACTED:GITHUB_TOKEN]"},
	{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), "[REDACTED:AWS_ACCESS_KEY_ID]"},
	{regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`), "[REDACTED:SLACK_TOKEN]"},
	{regexp.MustCompile(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/-]{20,}=*`), "${1}[REDACTED:BEARER_TOKEN]"},
	{regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@\s"\\]+@`), "${1}[REDACTED:URL_CREDENTIALS]@"},
}

// Redact masks every credential in text as [REDACTED:<LABEL>]: what a transcript is stored as.
func Redact(text string) string {
	for _, r := range redactions {
		text = r.re.ReplaceAllString(text, r.with)
	}
	return text
}
