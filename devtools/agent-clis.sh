#!/usr/bin/env bash
# devtools/agent-clis.sh: install the real Claude Code and Codex CLIs from npm, at the pinned
# versions, for the test that checks they accept the configs Zimmer writes (catalog/realcli).
# They go into $ZIMMER_AGENT_CLIS_DIR (default ~/.cache/zimmer/agent-clis/<versions>), outside
# the checkout like the Neo4j jars, so a machine downloads them once (about 800 MB unpacked)
# rather than on every run. Idempotent: quiet when they are there and answer --version.
# Prints the folder holding the two binaries.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CLAUDE_VERSION=2.1.332
CODEX_VERSION=0.171.0
dir="${ZIMMER_AGENT_CLIS_DIR:-$HOME/.cache/zimmer/agent-clis/claude-$CLAUDE_VERSION-codex-$CODEX_VERSION}"
bin="$dir/node_modules/.bin"

works() { "$bin/claude" --version >/dev/null 2>&1 && "$bin/codex" --version >/dev/null 2>&1; }

if ! works; then
  command -v npm >/dev/null 2>&1 || die "npm is not installed: install Debian's npm (the real-CLI test needs it)"
  say "installing @anthropic-ai/claude-code@$CLAUDE_VERSION and @openai/codex@$CODEX_VERSION into $dir (first run only)…" >&2
  mkdir -p "$dir"
  log="$dir/npm-install.log"
  npm install --prefix "$dir" --no-audit --no-fund --no-save \
    "@anthropic-ai/claude-code@$CLAUDE_VERSION" "@openai/codex@$CODEX_VERSION" >"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; die "npm install of the agent CLIs failed (full log in $log)"; }
  works || die "the agent CLIs installed into $dir do not run (claude --version / codex --version)"
fi
printf '%s\n' "$bin"
