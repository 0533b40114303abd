package runner

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/transcript"
)

// endless yields n bytes of 'x' then a newline, never holding more than one read's worth.
type endless struct{ n int }

func (r *endless) Read(p []byte) (int, error) {
	if r.n < 0 {
		return 0, io.EOF
	}
	if r.n == 0 {
		p[0], r.n = '\n', -1
		return 1, nil
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = 'x'
	}
	r.n -= k
	return k, nil
}

func TestAnOverlongStdoutLineIsCutWithoutBeingHeld(t *testing.T) {
	const huge = 256 << 20
	path := filepath.Join(t.TempDir(), "1.jsonl")
	s, err := openStream(path, 1, graphtest.Logger())
	if err != nil {
		t.Fatal(err)
	}
	src := io.MultiReader(strings.NewReader(`{"type":"system"}`+"\n"), &endless{n: huge}, strings.NewReader(`{"type":"after"}`+"\n"))
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	s.consume(src)
	goruntime.ReadMemStats(&after)
	s.close()
	grew := after.TotalAlloc - before.TotalAlloc
	t.Logf("streaming a %d MiB line allocated %.1f MiB", huge>>20, float64(grew)/(1<<20))
	if grew > 32<<20 {
		t.Fatalf("a %d MiB line allocated %d MiB while streaming; it must not be buffered whole", huge>>20, grew>>20)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var types []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, transcript.MaxLine+64<<10)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("every kept line is JSON: %v", err)
		}
		types = append(types, m["type"].(string))
		if m["type"] == transcript.CutType && (m["bytes"].(float64) != huge+1 || m["reason"] != transcript.CutLongLine) {
			t.Fatalf("the cut says how long the line was: %v", m)
		}
	}
	if strings.Join(types, ",") != "system,"+transcript.CutType+",after" {
		t.Fatalf("the lines around the cut one are kept: %v (%v)", types, sc.Err())
	}
}

func TestALineOfExactlyTheLimitIsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "1.jsonl")
	s, err := openStream(path, 1, graphtest.Logger())
	if err != nil {
		t.Fatal(err)
	}
	line := `{"t":"` + strings.Repeat("y", transcript.MaxLine-8) + `"}`
	s.consume(strings.NewReader(line + "\r\n"))
	s.close()
	data, _ := os.ReadFile(path)
	if string(data) != line+"\n" {
		t.Fatalf("a %d-byte line is within the limit and kept as written (got %d bytes)", len(line), len(data))
	}
}
