package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
)

// TranscriptRecords is the session's transcript, credentials masked, as its JSON records, oldest
// first, from the window the transcript routes read; a session that never ran, or whose file
// is gone, has none. A line that is not a JSON object (a write cut short) is left out.
func (s *Service) TranscriptRecords(ctx context.Context, id int64) ([]json.RawMessage, error) {
	data, err := s.Transcript(ctx, id)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		if _, err := s.store.GetSession(ctx, id); err != nil {
			return nil, err
		}
		return []json.RawMessage{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []json.RawMessage{}
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] == '{' && json.Valid(line) {
			out = append(out, json.RawMessage(line))
		}
	}
	return out, nil
}
