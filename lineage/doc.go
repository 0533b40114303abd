// Package lineage walks and renders the session hierarchy: spawn edges (a tree) plus uncle edges
// (an additional senior that queued or interrupted a session), bounded to MaxDepth levels and
// MaxNodes sessions in each direction. It is pure: the graph is reached through Source.
package lineage
