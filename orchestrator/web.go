package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// The web UI's own operations beyond the capture boundaries of capture.go: an edit of a queued
// message and the chat bubble (both capture boundaries too), the transcript as entries a live
// page can continue from, and the change fingerprint its live updates watch.

// Entry points of the web UI's further capture boundaries.
const (
	EntryWebEnqueuedEdited = "web_ui.enqueued_message_edited"
	EntryWebChatBubble     = "web_ui.chat_bubble"
)

// WebEditMessage changes a queued message's content as typed in the browser and records the new
// words as web_ui.enqueued_message_edited: a second record, the first one stays (records are
// immutable). A refused edit records nothing.
func (s *Service) WebEditMessage(ctx context.Context, sessionID, id int64, content string) (*session.Message, error) {
	m, err := s.UpdateMessage(ctx, sessionID, id, MessageUpdateParams{Content: Opt[string]{Set: true, Value: &content}})
	if err != nil {
		return nil, err
	}
	ctx, cancel := afterCommit(ctx)
	defer cancel()
	s.captureHuman(ctx, sessionID, s.webWords(ctx, content, always(EntryWebEnqueuedEdited)), true)
	return m, nil
}

// WebChatBubble starts a router session on a prompt typed into the chat bubble of the page at
// path (genesis web_ui). The agent gets the prompt under a line saying where it was typed; the
// record holds the typed prompt only, since that line is Zimmer's, not the human's.
func (s *Service) WebChatBubble(ctx context.Context, prompt, path string) (Created, error) {
	if _, err := requiredText("Prompt", prompt, session.MaxPrompt); err != nil {
		return Created{}, err
	}
	wrapped := chatContext(path) + prompt
	root := RouterRoot
	cp := CreateParams{AgentRoot: &root, Prompt: &wrapped, ExplicitGenesis: session.GenesisWebUI}
	cp.captured = s.capturing(s.webWords(ctx, prompt, always(EntryWebChatBubble)))
	return s.Create(ctx, cp)
}

// pagePath is what a chat bubble may say about its page: a path of Zimmer's own, nothing else.
var pagePath = regexp.MustCompile(`^/[a-z_]+(/[0-9a-z_-]+){0,3}$`)

func chatContext(path string) string {
	if !pagePath.MatchString(path) {
		path = "(unknown)"
	}
	return fmt.Sprintf("[Zimmer: the human typed this into the chat bubble on the web UI page %s.]\n\n", path)
}

// TranscriptView is the readable end of a session's transcript: its last entries, how many
// earlier ones the window held but were left out, and the byte offset where the read stopped,
// from which a live reader continues (TranscriptSince).
type TranscriptView struct {
	Entries []transcript.Entry
	Earlier int
	End     int64
	Exists  bool // the session has a transcript file
	// Lines is how many lines the file holds, 0 when it is longer than the window read: what
	// a fork's message_index counts.
	Lines int
}

// TranscriptEntries reads the session's transcript (its last maxTranscriptWindow bytes) as
// entries, keeping the last `last` of them (every one when last ≤ 0).
func (s *Service) TranscriptEntries(ctx context.Context, id int64, last int) (TranscriptView, error) {
	if _, err := s.store.GetSession(ctx, id); err != nil {
		return TranscriptView{}, err
	}
	data, end, cut, err := s.transcriptFrom(id, 0, maxTranscriptWindow)
	if errors.Is(err, os.ErrNotExist) {
		return TranscriptView{}, nil
	}
	if err != nil {
		return TranscriptView{}, fmt.Errorf("read transcript of session %d: %w", id, err)
	}
	v := TranscriptView{Entries: transcript.Entries(data), End: end, Exists: true}
	if !cut {
		v.Lines = bytes.Count(data, []byte{'\n'})
	}
	if last > 0 && len(v.Entries) > last {
		v.Earlier = len(v.Entries) - last
		v.Entries = v.Entries[v.Earlier:]
	}
	return v, nil
}

// maxTranscriptStep bounds what one TranscriptSince call reads.
const maxTranscriptStep = 1 << 20

// TranscriptSince reads the entries written to session id's transcript after byte offset from
// (complete lines only) and the offset to continue from. A file shorter than from was replaced,
// so it is read again from its start; no file yet is no entries. The caller has resolved id.
func (s *Service) TranscriptSince(id, from int64) ([]transcript.Entry, int64, error) {
	data, end, _, err := s.transcriptFrom(id, from, maxTranscriptStep)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, from, fmt.Errorf("read transcript of session %d: %w", id, err)
	}
	return transcript.Entries(data), end, nil
}

// transcriptFrom is rawTranscriptFrom for a reader that shows or sends the text: an agent's
// output may echo a credential it read, and nothing read back out of a transcript (pages, REST,
// MCP, search, summaries) carries one.
func (s *Service) transcriptFrom(id, from, window int64) (data []byte, end int64, cut bool, err error) {
	data, end, cut, err = s.rawTranscriptFrom(id, from, window)
	if len(data) > 0 {
		data = []byte(transcript.Redact(string(data)))
	}
	return data, end, cut, err
}

// rawTranscriptFrom reads whole lines of session id's transcript from offset from (0 when the
// file is now shorter) to its end, keeping at most the last window bytes, and returns where the
// last whole line ended. When the window starts past from, a transcript.Cut line first says how
// much is left out (and cut is true). Its text is unmasked: only counting readers use it.
func (s *Service) rawTranscriptFrom(id, from, window int64) (data []byte, end int64, cut bool, err error) {
	f, err := s.openTranscript(id)
	if err != nil {
		return nil, from, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, from, false, err
	}
	size := info.Size()
	if from > size {
		from = 0
	}
	start := max(from, size-window)
	data = make([]byte, size-start)
	if _, err := f.ReadAt(data, start); err != nil && err != io.EOF {
		return nil, from, false, err
	}
	if start > from {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:] // the window's first line is partial
		} else {
			data = nil
		}
	}
	last := bytes.LastIndexByte(data, '\n') // a last line without its newline is still being written
	end = size - int64(len(data)) + int64(last) + 1
	data = data[:last+1]
	kept := int64(len(data))
	if start == from {
		return data, end, false, nil
	}
	marker, err := json.Marshal(transcript.Cut{Type: transcript.CutType, Reason: transcript.CutWindow, Bytes: end - from - kept})
	if err != nil {
		return nil, from, false, err
	}
	return append(append(marker, '\n'), data...), end, true, nil
}

// UsageTotals is the session's token ledger summed: its costs so far.
func (s *Service) UsageTotals(ctx context.Context, id int64) (session.UsageTotals, error) {
	return s.store.UsageTotals(ctx, id)
}

// RecentTimeline is the last n lines of the session's timeline (oldest of them first) and how
// many lines it has in all.
func (s *Service) RecentTimeline(ctx context.Context, id int64, n int) ([]session.LogEntry, int, error) {
	return s.store.RecentLogs(ctx, id, n)
}

// ChangeVersion fingerprints everything the live pages show; it differs after any change.
func (s *Service) ChangeVersion(ctx context.Context) (string, error) {
	return s.store.ChangeVersion(ctx)
}
