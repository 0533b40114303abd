package queries

import _ "embed" // the statements below are embedded strings

// The statements of verifiable provenance: retired uncle edges and the walk as of a time, the
// hash chains of the human-message records, and the sessions' capability tokens.

// RetireUncleEdge keeps a removed uncle edge as a former one.
//
//go:embed retire_uncle_edge.cypher
var RetireUncleEdge string

// AsOfSpawnChain reads a spawn chain as it stood at a time.
//
//go:embed as_of_spawn_chain.cypher
var AsOfSpawnChain string

// AsOfSeniors reads the seniors of a frontier at a time.
//
//go:embed as_of_seniors.cypher
var AsOfSeniors string

// AsOfJuniors reads the juniors of a frontier at a time.
//
//go:embed as_of_juniors.cypher
var AsOfJuniors string

// AsOfNodes reads walk nodes as they stood at a time.
//
//go:embed as_of_nodes.cypher
var AsOfNodes string

// LockHumanChain locks and reads where a new human-message record goes in its chains.
//
//go:embed lock_human_chain.cypher
var LockHumanChain string

// HumanChains reads human-message chains for verification.
//
//go:embed human_chains.cypher
var HumanChains string

// FleetChainHead reads the fleet-wide human-message chain head.
//
//go:embed fleet_chain_head.cypher
var FleetChainHead string

// UnchainedHumanMessages reads the records a migration must chain.
//
//go:embed unchained_human_messages.cypher
var UnchainedHumanMessages string

// ChainHumanMessages seals the records a migration chains.
//
//go:embed chain_human_messages.cypher
var ChainHumanMessages string

// IssueSessionToken gives a session a new capability token.
//
//go:embed issue_session_token.cypher
var IssueSessionToken string

// SessionByToken finds the session a token authenticates as.
//
//go:embed session_by_token.cypher
var SessionByToken string

// RevokeSessionToken removes a session's token.
//
//go:embed revoke_session_token.cypher
var RevokeSessionToken string

// SpawnedBy checks descent over spawn edges.
//
//go:embed spawned_by.cypher
var SpawnedBy string

// LineageAmong reads every edge, live or removed, between sessions.
//
//go:embed lineage_among.cypher
var LineageAmong string

// SealedHumanMessages reads human-message records with their chain fields.
//
//go:embed sealed_human_messages.cypher
var SealedHumanMessages string
