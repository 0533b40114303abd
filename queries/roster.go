package queries

import _ "embed"

// SeedUsers seeds the roster.
//
//go:embed seed_users.cypher
var SeedUsers string

// ListUsers reads the roster.
//
//go:embed list_users.cypher
var ListUsers string

// LockRoster serialises roster edits.
//
//go:embed lock_roster.cypher
var LockRoster string

// SaveUser writes one roster row.
//
//go:embed save_user.cypher
var SaveUser string

// DeleteUser removes one roster row.
//
//go:embed delete_user.cypher
var DeleteUser string

// InsertHumanMessage records a human message.
//
//go:embed insert_human_message.cypher
var InsertHumanMessage string

// HumanMessages reads the record of a set of sessions.
//
//go:embed human_messages.cypher
var HumanMessages string
