package mcp_test

import (
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
)

func TestRespondToElicitationReceiptsAndRefusals(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ask := func() string {
		id := graphtest.Unique(t, "req")
		if _, err := e.ops.CreateElicitation(t.Context(), orchestrator.ElicitationAsk{RequestID: id, Message: "Proceed?"}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	accepted := ask()
	contains(t, e.ok(t, "/mcp", "respond_to_elicitation", map[string]any{"request_id": accepted, "action_type": "accept", "content": map[string]any{"ok": true}}),
		"## Elicitation Accepted", "- **Request ID:** "+accepted, "- **Action:** accept", "**Content:**", `"ok": true`)
	declined := ask()
	text := e.ok(t, "/mcp", "respond_to_elicitation", map[string]any{"request_id": declined, "action_type": "decline", "content": map[string]any{"ok": true}})
	contains(t, text, "## Elicitation Declined", "- **Action:** decline")
	if got, _ := e.ops.Elicitation(t.Context(), declined); got.Response != nil {
		t.Fatalf("content is kept only for an accept: %v", got.Response)
	}
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"answered twice", map[string]any{"request_id": accepted, "action_type": "cancel"}, "Elicitation has already been resolved (status: accept)"},
		{"unknown", map[string]any{"request_id": "no-such-request", "action_type": "cancel"}, "Elicitation not found for: no-such-request"},
		{"an unknown action", map[string]any{"request_id": accepted, "action_type": "maybe"}, "Invalid arguments"},
		{"content not an object", map[string]any{"request_id": accepted, "action_type": "accept", "content": "yes"}, "Invalid arguments"},
		{"no action", map[string]any{"request_id": accepted}, "Missing required arguments: action_type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { e.refused(t, "/mcp", "respond_to_elicitation", c.args, c.want) })
	}
}
