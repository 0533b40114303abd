package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// logLevels are the levels a timeline entry may carry.
var logLevels = []string{session.LogInfo, session.LogError, session.LogDebug, session.LogWarning, session.LogVerbose}

// maxLogContent bounds one timeline entry.
const maxLogContent = 100_000

// LogListParams filters and pages a session's timeline; an unknown Level is ignored.
type LogListParams struct {
	Level         string
	Page, PerPage int
}

// ListLogs returns one page of a session's timeline, oldest first.
func (s *Service) ListLogs(ctx context.Context, sessionID int64, p LogListParams) ([]session.LogEntry, Page, error) {
	page, perPage := pageBounds(p.Page, p.PerPage)
	level := ""
	if slices.Contains(logLevels, p.Level) {
		level = p.Level
	}
	list, err := s.store.Logs(ctx, sessionID, level, (page-1)*perPage, perPage)
	if err != nil {
		return nil, Page{}, err
	}
	total, err := s.store.CountLogs(ctx, sessionID, level)
	if err != nil {
		return nil, Page{}, err
	}
	return list, newPage(page, perPage, total), nil
}

// CreateLog adds an entry to a session's timeline; both fields are required.
func (s *Service) CreateLog(ctx context.Context, sessionID int64, level, content *string) (session.LogEntry, error) {
	if err := validLog(level, content, true); err != nil {
		return session.LogEntry{}, err
	}
	e, err := s.store.AddLog(ctx, sessionID, *level, *content)
	return e, logNotFound(err)
}

// GetLog reads one entry of a session's timeline.
func (s *Service) GetLog(ctx context.Context, sessionID int64, id string) (session.LogEntry, error) {
	e, err := s.store.GetLog(ctx, sessionID, id)
	return e, logNotFound(err)
}

// UpdateLog changes an entry's level and/or content (nil leaves it).
func (s *Service) UpdateLog(ctx context.Context, sessionID int64, id string, level, content *string) (session.LogEntry, error) {
	if err := validLog(level, content, false); err != nil {
		return session.LogEntry{}, err
	}
	e, err := s.store.UpdateLog(ctx, sessionID, id, level, content)
	return e, logNotFound(err)
}

// DeleteLog removes one entry of a session's timeline.
func (s *Service) DeleteLog(ctx context.Context, sessionID int64, id string) error {
	return logNotFound(s.store.DeleteLog(ctx, sessionID, id))
}

// validLog checks the fields given; required makes a missing one an error too.
func validLog(level, content *string, required bool) error {
	var msgs []string
	switch {
	case content == nil && required, content != nil && strings.TrimSpace(*content) == "":
		msgs = append(msgs, "Content can't be blank")
	case content != nil && len(*content) > maxLogContent:
		msgs = append(msgs, fmt.Sprintf("Content is too long (maximum is %d characters)", maxLogContent))
	}
	if (level == nil && required) || (level != nil && !slices.Contains(logLevels, *level)) {
		msgs = append(msgs, "Level must be one of "+strings.Join(logLevels, ", "))
	}
	if len(msgs) > 0 {
		return invalid("Validation failed", msgs...)
	}
	return nil
}

// logNotFound names the missing record: the session was resolved before, so it is the entry.
func logNotFound(err error) error {
	if errors.Is(err, graph.ErrNotFound) {
		return &NotFoundError{Message: "Log not found"}
	}
	return err
}
