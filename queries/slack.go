package queries

import _ "embed"

// SlackThreadSession finds the session a Slack conversation is bound to.
//
//go:embed slack_thread_session.cypher
var SlackThreadSession string
