package metrics

// Process is a zimmer process with a /metrics endpoint.
type Process string

// The processes.
const (
	Serve  Process = "serve"
	Worker Process = "worker"
)

// Series is one metric family Zimmer exports: its name, its Prometheus type, and the processes
// whose /metrics carry it once the traffic that feeds it has happened (a vector has no series
// before its first observation).
type Series struct {
	Name string
	Type string // counter, gauge, histogram
	On   []Process
}

var (
	serveOnly  = []Process{Serve}
	workerOnly = []Process{Worker}
	both       = []Process{Serve, Worker}
)

// Catalogue lists every family Zimmer exports. TestEveryCataloguedSeriesIsScrapedAfterRealTraffic
// (cmd/zimmer) runs a serve and a worker, drives traffic through them and requires each entry on
// each process it names, and every zimmer_ family they export to be here: a new metric is
// catalogued, and the test's traffic reaches it, or the test fails.
var Catalogue = []Series{
	{"zimmer_http_requests_total", "counter", serveOnly},
	{"zimmer_http_request_duration_seconds", "histogram", serveOnly},
	{"zimmer_authenticated_requests_total", "counter", serveOnly},
	{"zimmer_neo4j_statement_duration_seconds", "histogram", both},
	{"zimmer_store_up", "gauge", both},
	{"zimmer_sessions_created_total", "counter", serveOnly},
	{"zimmer_sessions_archived_total", "counter", serveOnly},
	{"zimmer_uncle_edge_outcomes_total", "counter", serveOnly},
	{"zimmer_hierarchy_walk_nodes", "histogram", serveOnly},
	{"zimmer_hierarchy_walk_truncations_total", "counter", both},
	{"zimmer_human_messages_total", "counter", serveOnly},
	{"zimmer_mcp_tool_calls_total", "counter", serveOnly},
	{"zimmer_mcp_tool_call_duration_seconds", "histogram", serveOnly},
	{"zimmer_health_actions_total", "counter", serveOnly},
	{"zimmer_trigger_fires_total", "counter", serveOnly},
	{"zimmer_wake_ups_total", "counter", serveOnly},
	{"zimmer_notifications_total", "counter", workerOnly},
	{"zimmer_notification_deliveries_total", "counter", workerOnly},
	{"zimmer_session_runs_started_total", "counter", workerOnly},
	{"zimmer_session_runs_finished_total", "counter", workerOnly},
	{"zimmer_session_run_duration_seconds", "histogram", workerOnly},
	{"zimmer_turn_troubles_total", "counter", workerOnly},
	{"zimmer_queue_tasks", "gauge", workerOnly},
	{"zimmer_queue_latency_seconds", "gauge", workerOnly},
	{"zimmer_queue_paused", "gauge", workerOnly},
	{"zimmer_queue_inspect_errors_total", "counter", workerOnly},
	{"zimmer_queue_recovery_mode", "gauge", workerOnly},
	{"zimmer_lane_concurrency", "gauge", workerOnly},
	{"zimmer_spend_24h_by_model_dollars", "gauge", workerOnly},
	{"zimmer_spend_24h_by_agent_root_dollars", "gauge", workerOnly},
	{"zimmer_lane_in_flight", "gauge", workerOnly},
	{"zimmer_sessions", "gauge", workerOnly},
	{"zimmer_spot_sessions_held", "gauge", workerOnly},
	{"zimmer_spot_queue_length", "gauge", workerOnly},
	{"zimmer_human_message_chain_breaks", "gauge", workerOnly},
	{"zimmer_human_message_chain_checks_total", "counter", workerOnly},
}
