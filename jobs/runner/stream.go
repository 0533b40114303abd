package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/zimmerhq/zimmer/transcript"
)

// stream appends the agent's stdout to the session's transcript file line by line as it
// arrives, and collects the token usage and conversation id the lines report for the monitor
// loop to record.
type stream struct {
	file      *os.File
	sessionID int64
	log       *slog.Logger
	done      chan struct{} // closed when stdout reached EOF (or was cut off)

	mu       sync.Mutex
	line     int // lines in the file so far: a line's number is stable across re-reads
	usages   []transcript.Usage
	threadID string
	lastErr  string // the last failure the runtime reported in its stream
	mcp      []transcript.MCPStatus
	reader   io.Closer
}

func (r *Runner) transcriptPath(sessionID int64) string {
	return transcript.Path(r.opt.DataDir, sessionID)
}

// openStream opens the transcript (0600, never through a link) for appending; earlier turns'
// lines stay and are counted.
func openStream(path string, sessionID int64, log *slog.Logger) (*stream, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	lines, err := countLines(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	return &stream{file: f, sessionID: sessionID, log: log, line: lines, done: make(chan struct{})}, nil
}

// countLines counts r's newlines a buffer at a time.
func countLines(r io.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n := 0
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte("\n"))
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
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
	if ev.Error != "" {
		s.lastErr = ev.Error
	}
	s.mcp = append(s.mcp, ev.MCP...)
	return nil
}

// start copies r into the transcript until EOF, in the background.
func (s *stream) start(r io.ReadCloser) {
	s.mu.Lock()
	s.reader = r
	s.mu.Unlock()
	go s.consume(r)
}

// consume copies r into the transcript until EOF. A line longer than transcript.MaxLine is
// never held whole: the rest of it is read and dropped, and a Cut line stands in for it.
func (s *stream) consume(r io.Reader) {
	defer close(s.done)
	br := bufio.NewReaderSize(r, 64*1024)
	var line []byte
	var size int64 // the current line's full length, kept or not
	for {
		chunk, err := br.ReadSlice('\n')
		size += int64(len(chunk))
		if len(line) <= transcript.MaxLine {
			line = append(line, chunk[:min(len(chunk), transcript.MaxLine+1-len(line))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		s.keep(line, size)
		line, size = line[:0], 0
		if err != nil {
			return
		}
	}
}

// keep appends one complete line, or the Cut that stands for it when it was too long.
func (s *stream) keep(line []byte, size int64) {
	if line = bytes.TrimRight(line, "\r\n"); len(line) > transcript.MaxLine {
		head := bytes.ToValidUTF8(line[:cutHead], nil)
		s.log.Warn("an agent output line was too long for the transcript and was cut", "session_id", s.sessionID,
			"bytes", size, "max", transcript.MaxLine)
		_ = s.writeJSON(transcript.Cut{Type: transcript.CutType, Reason: transcript.CutLongLine, Bytes: size, Head: string(head)})
		return
	}
	if len(line) > 0 {
		_ = s.append(line) // a full disk loses transcript lines, never the turn
	}
}

// cutHead is how much of a cut line the Cut keeps.
const cutHead = 1024

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

// takeMCP hands over the MCP servers' states reported since the last take.
func (s *stream) takeMCP() []transcript.MCPStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.mcp
	s.mcp = nil
	return out
}

// reportedError is the last failure the runtime reported in this turn's output ("" if none).
func (s *stream) reportedError() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// giveBack returns usage whose recording failed, to be tried again.
func (s *stream) giveBack(u []transcript.Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.usages = append(u, s.usages...)
}
