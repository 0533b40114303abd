// Package queries holds every Cypher statement Zimmer runs, one reviewed file per statement,
// bound to a Go name at build time. Values are always $parameters, never spliced into text.
package queries

import (
	"embed"
	"strings"
)

// Files is every statement file, for the test that binds and EXPLAINs each one.
//
//go:embed *.cypher
var Files embed.FS

// Schema is the constraint and index list; see SchemaStatements.
//
//go:embed schema.cypher
var Schema string

// EnsureCounters creates the id sequences.
//
//go:embed ensure_counters.cypher
var EnsureCounters string

// LockSessionCounter serialises session creates.
//
//go:embed lock_session_counter.cypher
var LockSessionCounter string

// FindSessionByIdempotencyKey finds a replayed create.
//
//go:embed find_session_by_idempotency_key.cypher
var FindSessionByIdempotencyKey string

// TakenSlugs filters slug candidates.
//
//go:embed taken_slugs.cypher
var TakenSlugs string

// SessionExists checks an id.
//
//go:embed session_exists.cypher
var SessionExists string

// InsertSession creates a session node.
//
//go:embed insert_session.cypher
var InsertSession string

// LinkSpawnParent keeps the SPAWNED edge in step with the lineage parent.
//
//go:embed link_spawn_parent.cypher
var LinkSpawnParent string

// EverySessionOnce pages every session for a once-only migration.
//
//go:embed every_session_once.cypher
var EverySessionOnce string

// MarkLineage gives sessions written before them their edges' ids and lineage labels.
//
//go:embed mark_lineage.cypher
var MarkLineage string

// GetSession reads a session by id.
//
//go:embed get_session.cypher
var GetSession string

// ResolveSessionSlug finds the id a slug names.
//
//go:embed resolve_session_slug.cypher
var ResolveSessionSlug string

// LockSession locks and reads a session.
//
//go:embed lock_session.cypher
var LockSession string

// ReplaceSession writes a session's properties.
//
//go:embed replace_session.cypher
var ReplaceSession string

// ListSessions pages through sessions.
//
//go:embed list_sessions.cypher
var ListSessions string

// DeleteSession hard-deletes a session.
//
//go:embed delete_session.cypher
var DeleteSession string

// Ping checks the database answers.
//
//go:embed ping.cypher
var Ping string

// Census counts nodes and relationships and reads the id sequences.
//
//go:embed census.cypher
var Census string

// SchemaStatements splits Schema into its statements, without comment lines.
func SchemaStatements() []string {
	var out []string
	for stmt := range strings.SplitSeq(StripComments(Schema), ";") {
		if stmt = strings.TrimSpace(stmt); stmt != "" {
			out = append(out, stmt)
		}
	}
	return out
}

// StripComments removes whole-line // comments (each file's header).
func StripComments(text string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// MaxSpotPrecedence finds the top of the spot queue.
//
//go:embed max_spot_precedence.cypher
var MaxSpotPrecedence string

// AppendLog writes timeline entries.
//
//go:embed append_log.cypher
var AppendLog string

// ListLogs reads a timeline.
//
//go:embed list_logs.cypher
var ListLogs string

// CountLogs counts a timeline.
//
//go:embed count_logs.cypher
var CountLogs string

// GetLog reads one timeline entry.
//
//go:embed get_log.cypher
var GetLog string

// UpdateLog changes one timeline entry.
//
//go:embed update_log.cypher
var UpdateLog string

// DeleteLog removes one timeline entry.
//
//go:embed delete_log.cypher
var DeleteLog string

// GuardLineageEdge locks and decides a new lineage edge, exactly until commit, and writes a safe
// uncle edge.
//
//go:embed guard_lineage_edge.cypher
var GuardLineageEdge string

// UncleEdge reads one uncle edge.
//
//go:embed uncle_edge.cypher
var UncleEdge string

// SessionProvenance reads a session with its lineage walk, human messages and roster.
//
//go:embed session_provenance.cypher
var SessionProvenance string

// ImportSessions bulk-creates synthetic sessions.
//
//go:embed import_sessions.cypher
var ImportSessions string

// ImportEdges bulk-creates synthetic lineage edges.
//
//go:embed import_edges.cypher
var ImportEdges string

// LineageEdges pages through every lineage edge.
//
//go:embed lineage_edges.cypher
var LineageEdges string

// AwaitIndexes waits for new indexes to come online.
//
//go:embed await_indexes.cypher
var AwaitIndexes string
