// Package orchestrator holds the operations every surface shares — create, update, archive,
// delete, follow up — so REST, MCP, the web UI and jobs behave identically. It calls graph for
// storage and enqueues work through jobs; it knows nothing of HTTP or MCP.
package orchestrator
