package runner_test

import (
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

// The session's skills and hooks reach Claude Code in its own idiom (skill folders under
// .claude/skills, hooks in a settings file beside the clone), stay out of git, and a change
// reaches the next turn: a skill and a hook taken off the session are gone.
func TestClaudeGetsTheSessionsSkillsAndHooksEachTurn(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"agent_root": "parent", "catalog_skills": []string{"lint"}, "catalog_hooks": []string{"stamp"},
		"prompt": "first"})
	s := e.waitStatus(t, id, session.StatusNeedsInput)
	workDir := s.Metadata[session.MetaWorkDir].(string)
	skill := filepath.Join(workDir, ".claude", "skills", "lint", "SKILL.md")
	if body, err := os.ReadFile(skill); err != nil || !strings.HasPrefix(string(body), "---\nname: lint\n") {
		t.Fatalf("the skill's folder is in the clone with its front matter: %q %v", body, err)
	}
	args := argv(e.invocations(t, id)[0])
	i := slices.Index(args, "--settings")
	if i < 0 {
		t.Fatalf("claude is given the hooks' settings file: %v", args)
	}
	if settings, err := os.ReadFile(args[i+1]); err != nil || !strings.Contains(string(settings), `"command": "date > .stamp"`) {
		t.Fatalf("the settings file carries the hook: %s %v", settings, err)
	}
	if strings.HasPrefix(args[i+1], s.Metadata[session.MetaClonePath].(string)+"/") {
		t.Fatal("the hooks' settings file is outside the clone")
	}
	if out, err := exec.Command("git", "-C", workDir, "status", "--porcelain").Output(); err != nil || len(out) != 0 {
		t.Fatalf("what Zimmer wrote stays out of git: %q %v", out, err)
	}

	e.callTool(t, "action_session", map[string]any{"session_id": id, "action": "change_skills", "skills": []string{}})
	e.callTool(t, "action_session", map[string]any{"session_id": id, "action": "change_hooks", "hooks": []string{}})
	e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/follow_up", map[string]any{"prompt": "second"})
	e.waitFor(t, id, "the second turn", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(e.invocations(t, id)) == 2
	})
	if _, err := os.Stat(filepath.Dir(skill)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a skill taken off the session is gone: %v", err)
	}
	if slices.Contains(argv(e.invocations(t, id)[1]), "--settings") {
		t.Fatal("no hooks, no settings file")
	}
}

// A plugin brings what it bundles: Codex gets the plugin's server in its config, the skill under
// .agents/skills, the hook as an override, and is told to trust the working directory so it
// reads the config at all.
func TestCodexGetsWhatAPluginBundles(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"agent_root": "parent", "agent_runtime": "codex", "mcp_servers": []string{},
		"catalog_plugins": []string{"kit"}, "prompt": "first"})
	s := e.waitStatus(t, id, session.StatusNeedsInput)
	workDir := s.Metadata[session.MetaWorkDir].(string)
	if seen := e.seenServers(t, id)[0]; !slices.Contains(seen, "slowpoke") {
		t.Fatalf("the plugin's server is in the config the agent read: %v", seen)
	}
	if _, err := os.Stat(filepath.Join(workDir, ".agents", "skills", "lint", "SKILL.md")); err != nil {
		t.Fatalf("the plugin's skill is where Codex looks: %v", err)
	}
	args := strings.Join(argv(e.invocations(t, id)[0]), " ")
	for _, want := range []string{`projects={"` + workDir + `"={trust_level="trusted"}}`, `hooks={SessionStart=[{hooks=[{type="command",command="date > .stamp"}]}]}`,
		"--dangerously-bypass-hook-trust"} {
		if !strings.Contains(args, want) {
			t.Errorf("codex is run with %s: %s", want, args)
		}
	}
}
