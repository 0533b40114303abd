package graphtest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/zimmerhq/zimmer/graph"
)

// Fuzzing reports whether the test binary runs under `go test -fuzz`. devtools/test.sh fuzzes
// after every package has run, one worker at a time, so the fuzz target is then the only writer
// on the test database and a whole-graph Census before and after a request is exact. In a plain
// `go test ./...` other packages write concurrently, and only the fingerprint of the records
// the fuzz harness owns is exact.
func Fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// Fingerprint is what a refused request must leave unchanged: the sessions the harness owns
// (every property), their enqueued messages and their human-message record, plus, while
// fuzzing, the whole graph's Census (see Fuzzing).
func Fingerprint(t testing.TB, s *graph.Store, ids ...int64) string {
	t.Helper()
	out := Records(t, s, ids...)
	if Fuzzing() {
		c, err := s.Census(context.Background())
		if err != nil {
			t.Fatalf("fingerprint: %v", err)
		}
		out += fmt.Sprintf(" census %+v", c)
	}
	return out
}

// Records is the sessions' part of a Fingerprint.
func Records(t testing.TB, s *graph.Store, ids ...int64) string {
	t.Helper()
	ctx := context.Background()
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var parts []any
	for _, id := range ids {
		sess, err := s.GetSession(ctx, id)
		if err != nil {
			parts = append(parts, map[string]any{"id": id, "missing": err.Error()})
			continue
		}
		msgs, _, err := s.ListMessages(ctx, id, "", 0, 1000)
		if err != nil {
			t.Fatalf("fingerprint: messages of %d: %v", id, err)
		}
		parts = append(parts, sess, msgs)
	}
	human, err := s.HumanMessages(ctx, ids)
	if err != nil {
		t.Fatalf("fingerprint: human messages: %v", err)
	}
	parts = append(parts, human)
	out, err := json.Marshal(parts)
	if err != nil {
		t.Fatalf("fingerprint: %v", err)
	}
	return string(out)
}

// LogRecorder keeps what a logger wrote (slog's text format), so a test can assert that a
// recovery path never fired.
type LogRecorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// NewLogRecorder is a debug-level logger writing into the returned recorder.
func NewLogRecorder() (*slog.Logger, *LogRecorder) {
	r := &LogRecorder{}
	return slog.New(slog.NewTextHandler(r, &slog.HandlerOptions{Level: slog.LevelDebug})), r
}

func (r *LogRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.Write(p)
}

// Take returns what was logged since the last Take and forgets it.
func (r *LogRecorder) Take() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.buf.String()
	r.buf.Reset()
	return out
}
