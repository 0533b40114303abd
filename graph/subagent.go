package graph

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// SubagentFilter narrows a session's subagent transcripts; "" matches any.
type SubagentFilter struct {
	Status, SubagentType string
	Skip, Limit          int
}

// InsertSubagentTranscript stores a session's new subagent transcript from props (its fields by
// property name); an agent_id the session already has is ErrConflict, a missing session
// ErrNotFound.
func (s *Store) InsertSubagentTranscript(ctx context.Context, sessionID int64, props map[string]any) (session.SubagentTranscript, error) {
	out, err := write(ctx, s, "insert_subagent_transcript", func(tx txn) (session.SubagentTranscript, error) {
		return subagentRecord(tx.single("insert_subagent_transcript", queries.InsertSubagentTranscript,
			map[string]any{"session_id": sessionID, "props": props, "at": s.now().UTC()}))
	})
	if err != nil {
		return session.SubagentTranscript{}, fmt.Errorf("record subagent transcript of session %d: %w", sessionID, err)
	}
	return out, nil
}

// SubagentTranscript reads one of a session's subagent transcripts, its text only when
// withTranscript (ErrNotFound when the session has none by id).
func (s *Store) SubagentTranscript(ctx context.Context, sessionID, id int64, withTranscript bool) (session.SubagentTranscript, error) {
	out, err := read(ctx, s, "get_subagent_transcript", func(tx txn) (session.SubagentTranscript, error) {
		return subagentRecord(tx.single("get_subagent_transcript", queries.GetSubagentTranscript,
			map[string]any{"session_id": sessionID, "id": id, "with_transcript": withTranscript}))
	})
	if err != nil {
		return session.SubagentTranscript{}, fmt.Errorf("subagent transcript %d of session %d: %w", id, sessionID, err)
	}
	return out, nil
}

// SubagentTranscripts reads one page of a session's subagent transcripts, newest first and
// without their text, and how many match the filter.
func (s *Store) SubagentTranscripts(ctx context.Context, sessionID int64, f SubagentFilter) ([]session.SubagentTranscript, int, error) {
	type page struct {
		list  []session.SubagentTranscript
		total int
	}
	out, err := read(ctx, s, "list_subagent_transcripts", func(tx txn) (page, error) {
		rec, err := tx.single("list_subagent_transcripts", queries.ListSubagentTranscripts, map[string]any{"session_id": sessionID,
			"status": f.Status, "subagent_type": f.SubagentType, "skip": f.Skip, "limit": f.Limit})
		if err != nil {
			return page{}, err
		}
		p := page{total: int(asInt(rec.AsMap()["total"]))}
		for _, raw := range list(rec.AsMap()["rows"]) {
			m, _ := raw.(map[string]any)
			p.list = append(p.list, subagentFrom(m))
		}
		return p, nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("subagent transcripts of session %d: %w", sessionID, err)
	}
	return out.list, out.total, nil
}

// UpdateSubagentTranscript writes props (a nil value removes the field) to one of a session's
// subagent transcripts: ErrNotFound when there is none by id, ErrConflict when the agent_id is
// another of the session's.
func (s *Store) UpdateSubagentTranscript(ctx context.Context, sessionID, id int64, props map[string]any) (session.SubagentTranscript, error) {
	out, err := write(ctx, s, "update_subagent_transcript", func(tx txn) (session.SubagentTranscript, error) {
		return subagentRecord(tx.single("update_subagent_transcript", queries.UpdateSubagentTranscript,
			map[string]any{"session_id": sessionID, "id": id, "props": props, "at": s.now().UTC()}))
	})
	if err != nil {
		return session.SubagentTranscript{}, fmt.Errorf("update subagent transcript %d of session %d: %w", id, sessionID, err)
	}
	return out, nil
}

// DeleteSubagentTranscript removes one of a session's subagent transcripts (ErrNotFound when
// there is none by id).
func (s *Store) DeleteSubagentTranscript(ctx context.Context, sessionID, id int64) error {
	_, err := write(ctx, s, "delete_subagent_transcript", func(tx txn) (*neo4j.Record, error) {
		return tx.single("delete_subagent_transcript", queries.DeleteSubagentTranscript, map[string]any{"session_id": sessionID, "id": id})
	})
	if err != nil {
		return fmt.Errorf("delete subagent transcript %d of session %d: %w", id, sessionID, err)
	}
	return nil
}

// subagentRecord reads a statement's one {t} row.
func subagentRecord(rec *neo4j.Record, err error) (session.SubagentTranscript, error) {
	if err != nil {
		return session.SubagentTranscript{}, err
	}
	m, _ := rec.AsMap()["t"].(map[string]any)
	return subagentFrom(m), nil
}

func subagentFrom(m map[string]any) session.SubagentTranscript {
	return session.SubagentTranscript{ID: asInt(m["id"]), SessionID: asInt(m["session_id"]), AgentID: asString(m["agent_id"]),
		ToolUseID: optString(m["tool_use_id"]), Filename: optString(m["filename"]), SubagentType: optString(m["subagent_type"]),
		Description: optString(m["description"]), Status: optString(m["status"]), MessageCount: optInt(m["message_count"]),
		DurationMS: optInt(m["duration_ms"]), TotalTokens: optInt(m["total_tokens"]), ToolUseCount: optInt(m["tool_use_count"]),
		Transcript: optString(m["transcript"]), CreatedAt: asTime(m["created_at"]), UpdatedAt: asTime(m["updated_at"])}
}
