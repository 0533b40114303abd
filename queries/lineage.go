package queries

import _ "embed" // the statement below is an embedded string

// LineageGuard is the exact cycle check of a new lineage edge, locking only what a cycle
// through it could touch, and the write of an uncle edge that passes it.
//
//go:embed lineage_guard.cypher
var LineageGuard string
