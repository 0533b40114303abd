package mcp

import (
	"fmt"
	"slices"
)

// verb is one action of a multiplexed tool (action_session, manage_enqueued_messages,
// manage_categories, and the triggers, health and ledger tools when they are built) and what
// runs it.
type verb[T any] struct {
	name string
	do   T
}

// verbs is a multiplexed tool's actions in the order its schema lists them. The schema's enum,
// the dispatch and the refusal of an unknown action all come from this one table, so they
// cannot drift apart.
type verbs[T any] []verb[T]

// names is the action enum, in order.
func (vs verbs[T]) names() []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.name
	}
	return out
}

// enum is the schema property of the "action" argument.
func (vs verbs[T]) enum() prop { return str("What to do.").enum(vs.names()...) }

// lookup finds the named action; an unknown one is refused with the actions there are.
func (vs verbs[T]) lookup(name string) (T, error) {
	for _, v := range vs {
		if v.name == name {
			return v.do, nil
		}
	}
	var zero T
	return zero, unknownAction(name, vs.names())
}

// only narrows the table to the named actions, in the order given (a narrowed tool variant).
// A name the table does not hold is a programming error, caught when the package loads.
func (vs verbs[T]) only(names ...string) verbs[T] {
	out := make(verbs[T], 0, len(names))
	for _, n := range names {
		i := slices.IndexFunc(vs, func(v verb[T]) bool { return v.name == n })
		if i < 0 {
			panic(fmt.Sprintf("mcp: no action %q to narrow to", n))
		}
		out = append(out, vs[i])
	}
	return out
}

// except is the table without the named actions, order kept.
func (vs verbs[T]) except(names ...string) verbs[T] {
	for _, n := range names {
		vs.only(n) // panics on a name the table does not hold
	}
	return slices.DeleteFunc(slices.Clone(vs), func(v verb[T]) bool { return slices.Contains(names, v.name) })
}
