package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/zimmerhq/zimmer/transcript"
)

// stream appends the agent's stdout to the session's transcript file line by line as it
// arrives, and collects the token usage and conversation id the lines report for the monitor
// loop to record.
type stream struct {
	file      *os.File
	sessionID int64
	done      chan struct{} // closed when stdout reached EOF (or was cut off)

	mu       sync.Mutex
	line     int // lines in the file so far: a line's number is stable across re-reads
	usages   []transcript.Usage
	threadID string
	reader   io.Closer
}

func (r *Runner) transcriptPath(sessionID int64) string {
	return filepath.Join(r.opt.DataDir, "transcripts", strconv.FormatInt(sessionID, 10)+".jsonl")
}

// openStream opens the transcript for appending; earlier turns' lines stay and are counted.
func openStream(path string, sessionID int64) (*stream, error) {
	existing, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	return &stream{file: f, sessionID: sessionID, line: bytes.Count(existing, []byte("\n")), done: make(chan struct{})}, nil
}

// writeJSON appends one line Zimmer itself writes (the turn marker).
func (s *stream) writeJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode transcript line: %w", err)
	}
	return s.append(b)
}

func (s *stream) append(line []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.file.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write transcript: %w", err)
	}
	s.line++
	ev := transcript.Parse(s.sessionID, s.line, line)
	if ev.Usage != nil {
		s.usages = append(s.usages, *ev.Usage)
	}
	if ev.ThreadID != "" {
		s.threadID = ev.ThreadID
	}
	return nil
}

// start copies r into the transcript until EOF, in the background.
func (s *stream) start(r io.ReadCloser) {
	s.mu.Lock()
	s.reader = r
	s.mu.Unlock()
	go s.consume(r)
}

// consume copies r into the transcript until EOF. Lines have no length limit.
func (s *stream) consume(r io.Reader) {
	defer close(s.done)
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimRight(line, "\r\n"); len(line) > 0 {
			_ = s.append(line) // a full disk loses transcript lines, never the turn
		}
		if err != nil {
			return
		}
	}
}

// finish waits up to d for the rest of stdout (a straggler holding the pipe open is cut off),
// then closes the transcript.
func (s *stream) finish(d time.Duration) {
	select {
	case <-s.done:
	case <-time.After(d):
		s.mu.Lock()
		if s.reader != nil {
			_ = s.reader.Close()
		}
		s.mu.Unlock()
		<-s.done
	}
	s.close()
}

func (s *stream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.file.Close()
}

// take hands over the usage read since the last take, and the latest conversation id.
func (s *stream) take() ([]transcript.Usage, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.usages
	s.usages = nil
	return u, s.threadID
}

// giveBack returns usage whose recording failed, to be tried again.
func (s *stream) giveBack(u []transcript.Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.usages = append(u, s.usages...)
}
