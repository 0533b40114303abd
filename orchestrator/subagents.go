package orchestrator

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// Bounds of a subagent transcript's fields; the transcript itself is bounded by the request.
const (
	maxSubagentField       = 255
	maxSubagentDescription = 10_000
)

// SubagentFields are a subagent transcript's fields as a create or an update sends them: Set
// says a field was sent, a nil Value clears it. A create needs AgentID.
type SubagentFields struct {
	AgentID, ToolUseID, Filename, SubagentType, Description, Status, Transcript Opt[string]
	MessageCount, DurationMS, TotalTokens, ToolUseCount                         Opt[int64]
}

// SubagentListParams filter and page a session's subagent transcripts; "" matches any.
type SubagentListParams struct {
	Status, SubagentType string
	Page, PerPage        int
}

// CreateSubagentTranscript records one sub-agent of a session; its transcript is stored redacted.
func (s *Service) CreateSubagentTranscript(ctx context.Context, sessionID int64, f SubagentFields) (session.SubagentTranscript, error) {
	if err := f.validate(true); err != nil {
		return session.SubagentTranscript{}, err
	}
	t, err := s.store.InsertSubagentTranscript(ctx, sessionID, f.props())
	return t, subagentErr(err)
}

// SubagentTranscript reads one of a session's subagent transcripts, with its text when asked.
func (s *Service) SubagentTranscript(ctx context.Context, sessionID int64, id string, withTranscript bool) (session.SubagentTranscript, error) {
	n, err := subagentID(id)
	if err != nil {
		return session.SubagentTranscript{}, err
	}
	t, err := s.store.SubagentTranscript(ctx, sessionID, n, withTranscript)
	return t, subagentErr(err)
}

// ListSubagentTranscripts returns one page of a session's subagent transcripts, newest first,
// without their text.
func (s *Service) ListSubagentTranscripts(ctx context.Context, sessionID int64, p SubagentListParams) ([]session.SubagentTranscript, Page, error) {
	page, perPage := pageBounds(p.Page, p.PerPage)
	list, total, err := s.store.SubagentTranscripts(ctx, sessionID, graph.SubagentFilter{Status: p.Status,
		SubagentType: p.SubagentType, Skip: (page - 1) * perPage, Limit: perPage})
	if err != nil {
		return nil, Page{}, err
	}
	return list, newPage(page, perPage, total), nil
}

// UpdateSubagentTranscript writes the fields sent; a new transcript is stored redacted.
func (s *Service) UpdateSubagentTranscript(ctx context.Context, sessionID int64, id string, f SubagentFields) (session.SubagentTranscript, error) {
	n, err := subagentID(id)
	if err != nil {
		return session.SubagentTranscript{}, err
	}
	if err := f.validate(false); err != nil {
		return session.SubagentTranscript{}, err
	}
	t, err := s.store.UpdateSubagentTranscript(ctx, sessionID, n, f.props())
	return t, subagentErr(err)
}

// DeleteSubagentTranscript removes one of a session's subagent transcripts.
func (s *Service) DeleteSubagentTranscript(ctx context.Context, sessionID int64, id string) error {
	n, err := subagentID(id)
	if err != nil {
		return err
	}
	return subagentErr(s.store.DeleteSubagentTranscript(ctx, sessionID, n))
}

// validate checks the fields sent; create makes agent_id required.
func (f SubagentFields) validate(create bool) error {
	var bad problems
	if create || f.AgentID.Set {
		if f.AgentID.Value == nil || strings.TrimSpace(*f.AgentID.Value) == "" {
			bad.add("Agent can't be blank")
		}
	}
	for name, v := range map[string]*string{"Agent": f.AgentID.Value, "Tool use": f.ToolUseID.Value,
		"Filename": f.Filename.Value, "Subagent type": f.SubagentType.Value} {
		tooLong(&bad, name, v, maxSubagentField)
	}
	tooLong(&bad, "Description", f.Description.Value, maxSubagentDescription)
	if v := f.Status.Value; v != nil && !slices.Contains(session.SubagentStatuses, *v) {
		bad.add("Status must be one of " + strings.Join(session.SubagentStatuses, ", "))
	}
	for name, v := range map[string]*int64{"Message count": f.MessageCount.Value, "Duration ms": f.DurationMS.Value,
		"Total tokens": f.TotalTokens.Value, "Tool use count": f.ToolUseCount.Value} {
		if v != nil && *v < 0 {
			bad.add(name + " must be greater than or equal to 0")
		}
	}
	slices.Sort(bad) // the maps above are walked in no order
	return bad.err("Validation failed")
}

// props are the sent fields by property name (nil clears one); the transcript goes in redacted.
func (f SubagentFields) props() map[string]any {
	out := map[string]any{}
	for name, o := range map[string]Opt[string]{"agent_id": f.AgentID, "tool_use_id": f.ToolUseID, "filename": f.Filename,
		"subagent_type": f.SubagentType, "description": f.Description, "status": f.Status, "transcript": f.Transcript} {
		if !o.Set {
			continue
		}
		switch {
		case o.Value == nil:
			out[name] = nil
		case name == "transcript":
			out[name] = transcript.Redact(*o.Value)
		default:
			out[name] = *o.Value
		}
	}
	for name, o := range map[string]Opt[int64]{"message_count": f.MessageCount, "duration_ms": f.DurationMS,
		"total_tokens": f.TotalTokens, "tool_use_count": f.ToolUseCount} {
		if !o.Set {
			continue
		}
		out[name] = nil
		if o.Value != nil {
			out[name] = *o.Value
		}
	}
	return out
}

// subagentID reads a route's transcript id; anything but an integer names none.
func subagentID(id string) (int64, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return 0, &NotFoundError{Message: "Subagent transcript not found"}
	}
	return n, nil
}

// subagentErr names what went wrong in the transcript's terms: the session was resolved before,
// so a missing record is the transcript.
func subagentErr(err error) error {
	switch {
	case errors.Is(err, graph.ErrConflict):
		return invalid("Validation failed", "Agent has already been taken")
	case errors.Is(err, graph.ErrNotFound):
		return &NotFoundError{Message: "Subagent transcript not found"}
	}
	return err
}
