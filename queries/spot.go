package queries

import _ "embed"

// GetSpotPolicy reads the spot gate's policy and the genesis class overrides.
//
//go:embed get_spot_policy.cypher
var GetSpotPolicy string

// UpdateSpotPolicy writes the spot gate's policy and the genesis class overrides.
//
//go:embed update_spot_policy.cypher
var UpdateSpotPolicy string

// SpotRunningPools counts running sessions per runtime pool.
//
//go:embed spot_running_pools.cypher
var SpotRunningPools string

// SpotRunningSessions lists a pool's running spot sessions, lowest ranked first.
//
//go:embed spot_running_sessions.cypher
var SpotRunningSessions string

// SpotLedgerUsage sums the ledger's tokens per runtime over the quota windows.
//
//go:embed spot_ledger_usage.cypher
var SpotLedgerUsage string

// SpotQueue reads the ranked spot queue.
//
//go:embed spot_queue.cypher
var SpotQueue string

// SpotCensus counts held sessions by reason and the parked ones.
//
//go:embed spot_census.cypher
var SpotCensus string
