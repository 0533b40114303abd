package runner_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/pricing"
	"github.com/zimmerhq/zimmer/provenance"
	"github.com/zimmerhq/zimmer/session"
)

// injectedBlock cuts one block, tags included, out of the prompt the agent was given.
func injectedBlock(t *testing.T, inv map[string]any, tag string) string {
	t.Helper()
	for _, arg := range argv(inv) {
		if i := strings.Index(arg, "<"+tag+">"); i >= 0 {
			if j := strings.Index(arg[i:], "</"+tag+">"); j >= 0 {
				return arg[i : i+j+len("</"+tag+">")]
			}
		}
	}
	return ""
}

// The blocks Zimmer injects into real turns are tallied on the session as the agent received
// them: each block's bytes, its estimated tokens and the times it was sent, priced as input at
// the session's model, in get_costs' session report (and its spawn roll-up).
func TestTheInjectedBlocksOfRealTurnsAreTalliedAndPriced(t *testing.T) {
	e := shared(t)
	ctx := context.Background()
	parent := e.create(t, map[string]any{"prompt": "route this", "agent_root": "parent"})
	e.waitStatus(t, parent, session.StatusNeedsInput)
	child := e.create(t, map[string]any{"prompt": "do the work", "agent_root": "child", "parent_session_id": parent})
	e.waitStatus(t, child, session.StatusNeedsInput)
	// A human's follow-up puts a record in the tree: the second turn carries both blocks.
	if _, err := e.ops.WebFollowUp(ctx, child, "please also cover the edge case"); err != nil {
		t.Fatal(err)
	}
	e.waitFor(t, child, "the follow-up's turn", 30*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(e.invocations(t, child)) == 2
	})

	sent := map[string]struct{ bytes, tokens, times int64 }{}
	for _, inv := range e.invocations(t, child) {
		for block, tag := range map[string]string{provenance.BlockHierarchy: "session-hierarchy", provenance.BlockHumanMessages: "human-messages"} {
			if text := injectedBlock(t, inv, tag); text != "" {
				s := sent[block]
				s.bytes, s.tokens, s.times = s.bytes+int64(len(text)), s.tokens+int64((len(text)+3)/4), s.times+1
				sent[block] = s
			}
		}
	}
	if sent[provenance.BlockHierarchy].times != 2 || sent[provenance.BlockHumanMessages].times != 1 {
		t.Fatalf("the agent was given %+v, want the hierarchy twice and the human messages once", sent)
	}
	model := e.get(t, child).Model()
	rate, ok := pricing.Default().RatesFor(model)
	if !ok {
		t.Fatalf("the test catalog's model %q has no rate", model)
	}
	r, err := e.ops.Costs(ctx, orchestrator.CostQuery{SessionID: child, Days: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.InjectedBlocks) != 2 {
		t.Fatalf("the report's injected blocks: %+v", r.InjectedBlocks)
	}
	for _, l := range r.InjectedBlocks {
		want := sent[l.Block]
		if l.Model != model || l.Bytes != want.bytes || l.Tokens != want.tokens || l.Occurrences != want.times ||
			math.Abs(l.ListPrice-float64(want.tokens)*rate.Input/1e6) > 1e-12 {
			t.Errorf("%s: recorded %+v, the agent was given %+v under %s", l.Block, l, want, model)
		}
	}
	// The parent's first turn was alone in its tree; its own report has no block, the roll-up has the child's.
	own, err := e.ops.Costs(ctx, orchestrator.CostQuery{SessionID: parent, Days: 1})
	if err != nil || len(own.InjectedBlocks) != 0 {
		t.Fatalf("the parent's own blocks: %+v %v", own.InjectedBlocks, err)
	}
	tree, err := e.ops.Costs(ctx, orchestrator.CostQuery{SessionID: parent, Days: 1, IncludeDescendants: true})
	if err != nil || len(tree.InjectedBlocks) != 2 {
		t.Fatalf("the parent's hierarchy's blocks: %+v %v", tree.InjectedBlocks, err)
	}
}
