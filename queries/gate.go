package queries

import _ "embed" // the statements below are embedded strings

// The gate decision ledger's statements.

// InsertGateDecision records a decision.
//
//go:embed insert_gate_decision.cypher
var InsertGateDecision string

// SearchGateDecisions reads decisions, filtered and paged.
//
//go:embed search_gate_decisions.cypher
var SearchGateDecisions string

// SetGateFeedback records a human's correction.
//
//go:embed set_gate_feedback.cypher
var SetGateFeedback string
