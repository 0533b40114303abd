package session

import "slices"

// Genesis says where a session's line of work came from; it is assigned once at create.
type Genesis string

// Genesis kinds of the original system.
const (
	GenesisWebUI       Genesis = "web_ui"
	GenesisSlack       Genesis = "slack"
	GenesisGitHubIssue Genesis = "github_issue"
	GenesisGitHubLabel Genesis = "github_label"
	GenesisSchedule    Genesis = "schedule"
	GenesisAOEvent     Genesis = "ao_event"
	GenesisSystemEvent Genesis = "system_event"
	GenesisAPI         Genesis = "api"
	GenesisUnknown     Genesis = "unknown"
)

// Class is a scheduling class: spot work waits for capacity, priority work never does.
type Class string

// The two scheduling classes.
const (
	ClassSpot     Class = "spot"
	ClassPriority Class = "priority"
)

var genesisDefaults = map[Genesis]Class{
	GenesisWebUI: ClassPriority, GenesisSlack: ClassPriority, GenesisGitHubIssue: ClassSpot,
	GenesisGitHubLabel: ClassSpot, GenesisSchedule: ClassSpot, GenesisAOEvent: ClassSpot,
	GenesisSystemEvent: ClassPriority, GenesisAPI: ClassSpot, GenesisUnknown: ClassPriority,
}

// Geneses lists every genesis kind.
var Geneses = []Genesis{GenesisWebUI, GenesisSlack, GenesisGitHubIssue, GenesisGitHubLabel,
	GenesisSchedule, GenesisAOEvent, GenesisSystemEvent, GenesisAPI, GenesisUnknown}

// SettableGeneses are the kinds whose class the deployment may change; the others take theirs
// from the trigger that fires them.
var SettableGeneses = []Genesis{GenesisWebUI, GenesisAPI, GenesisUnknown}

// Settable reports whether the deployment may change g's class.
func (g Genesis) Settable() bool { return slices.Contains(SettableGeneses, g) }

// ClassOverrides are the deployment's genesis_class_overrides: a class per settable genesis
// kind, in place of its default. Entries for other kinds or classes are ignored.
type ClassOverrides map[Genesis]Class

// Of is the class sessions of genesis g derive: the override when one applies, else the default.
func (o ClassOverrides) Of(g Genesis) Class {
	if c, ok := o[g]; ok && c.Valid() && g.Settable() {
		return c
	}
	return g.DefaultClass()
}

// Changed reports whether g's class differs from its default.
func (o ClassOverrides) Changed(g Genesis) bool { return o.Of(g) != g.DefaultClass() }

// GenesesOfClass lists the genesis kinds whose sessions derive class c.
func (o ClassOverrides) GenesesOfClass(c Class) []string {
	var out []string
	for _, g := range Geneses {
		if o.Of(g) == c {
			out = append(out, string(g))
		}
	}
	return out
}

// Valid reports whether g is a known genesis kind.
func (g Genesis) Valid() bool { _, ok := genesisDefaults[g]; return ok }

// DefaultClass is the class a session of this genesis runs in when none is set explicitly;
// an empty or unknown genesis counts as "unknown".
func (g Genesis) DefaultClass() Class {
	if c, ok := genesisDefaults[g]; ok {
		return c
	}
	return ClassPriority
}

// Valid reports whether c is spot or priority.
func (c Class) Valid() bool { return c == ClassSpot || c == ClassPriority }
