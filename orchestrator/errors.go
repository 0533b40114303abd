package orchestrator

import (
	"errors"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
)

// Sentinels callers branch on. Storage sentinels pass through from graph.
var (
	ErrInvalid  = errors.New("invalid request")
	ErrNotFound = graph.ErrNotFound
	ErrConflict = graph.ErrConflict
)

// ValidationError is bad input, with every problem found (not just the first) and a short label.
type ValidationError struct {
	Label    string // e.g. "Validation failed", "Invalid agent_root", "Cannot trash"
	Messages []string
}

func (e *ValidationError) Error() string { return e.Label + ": " + strings.Join(e.Messages, ", ") }

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *ValidationError) Unwrap() error { return ErrInvalid }

func invalid(label string, messages ...string) error {
	return &ValidationError{Label: label, Messages: messages}
}

// problems collects validation messages.
type problems []string

func (p *problems) add(msg string) { *p = append(*p, msg) }

func (p problems) err(label string) error {
	if len(p) == 0 {
		return nil
	}
	return &ValidationError{Label: label, Messages: p}
}

// NotFoundError is a missing record with a message that says exactly what is missing.
type NotFoundError struct {
	Message string
	// Kind is a narrower sentinel a caller branches on (ErrCategoryNotFound); nil means ErrNotFound.
	Kind error
}

func (e *NotFoundError) Error() string { return e.Message }

// Unwrap makes errors.Is(err, ErrNotFound) true, and errors.Is(err, e.Kind) when Kind is set.
func (e *NotFoundError) Unwrap() error {
	if e.Kind != nil {
		return e.Kind
	}
	return ErrNotFound
}
