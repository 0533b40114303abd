package mcp

import (
	"slices"
	"strings"
	"testing"
)

// verbTable is what a multiplexed tool variant advertises and what dispatches its calls.
type verbTable struct {
	names  []string
	lookup func(string) (bool, error)
}

func tableOf[T any](vs verbs[T]) verbTable {
	return verbTable{names: vs.names(), lookup: func(n string) (bool, error) {
		_, err := vs.lookup(n)
		return err == nil, err
	}}
}

func TestMultiplexedToolsTakeEnumDispatchAndRefusalFromOneTable(t *testing.T) {
	t.Parallel()
	tools := map[string]*toolDef{}
	for _, d := range (&Handler{}).catalog() {
		tools[d.name] = d
	}
	cases := []struct {
		name    string
		variant variant
		table   verbTable
	}{
		{"action_session", tools["action_session"].full, tableOf(fullVerbs)},
		{"action_session@self_session", tools["action_session"].overrides[compositeSelf], tableOf(selfVerbs)},
		{"manage_enqueued_messages", tools["manage_enqueued_messages"].full, tableOf(queueVerbs)},
		{"manage_categories", tools["manage_categories"].full, tableOf(categoryVerbs)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var enum []string
			for _, v := range tc.variant.schema.props["action"]["enum"].([]any) {
				enum = append(enum, v.(string))
			}
			if !slices.Equal(enum, tc.table.names) {
				t.Fatalf("the schema enum %v is not the verb table %v", enum, tc.table.names)
			}
			for _, name := range enum {
				if ok, err := tc.table.lookup(name); !ok {
					t.Errorf("enum value %q does not dispatch: %v", name, err)
				}
			}
			listed := strings.Join(enum, ", ")
			if _, err := tc.table.lookup("shuffle"); err == nil || err.Error() != `Unknown action "shuffle". Allowed actions: `+listed {
				t.Errorf("an unknown action's refusal must list exactly the enum, got %v", err)
			}
			if msg := checkArgs(tc.variant.schema, args{"action": "shuffle", "session_id": "1"}); !strings.Contains(msg, "action must be one of: "+listed) {
				t.Errorf("the schema's refusal must list exactly the enum, got %q", msg)
			}
		})
	}
}

func TestTheSelfVariantIsNarrowedFromTheSameTable(t *testing.T) {
	t.Parallel()
	for _, v := range selfVerbs {
		i := slices.IndexFunc(actionVerbs, func(w verb[action]) bool { return w.name == v.name })
		if i < 0 {
			t.Fatalf("self action %q is not in the one table", v.name)
		}
	}
	if slices.Contains(fullVerbs.names(), "message_parent") {
		t.Error("message_parent belongs to the self_session variant only")
	}
	if len(fullVerbs)+1 != len(actionVerbs) {
		t.Errorf("the sessions-group surface is every action but message_parent: %d of %d", len(fullVerbs), len(actionVerbs))
	}
}

func TestNarrowingToAnUnknownActionFailsAtLoad(t *testing.T) {
	t.Parallel()
	for _, narrow := range []func(){
		func() { queueVerbs.only("shuffle") },
		func() { queueVerbs.except("shuffle") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("narrowing to an action the table lacks must panic")
				}
			}()
			narrow()
		}()
	}
}
