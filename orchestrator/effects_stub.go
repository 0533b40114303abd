package orchestrator

import (
	"time"

	"github.com/zimmerhq/zimmer/session"
)

// effectRun is the lead's effects-framework type (orchestrator/effects.go on main); this copy
// exists only until that lands and is deleted by the merge.
type effectRun struct {
	SessionID   int64
	Batch       string
	Event       session.Event
	From, To    session.Status
	Effect      session.Effect
	At          time.Time
	ResumedFrom string
}
