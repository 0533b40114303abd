package runner

import "github.com/zimmerhq/zimmer/catalog"

// codexRuntime drives Codex non-interactively:
//
//	codex exec -c projects=… [hook overrides] --json --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check -m <model> -- <prompt>
//	codex exec resume <thread id> -c projects=… [hook overrides] --json --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check -m <model> -- <prompt>
//
// Codex mints its own conversation id, announced on stdout as {"type":"thread.started",
// "thread_id":…}, which the runner records as the session's runtime id. It reads its MCP servers
// from the project's .codex/config.toml in the working directory (the process's cwd), which it
// only does for a trusted project: -c projects={"<workdir>"={trust_level="trusted"}} says so
// for this run without touching the operator's ~/.codex. Every budget and cache is per entry
// there, so nothing is process-level. The session's catalog hooks are -c overrides too
// (catalog.CodexHookArgs); its skills are folders under <workdir>/.agents/skills.
var codexRuntime = runtime{
	key: catalog.RuntimeCodex, label: "Codex", defaultBin: "codex", binEnv: "ZIMMER_CODEX_BIN", mintsOwnID: true,
	authCheck: []string{"login", "status"},
	argv: func(s spawnSpec) []string {
		args := []string{"exec"}
		if s.resume {
			args = append(args, "resume", s.runtimeID)
		}
		args = append(args, catalog.CodexTrustArgs(s.workDir)...)
		args = append(args, catalog.CodexHookArgs(s.hooks)...)
		args = append(args, "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check")
		if s.model != "" {
			args = append(args, "-m", s.model)
		}
		return append(args, "--", s.prompt)
	},
	oneShot: func(prompt, model string) []string {
		return withModel([]string{"exec", "--json", "--sandbox", "read-only", "--skip-git-repo-check"}, "-m", model, prompt)
	},
	env: noEnv,
}
