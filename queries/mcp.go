package queries

import _ "embed" // the statements below are embedded strings

// The statements the MCP tools added, bound here so the queries of one surface read together.

// SearchSessions pages through quick_search_sessions' matches.
//
//go:embed search_sessions.cypher
var SearchSessions string

// ScanSessions reads the next batch of a bounded content scan.
//
//go:embed scan_sessions.cypher
var ScanSessions string
