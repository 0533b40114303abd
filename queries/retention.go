package queries

import _ "embed" // the statements below are embedded strings

// TrashDue finds archived sessions past their restore window.
//
//go:embed trash_due.cypher
var TrashDue string
