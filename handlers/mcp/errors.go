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

// required is the refusal for an argument the named action of a multiplexed tool needs; hint,
// when given, says what to pass.
func required(param, action, hint string) error {
	return fail("The %q parameter is required for the %q action.%s", param, action, hint)
}

// unknownAction is the refusal for an action a multiplexed tool's verb table does not hold.
// The schema's enum, built from the same table, normally refuses it first.
func unknownAction(name string, allowed []string) error {
	return fail("Unknown action %q. Allowed actions: %s", name, strings.Join(allowed, ", "))
}

// sessionNotFound turns a missing session into the tools' "Session not found" sentence.
func sessionNotFound(err error, id int64) error {
	if isNotFound(err) {
		return fail("Session not found: %d", id)
	}
	return err
}

// errorText is the one error table of this transport: every foreseeable failure becomes text
// for an isError result; only the unforeseen is logged as an internal error (and still
// answered as a result, never a JSON-RPC -32603).
func (h *Handler) errorText(c *call, err error) string {
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
	case (errors.Is(err, orchestrator.ErrCategoryNotFound) || errors.Is(err, orchestrator.ErrNotificationNotFound)) && errors.As(err, &nf):
		return nf.Message // "Category #7 not found", "Notification not found: 7" say it already
	case errors.As(err, &nf):
		return "Not found: " + nf.Message
	case errors.Is(err, orchestrator.ErrMessageNotFound):
		id, _ := c.args.integer("message_id")
		return fmt.Sprintf("Enqueued message not found: %d", id)
	case errors.As(err, &tre):
		return "Invalid state transition: " + tre.Error()
	case errors.Is(err, orchestrator.ErrNotFound):
		return "Not found: " + err.Error()
	case errors.Is(err, orchestrator.ErrConflict):
		return "Conflict: " + err.Error() + ". Another writer changed the same record at the same moment; send the call again."
	}
	h.log.Error("mcp: tool failed unexpectedly", "tool", c.name, "err", err)
	return fmt.Sprintf("Internal error calling tool %s: %v", c.name, err)
}
