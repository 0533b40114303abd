// Package provenance renders what Zimmer knows about where a session's work came from — the
// hierarchy outline and the human-message record — as text for MCP tools, prompts and
// the web. It is pure: every input is data, every output a string, and untrusted text is
// neutralised so it can never close a block or forge a line.
package provenance
