package queries

import _ "embed"

// NextIDs hands out ids from a sequence.
//
//go:embed next_ids.cypher
var NextIDs string

// SaveTrigger writes a trigger and its conditions.
//
//go:embed save_trigger.cypher
var SaveTrigger string

// GetTrigger reads a trigger.
//
//go:embed get_trigger.cypher
var GetTrigger string

// LockTrigger locks and reads a trigger.
//
//go:embed lock_trigger.cypher
var LockTrigger string

// ListTriggers pages through triggers.
//
//go:embed list_triggers.cypher
var ListTriggers string

// EnabledTriggersOfType finds the triggers a sweep or poller walks.
//
//go:embed enabled_triggers_of_type.cypher
var EnabledTriggersOfType string

// AOEventListeners finds the triggers a session event fires.
//
//go:embed ao_event_listeners.cypher
var AOEventListeners string

// WatchersOfSession finds the triggers watching a session.
//
//go:embed watchers_of_session.cypher
var WatchersOfSession string

// WakesOfSession finds the wakes that resume a session.
//
//go:embed wakes_of_session.cypher
var WakesOfSession string

// DeleteTriggers deletes triggers.
//
//go:embed delete_triggers.cypher
var DeleteTriggers string

// ClaimTriggerFire marks a fire taken.
//
//go:embed claim_trigger_fire.cypher
var ClaimTriggerFire string

// ReleaseTriggerFire gives a fire's mark back.
//
//go:embed release_trigger_fire.cypher
var ReleaseTriggerFire string
