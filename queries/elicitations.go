package queries

import _ "embed" // the statements below are embedded strings

// The elicitation statements: an MCP server's question for the human, asked over HTTP.

// InsertElicitation records a pending elicitation.
//
//go:embed insert_elicitation.cypher
var InsertElicitation string

// GetElicitation reads one by request id or id.
//
//go:embed get_elicitation.cypher
var GetElicitation string

// ResolveElicitation answers a pending one.
//
//go:embed resolve_elicitation.cypher
var ResolveElicitation string

// ExpireElicitations expires the overdue ones.
//
//go:embed expire_elicitations.cypher
var ExpireElicitations string
