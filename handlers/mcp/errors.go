package mcp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// toolError is a failure the model reads verbatim and can act on: a bad argument, a missing
// record, something the connection's scope forbids.
type toolError struct{ text string }

func (e *toolError) Error() string { return e.text }

// fail is a toolError with a formatted message.
func fail(format string, a ...any) error { return &toolError{fmt.Sprintf(format, a...)} }

// unavailable is the answer of a tool (or action) whose behaviour belongs to a part of Zimmer
// that does not exist yet: it says what is missing rather than pretending to work.
func unavailable(what, needs string) error {
	return fail("%s is not available yet: it needs %s.", what, needs)
}

// missingFor is the refusal for an argument an action of manage_enqueued_messages or
// manage_categories needs: "message_id" is required for the "get" action.
func missingFor(param, action string) error {
	return fail("%q is required for the %q action.", param, action)
}

// errorText is the one error table of this transport: every foreseeable failure becomes text
// for an isError result; only the unforeseen is logged as an internal error (and still
// answered as a result, never a JSON-RPC -32603).
func (h *Handler) errorText(tool string, err error) string {
	var (
		te  *toolError
		ve  *orchestrator.ValidationError
		nf  *orchestrator.NotFoundError
		tre *session.TransitionError
	)
	switch {
	case errors.As(err, &te):
		return te.text
	case errors.As(err, &ve):
		return ve.Label + ": " + strings.Join(ve.Messages, ", ")
	case errors.As(err, &nf):
		return "Not found: " + nf.Message
	case errors.As(err, &tre):
		return "Invalid state transition: " + tre.Error()
	case errors.Is(err, orchestrator.ErrNotFound):
		return "Not found: " + err.Error()
	case errors.Is(err, orchestrator.ErrConflict):
		return "Conflict: " + err.Error() + ". Another writer changed the same record at the same moment; send the call again."
	}
	h.log.Error("mcp: tool failed unexpectedly", "tool", tool, "err", err)
	return fmt.Sprintf("Internal error calling tool %s: %v", tool, err)
}
