package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// turn is one claimed run of a session, from preparation to its end.
type turn struct {
	r       *Runner
	cat     *catalog.Catalog
	taskID  string
	sess    *session.Session
	base    string // the prompt the task carries
	reason  string
	started time.Time
	rt      runtime
	ws      workspace
	out     *stream
	proc    *process
	// hooks are the session's catalog hooks, prepared with the config; settings is the Claude
	// settings file carrying them ("" when none).
	hooks    []catalog.Hook
	settings string
}

// run takes the claimed turn to its end and returns the outcome. ctx ending means the worker
// is stopping; work is ctx without its cancellation, for the writes that record the end.
func (t *turn) run(ctx, work context.Context) string {
	rt, ok := runtimes[t.sess.AgentRuntime]
	if !ok {
		return t.fail(work, orchestrator.Failure{Reason: orchestrator.FailureSpawn,
			Message: fmt.Sprintf("agent runtime %q has no runner (known: claude_code, codex, pi)", t.sess.AgentRuntime)})
	}
	t.rt = rt
	if err := t.prepare(ctx, work); err != nil {
		var park errParkedForOAuth
		switch {
		case ctx.Err() != nil: // the worker stopped mid-clone: not the repository's fault
			return t.handBack(work, t.base)
		case errors.As(err, &park):
			return t.ended(outcomeFailed, t.r.ops.ParkForOAuth(work, t.sess.ID, t.taskID, park.missing))
		}
		return t.fail(work, err)
	}
	prompt, err := t.prompt(work)
	if err != nil {
		return t.fail(work, err)
	}
	if ctx.Err() != nil {
		return t.handBack(work, t.base)
	}
	t.awaitPrevious()
	if err := t.spawn(work, prompt); err != nil {
		return t.fail(work, err)
	}
	return t.monitor(ctx, work)
}

// prepare makes the workspace, writes the MCP config (on every turn, so a changed server list
// or catalog reaches the runtime before its next turn) and records where the turn runs. The
// clone stops with ctx; the record is written with work.
func (t *turn) prepare(ctx, work context.Context) error {
	ws, fresh, err := t.r.workspace(ctx, t.sess)
	if err != nil {
		return err
	}
	t.ws = ws
	// The pre-spawn OAuth gate: a server without a usable credential parks the session before
	// the agent runs; the others' tokens go into the config.
	tokens, missing := t.r.ops.OAuthGate(work, t.sess.MCPServers)
	if len(missing) > 0 {
		return errParkedForOAuth{missing}
	}
	cfg, err := t.writeConfig(work, fresh, tokens)
	if err != nil {
		return err
	}
	if err := t.r.exclude(work, ws.clone, cfg.Path, "MCP config"); err != nil {
		return err
	}
	setup := orchestrator.Setup{ClonePath: ws.clone, WorkDir: ws.workDir, TranscriptPath: t.r.transcriptPath(t.sess.ID),
		ConfigPath: cfg.Path, Injected: cfg.Injected, RuntimeEnv: cfg.Env}
	if !t.rt.mintsOwnID && t.sess.RuntimeSessionID == nil {
		setup.RuntimeSessionID = newUUID()
	}
	sess, err := t.r.ops.RecordSetup(work, t.sess.ID, t.taskID, setup)
	if err != nil {
		return err
	}
	t.sess = keepReason(sess, t.sess)
	return nil
}

// writeConfig prepares what the session's catalog lists give the runtime (plugins expanded into
// what they bundle): the MCP config, the skills and the hooks.
func (t *turn) writeConfig(ctx context.Context, fresh bool, tokens map[string]catalog.OAuthToken) (catalog.RuntimeConfig, error) {
	root := t.sess.AgentRoot()
	lookup, err := catalog.SecretsLookup(t.r.opt.SecretsFile, t.r.opt.Lookup)
	if err != nil {
		return catalog.RuntimeConfig{}, orchestrator.Failure{Reason: orchestrator.FailureSecret, Message: err.Error()}
	}
	var previous writtenRecord
	if !fresh { // a fresh clone's files are the repository's alone
		previous = t.ws.written(t.sess.AgentRuntime)
	}
	sel := t.cat.Expand(t.sess.MCPServers, t.sess.CatalogSkills, t.sess.CatalogHooks, t.sess.CatalogPlugins)
	// Every turn gets a fresh token (the last turn's stops working), so a restart rotates it.
	token, err := t.r.ops.IssueSessionToken(ctx, t.sess.ID)
	if err != nil {
		return catalog.RuntimeConfig{}, err
	}
	cfg, err := t.cat.WriteRuntimeConfig(catalog.RuntimeConfigRequest{
		Runtime: t.sess.AgentRuntime, WorkDir: t.ws.workDir, SessionID: t.sess.ID, Servers: sel.MCPServers, Root: root,
		PublicURL: t.r.opt.PublicURL, Token: token, Lookup: lookup, Allowed: t.r.opt.MCPVariables, Previous: previous.Written,
		OAuthTokens: tokens, AgentEnv: t.r.agentGetenv,
	})
	var ue *catalog.UnresolvedError
	switch {
	case errors.As(err, &ue):
		return cfg, orchestrator.Failure{Reason: orchestrator.FailureSecret, Message: ue.Error(),
			Details: map[string]any{session.MetaUnresolvedVariables: ue.Variables, session.MetaRefusedVariables: ue.Refused}}
	case errors.Is(err, catalog.ErrSymlink):
		return cfg, orchestrator.Failure{Reason: orchestrator.FailureCloneValidation, Message: "the clone's MCP config: " + err.Error()}
	}
	if err != nil {
		return cfg, fmt.Errorf("write the MCP config: %w", err)
	}
	skills, err := t.cat.WriteSkills(catalog.SkillsRequest{Runtime: t.sess.AgentRuntime, WorkDir: t.ws.workDir,
		Skills: sel.Skills, Previous: previous.Skills})
	if errors.Is(err, catalog.ErrSymlink) {
		return cfg, orchestrator.Failure{Reason: orchestrator.FailureCloneValidation, Message: "the clone's skills: " + err.Error()}
	}
	if err != nil {
		return cfg, err
	}
	if err := t.ws.recordWritten(writtenRecord{Runtime: t.sess.AgentRuntime, Written: cfg.Written, Skills: skills.Written}); err != nil {
		return cfg, err
	}
	for _, id := range skills.Written {
		if err := t.r.exclude(ctx, t.ws.clone, filepath.Join(t.ws.workDir, skills.Dir, id), "skill "+id); err != nil {
			return cfg, err
		}
	}
	warnings := append(cfg.Warnings, skills.Warnings...)
	if warnings, err = t.prepareHooks(sel.Hooks, warnings); err != nil {
		return cfg, err
	}
	for _, w := range warnings {
		t.r.ops.AppendTimeline(ctx, t.sess.ID, session.LogWarning, w)
	}
	return cfg, nil
}

// errParkedForOAuth stops a turn whose servers need OAuth authorization.
type errParkedForOAuth struct{ missing []orchestrator.OAuthMissing }

func (e errParkedForOAuth) Error() string { return "MCP servers need OAuth authorization" }

// claudeSettingsFile sits beside the clone: Claude Code reads the session's hooks from it
// (--settings), so the repository's own settings files are never rewritten.
const claudeSettingsFile = "claude-settings.json"

// prepareHooks readies the session's catalog hooks in the runtime's own idiom: a settings file
// for Claude Code, command-line overrides for Codex (built at spawn); Pi runs none.
func (t *turn) prepareHooks(ids []string, warnings []string) ([]string, error) {
	t.hooks = t.cat.HooksFor(ids)
	if w := catalog.HooksUnsupported(t.sess.AgentRuntime, t.hooks); w != "" {
		warnings = append(warnings, w)
	}
	path := filepath.Join(t.ws.root, claudeSettingsFile)
	if t.sess.AgentRuntime != catalog.RuntimeClaude || len(t.hooks) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return warnings, fmt.Errorf("remove the hooks of an earlier turn: %w", err)
		}
		return warnings, nil
	}
	data, err := catalog.ClaudeHookSettings(t.hooks)
	if err != nil {
		return warnings, fmt.Errorf("encode the hooks: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return warnings, fmt.Errorf("write the hooks: %w", err)
	}
	t.settings = path
	return warnings, nil
}

// keepReason carries the claim's turn reason over a re-read of the session.
func keepReason(fresh, claimed *session.Session) *session.Session {
	if r, ok := claimed.Metadata[session.MetaNextTurnReason]; ok {
		fresh.Metadata[session.MetaNextTurnReason] = r
	}
	return fresh
}

// prompt is the turn's prompt (see orchestrator.TurnPrompt). A fresh conversation needs one.
func (t *turn) prompt(ctx context.Context) (string, error) {
	if strings.TrimSpace(t.base) == "" {
		return "", orchestrator.Failure{Reason: orchestrator.FailureSpawn, Message: "the turn has no prompt to send the agent"}
	}
	if t.base == compactCommand { // a slash command is the prompt's whole text, or it is no command
		return t.base, nil
	}
	return t.r.ops.TurnPrompt(ctx, t.sess, t.base), nil
}

// resume: a later turn continues the runtime's conversation; the first starts it.
func (t *turn) resume() bool {
	return t.sess.Flag(session.MetaRuntimeStarted) && t.sess.RuntimeSessionID != nil
}

// monitor watches the process until it exits, the turn is taken from it, or the worker stops.
func (t *turn) monitor(ctx, work context.Context) string {
	tick := time.NewTicker(t.r.opt.Tick)
	defer tick.Stop()
	for {
		select {
		case <-t.proc.done:
			return t.exited(work)
		case <-ctx.Done():
			t.proc.terminate(t.r.opt.TermGrace)
			t.settle(work)
			return t.handBack(work, "")
		case <-tick.C:
			t.flush(work)
			if outcome, handled := t.mcpFailure(work, true); handled {
				return outcome
			}
			if why := t.lost(work); why != "" {
				t.r.log.Info("turn ended by someone else", "session_id", t.sess.ID, "task_id", t.taskID, "why", why)
				t.proc.terminate(t.r.opt.TermGrace)
				t.settle(work)
				return outcomeSuperseded
			}
		}
	}
}

// lost says why the turn no longer owns the session ("" while it does): an interrupt or a
// restart handed it to another job, a human paused or archived it, or it was deleted. A loss
// is confirmed by a second read: Neo4j's read-committed reads can catch a concurrent write of
// the session half-applied, and a healthy turn must not be killed for that.
func (t *turn) lost(ctx context.Context) string {
	if t.lostOnce(ctx) == "" {
		return ""
	}
	time.Sleep(t.r.opt.Tick / 5)
	return t.lostOnce(ctx)
}

func (t *turn) lostOnce(ctx context.Context) string {
	cur, err := t.r.ops.Get(ctx, t.sess.ID)
	switch {
	case errors.Is(err, orchestrator.ErrNotFound):
		return "the session was deleted"
	case err != nil:
		t.r.log.Warn("monitor could not read the session; will retry", "session_id", t.sess.ID, "err", err)
		return ""
	case orchestrator.Owns(cur, t.taskID):
		return ""
	case orchestrator.WaitsOnElicitation(cur, t.taskID):
		return "" // the process stays alive until the human answers, or the question expires
	case cur.Status != session.StatusRunning:
		return "the session is now " + string(cur.Status)
	}
	return "the session was handed to job " + derefString(cur.RunningJobID)
}

// exited classifies the process's end: trouble the runtime reported (even with a clean exit:
// Pi exits 0 when its model call failed) is retried or failed per its class (trouble.go); a
// clean exit ends the turn (next queued message, or needs_input); any other exit fails the
// session with process_failed.
func (t *turn) exited(ctx context.Context) string {
	t.settle(ctx)
	if outcome, handled := t.mcpFailure(ctx, false); handled {
		return outcome
	}
	if outcome, handled := t.trouble(ctx); handled {
		return outcome
	}
	if t.proc.state.Success() {
		if outcome, handled := t.continueCompacted(ctx); handled {
			return outcome
		}
		end, err := t.r.ops.FinishTurn(ctx, t.sess.ID, t.taskID)
		return t.ended(string(end), err)
	}
	return t.fail(ctx, orchestrator.Failure{Reason: orchestrator.FailureProcess, Details: t.exitDetails(),
		Message: fmt.Sprintf("the %s CLI exited with %s", t.rt.label, t.proc.state)})
}

// settle reaps what the process left (stragglers in its group, the rest of its output) and
// records the last of its usage.
func (t *turn) settle(ctx context.Context) {
	t.proc.reap()
	t.out.finish(2 * time.Second)
	t.flush(ctx)
}

// flush records the token usage and a runtime-minted conversation id read since the last tick.
func (t *turn) flush(ctx context.Context) {
	usages, threadID := t.out.take()
	if err := t.r.ops.RecordUsage(ctx, t.sess, usages, time.Now().UTC()); err != nil {
		t.out.giveBack(usages)
		t.r.log.Warn("token usage not recorded yet; will retry", "session_id", t.sess.ID, "err", err)
	}
	if t.rt.mintsOwnID && threadID != "" && derefString(t.sess.RuntimeSessionID) != threadID {
		if err := t.r.ops.RecordRuntimeSessionID(ctx, t.sess.ID, t.taskID, threadID); err == nil {
			t.sess.RuntimeSessionID = &threadID
		}
	}
}

// fail records a failure on the session (when the turn still owns it).
func (t *turn) fail(ctx context.Context, err error) string {
	var f orchestrator.Failure
	if !errors.As(err, &f) {
		if errors.Is(err, orchestrator.ErrNotOwner) {
			return outcomeSuperseded
		}
		f = orchestrator.Failure{Reason: orchestrator.FailureException, Message: err.Error()}
	}
	_, ferr := t.r.ops.FailRun(ctx, t.sess.ID, t.taskID, f)
	return t.ended(outcomeFailed, ferr)
}

// handBack parks the session for recovery because the worker is stopping.
func (t *turn) handBack(ctx context.Context, undelivered string) string {
	return t.ended(outcomeHandedBack, t.r.ops.HandBack(ctx, t.sess.ID, t.taskID, undelivered))
}

// ended maps the error of the write that ends a turn onto the outcome.
func (t *turn) ended(outcome string, err error) string {
	switch {
	case err == nil:
		return outcome
	case errors.Is(err, orchestrator.ErrNotOwner):
		return outcomeSuperseded
	}
	t.r.log.Error("a turn's end was not recorded; the orphan sweep will recover the session", "session_id", t.sess.ID,
		"task_id", t.taskID, "outcome", outcome, "err", err)
	return outcomeError
}

// runtimeEnv is the process environment the clone's MCP config was written for.
func (t *turn) runtimeEnv() map[string]string {
	out := map[string]string{}
	m, _ := t.sess.Metadata[session.MetaRuntimeEnv].(map[string]any)
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// marker opens the turn in the transcript: what was sent, and why.
func (t *turn) marker(prompt string) transcript.TurnMarker {
	n, _ := t.sess.Metadata[session.MetaTurnCount].(float64)
	return transcript.TurnMarker{Type: transcript.TurnMarkerType, Turn: int(n), Reason: t.reason, Runtime: t.sess.AgentRuntime,
		Resume: t.resume(), Prompt: prompt, StartedAt: time.Now().UTC()}
}

func derefString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// mergeEnv overlays extras on a copy of base.
func mergeEnv(base map[string]string, extras ...map[string]string) map[string]string {
	out := maps.Clone(base)
	for _, e := range extras {
		maps.Copy(out, e)
	}
	return out
}
