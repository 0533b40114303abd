package mcp

import (
	"context"
	"slices"
)

// toolDef is one registry entry: a tool's domain group, whether it writes, the composites that
// borrow it, and the narrower variant a composite hands out instead of the full tool.
type toolDef struct {
	name       string
	group      string
	write      bool
	composites []string
	full       variant
	overrides  map[string]variant // composite → narrowed variant, same name
}

// variant is one implementation of a tool name: what tools/list advertises and what runs.
type variant struct {
	description string
	schema      schema
	run         func(ctx context.Context, c *call) (string, error)
}

// resolved is a tool as one scope sees it.
type resolved struct {
	def     *toolDef
	variant *variant
	// self: the tool is here only through the self_session composite, so with a session token
	// it acts on the calling session alone.
	self bool
}

// registry is the catalog, in tools/list order.
type registry struct {
	defs  []*toolDef
	index map[string]int // name → catalog position
}

func newRegistry(defs []*toolDef) *registry {
	r := &registry{defs: defs, index: map[string]int{}}
	for i, d := range defs {
		if _, dup := r.index[d.name]; dup {
			panic("mcp: tool registered twice: " + d.name)
		}
		r.index[d.name] = i
	}
	return r
}

// resolve lists the tools a set of enabled groups carries, in catalog order. A tool is in when
// its domain group is enabled, or the group's _readonly variant is and the tool only reads, or
// one of its composites is. Domain membership outranks a composite override: the override is
// handed out only when the composite is the sole way in (so sessions,self_session gets the full
// action_session, and sessions_readonly,self_session the narrowed one, since the read-only
// domain does not carry a write tool).
func (r *registry) resolve(groups []string) []resolved {
	on := func(g string) bool { return slices.Contains(groups, g) }
	var out []resolved
	for _, d := range r.defs {
		if on(d.group) || (!d.write && on(d.group+readonlySuffix)) {
			out = append(out, resolved{d, &d.full, false})
			continue
		}
		for _, c := range d.composites {
			if on(c) {
				v := &d.full
				if o, ok := d.overrides[c]; ok {
					v = &o
				}
				out = append(out, resolved{d, v, c == compositeSelf})
				break
			}
		}
	}
	return out
}

// known reports whether name is any registered tool (to keep metric labels bounded).
func (r *registry) known(name string) bool {
	_, ok := r.index[name]
	return ok
}
