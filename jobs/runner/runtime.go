package runner

import (
	"cmp"
	"strconv"

	"github.com/zimmerhq/zimmer/catalog"
)

// bin is a runtime's binary: the one configured for it (ZIMMER_*_BIN), else its default name.
func (r *Runner) bin(rt runtime) string { return cmp.Or(r.opt.Bins[rt.key], rt.defaultBin) }

// runtime is how one agent CLI is driven: its binary, its flags for a fresh and a resumed turn,
// and the environment it needs. The adapters are in claude.go, codex.go and pi.go.
type runtime struct {
	key        string // the agent_runtime value
	label      string // for messages
	defaultBin string
	binEnv     string // the variable that points at the binary
	// mintsOwnID: the CLI names its conversation itself (Codex) and Zimmer reads the id from
	// its stream; otherwise Zimmer mints a UUID and passes it.
	mintsOwnID bool
	argv       func(spawnSpec) []string
	// oneShot is the command line of a single question outside any session's conversation
	// (status summaries, titles): print mode, the runtime's JSON events, no tools wanted.
	oneShot func(prompt, model string) []string
	env     func(spawnSpec) map[string]string
	// authCheck is the CLI's own login check (exit 0: logged in); nil when it has none.
	authCheck []string
}

// spawnSpec is what a runtime builds one turn's command line from.
type spawnSpec struct {
	prompt, workDir, model, runtimeID, configPath string
	resume                                        bool
	autoCompact                                   int64
	hooks                                         []catalog.Hook // the session's catalog hooks
	settingsPath                                  string         // Claude's settings file carrying them
}

var runtimes = map[string]runtime{
	catalog.RuntimeClaude: claudeRuntime,
	catalog.RuntimeCodex:  codexRuntime,
	catalog.RuntimePi:     piRuntime,
}

func noEnv(spawnSpec) map[string]string { return map[string]string{} }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
