package orchestrator

import (
	"time"

	"github.com/zimmerhq/zimmer/session"
)

// effectRun is one after-commit effect of one committed transition (the lifecycle-effects
// contract). This declaration stands in for the one the effects framework (effects.go)
// brings, and goes when that lands.
type effectRun struct {
	SessionID   int64
	Batch       string // "<sessionID>-<seq>", stable across transaction retries and redeliveries
	Event       session.Event
	From, To    session.Status
	Effect      session.Effect
	At          time.Time // when the transition committed (the service clock)
	ResumedFrom string    // for a resume: metadata.paused_by before it, else ""
}

// metaTransitionSeq numbers a session's transitions in its metadata (the framework's
// session.MetaTransitionSeq).
const metaTransitionSeq = "transition_seq"
