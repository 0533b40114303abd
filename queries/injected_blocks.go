package queries

import _ "embed"

// The injected prompt blocks' tally: what Zimmer's own context costs each session.

// RecordInjectedBlocks adds one turn's injected blocks to its session's tally.
//
//go:embed record_injected_blocks.cypher
var RecordInjectedBlocks string
