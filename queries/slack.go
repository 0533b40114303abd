package queries

import _ "embed"

// SlackThreadSession finds the session a Slack conversation is bound to.
//
//go:embed slack_thread_session.cypher
var SlackThreadSession string

// ClaimSlackEvent marks a Slack event id seen.
//
//go:embed claim_slack_event.cypher
var ClaimSlackEvent string

// ReleaseSlackEvent removes a claim's mark.
//
//go:embed release_slack_event.cypher
var ReleaseSlackEvent string

// ForgetSlackEvents drops expired marks.
//
//go:embed forget_slack_events.cypher
var ForgetSlackEvents string
