package queries

import _ "embed" // the statements below are embedded strings

// The outcome-analysis statements.

// InsertOutcomeAnalysis saves a session's new current analysis.
//
//go:embed insert_outcome_analysis.cypher
var InsertOutcomeAnalysis string

// ListOutcomeAnalyses reads current analyses, filtered.
//
//go:embed list_outcome_analyses.cypher
var ListOutcomeAnalyses string

// GetOutcomeAnalysis reads a session's current analysis.
//
//go:embed get_outcome_analysis.cypher
var GetOutcomeAnalysis string
