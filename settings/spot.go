package settings

import (
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

// Spot is the spot gate's policy: whether spot sessions wait for capacity, the utilization
// targets of the runtimes' account pools, how many sessions may run at once, and the classes
// the settable genesis kinds derive.
type Spot struct {
	GatingEnabled     bool
	FiveHourTargetPct int // the 5-hour window's utilization target, percent
	WeeklyTargetPct   int // the weekly window's
	MaxConcurrent     int // sessions of one runtime pool running at once before spot work waits
	GenesisClasses    session.ClassOverrides
	UpdatedAt         *time.Time
}

// The policy's defaults and bounds.
const (
	DefaultTargetPct     = 80
	DefaultMaxConcurrent = 10
	MaxConcurrentCeiling = 100
)

// DefaultSpot is the policy before anyone changes it: gating off.
func DefaultSpot() Spot {
	return Spot{FiveHourTargetPct: DefaultTargetPct, WeeklyTargetPct: DefaultTargetPct,
		MaxConcurrent: DefaultMaxConcurrent, GenesisClasses: session.ClassOverrides{}}
}

// SpotChange names what to change; nil leaves a setting as it is. GenesisClasses, when not
// nil, replaces the overrides whole.
type SpotChange struct {
	GatingEnabled                      *bool
	FiveHourTargetPct, WeeklyTargetPct *int
	MaxConcurrent                      *int
	GenesisClasses                     session.ClassOverrides
}

// Apply returns p with c applied, or every reason it is not a valid policy.
func (p Spot) Apply(c SpotChange) (Spot, []string) {
	if c.GatingEnabled != nil {
		p.GatingEnabled = *c.GatingEnabled
	}
	var bad []string
	pct := func(name string, v *int, into *int) {
		if v == nil {
			return
		}
		if *v < 0 || *v > 100 {
			bad = append(bad, fmt.Sprintf("%s must be between 0 and 100", name))
		}
		*into = *v
	}
	pct("five_hour_threshold_pct", c.FiveHourTargetPct, &p.FiveHourTargetPct)
	pct("weekly_threshold_pct", c.WeeklyTargetPct, &p.WeeklyTargetPct)
	if c.MaxConcurrent != nil {
		if *c.MaxConcurrent < 1 || *c.MaxConcurrent > MaxConcurrentCeiling {
			bad = append(bad, fmt.Sprintf("max_concurrent_sessions must be between 1 and %d", MaxConcurrentCeiling))
		}
		p.MaxConcurrent = *c.MaxConcurrent
	}
	if c.GenesisClasses != nil {
		for g, class := range c.GenesisClasses {
			switch {
			case !g.Valid():
				bad = append(bad, fmt.Sprintf("Unknown genesis: %s", g))
			case !g.Settable():
				bad = append(bad, fmt.Sprintf("%s takes its class from the trigger that fires it, not from this policy", g))
			case !class.Valid():
				bad = append(bad, fmt.Sprintf("the class of %s must be spot or priority", g))
			}
		}
		p.GenesisClasses = c.GenesisClasses
	}
	return p, bad
}
