package runner

import "github.com/zimmerhq/zimmer/catalog"

// claudeRuntime drives Claude Code headless:
//
//	claude -p --output-format stream-json --verbose --dangerously-skip-permissions
//	       --mcp-config <workdir>/.mcp.json [--settings <hooks file>] --model <model> --session-id <uuid> -- <prompt>
//
// with --resume <uuid> in place of --session-id on later turns. -p (print mode) takes the
// prompt as the positional argument after --, so a prompt that starts with a dash is never read
// as a flag. stream-json on stdout (which needs --verbose in print mode) is the transcript.
// The session's catalog hooks come in a settings file beside the clone (--settings adds to the
// project's own settings); its skills are folders under <workdir>/.claude/skills.
// MCP_TIMEOUT and NPM_CONFIG_CACHE come from the MCP config (runtime_env);
// CLAUDE_CODE_AUTO_COMPACT_WINDOW is the session's auto_compact_window.
var claudeRuntime = runtime{
	key: catalog.RuntimeClaude, label: "Claude Code", defaultBin: "claude", binEnv: "ZIMMER_CLAUDE_BIN",
	authCheck: []string{"auth", "status"},
	argv: func(s spawnSpec) []string {
		args := []string{"-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"}
		if s.configPath != "" {
			args = append(args, "--mcp-config", s.configPath)
		}
		if s.settingsPath != "" {
			args = append(args, "--settings", s.settingsPath)
		}
		if s.model != "" {
			args = append(args, "--model", s.model)
		}
		if s.resume {
			args = append(args, "--resume", s.runtimeID)
		} else {
			args = append(args, "--session-id", s.runtimeID)
		}
		return append(args, "--", s.prompt)
	},
	oneShot: func(prompt, model string) []string {
		return withModel([]string{"-p", "--output-format", "stream-json", "--verbose"}, "--model", model, prompt)
	},
	env: func(s spawnSpec) map[string]string {
		return map[string]string{"CLAUDE_CODE_AUTO_COMPACT_WINDOW": itoa(s.autoCompact)}
	},
}
