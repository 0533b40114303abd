package runner

import (
	"path/filepath"

	"github.com/zimmerhq/zimmer/catalog"
)

// piRuntime drives Pi in print mode with JSON events:
//
//	pi -p --mode json --approve --session-dir <workdir>/.pi/sessions --session-id <uuid> --model <model> -- <prompt>
//
// the same on every turn: the same --session-id continues the conversation, kept in a
// clone-local session directory so sessions cannot collide. Its MCP client (the pi-mcp-adapter
// extension) reads .mcp.json from the working directory by convention; --approve trusts the
// project's files. The session's skills are folders under <workdir>/.pi/skills; Pi runs no hooks.
var piRuntime = runtime{
	key: catalog.RuntimePi, label: "Pi", defaultBin: "pi", binEnv: "ZIMMER_PI_BIN",
	argv: func(s spawnSpec) []string {
		args := []string{"-p", "--mode", "json", "--approve", "--session-dir", filepath.Join(s.workDir, ".pi", "sessions"),
			"--session-id", s.runtimeID}
		if s.model != "" {
			args = append(args, "--model", s.model)
		}
		return append(args, "--", s.prompt)
	},
	oneShot: func(prompt, model string) []string {
		return withModel([]string{"-p", "--mode", "json", "--no-session"}, "--model", model, prompt)
	},
	env: noEnv,
}
