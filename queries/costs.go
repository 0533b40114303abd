package queries

import _ "embed"

// The cost report's statements: the ledger's daily summaries and each session's packed cost
// summary (kept with every write, built once for an older ledger by migrations) read for
// pricing, the ledger itself for the census, its coverage, and the sweep of every transcript
// into it.

// CostRows groups the ledger over a window, fleet-wide.
//
//go:embed cost_rows.cypher
var CostRows string

// SpendRows reads the spend summaries of a fleet or agent-root report.
//
//go:embed spend_rows.cypher
var SpendRows string

// SummarizeSpend re-sums sessions' ledger rows into their spend summaries.
//
//go:embed summarize_spend.cypher
var SummarizeSpend string

// UnsummarizedSessions pages the sessions with ledger rows for the summaries' migration.
//
//go:embed unsummarized_sessions.cypher
var UnsummarizedSessions string

// CostSummaries reads the packed cost summaries of a report over sessions.
//
//go:embed cost_summaries.cypher
var CostSummaries string

// CostSummarySources reads what sessions' cost summaries pack.
//
//go:embed cost_summary_sources.cypher
var CostSummarySources string

// WriteCostSummaries sets sessions' packed cost summaries.
//
//go:embed write_cost_summaries.cypher
var WriteCostSummaries string

// DropCostSummaryNodes deletes the summary nodes of a former layout, for the migration.
//
//go:embed drop_cost_summary_nodes.cypher
var DropCostSummaryNodes string

// UncostedSessions pages the sessions without cost summaries for their migration.
//
//go:embed uncosted_sessions.cypher
var UncostedSessions string

// LedgerCoversSince reads the oldest request in the ledger.
//
//go:embed ledger_covers_since.cypher
var LedgerCoversSince string

// BackfillStart starts or joins the ledger sweep.
//
//go:embed backfill_start.cypher
var BackfillStart string

// BackfillClaim leases the sweep to one slice.
//
//go:embed backfill_claim.cypher
var BackfillClaim string

// BackfillProgress records a slice's progress.
//
//go:embed backfill_progress.cypher
var BackfillProgress string

// BackfillStatus reads the sweep.
//
//go:embed backfill_status.cypher
var BackfillStatus string

// CostRecords pages the ledger's rows.
//
//go:embed cost_records.cypher
var CostRecords string
