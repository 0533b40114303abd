package orchestrator_test

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/transcript"
)

func TestTheTranscriptArchiveTakesTheNewestWithinItsBound(t *testing.T) {
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	if _, err := e.Ops.TranscriptArchive(); !errors.Is(err, orchestrator.ErrNoArchive) {
		t.Fatalf("before the first build: %v", err)
	}
	old := time.Now().Add(-time.Hour)
	for id, body := range map[int64]string{1: strings.Repeat("o", 600), 2: `{"type":"user"}` + "\n", 3: `{"type":"assistant"}` + "\n"} {
		path := transcript.Path(e.DataDir, id)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if id == 1 {
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	st, err := e.Ops.BuildTranscriptArchive(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if st.SessionCount != 2 || st.Skipped != 1 || st.Size == 0 {
		t.Fatalf("the oldest, over the bound, is left out: %+v", st)
	}
	f, info, err := e.Ops.OpenTranscriptArchive()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := zip.NewReader(f, info.Size())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, z := range zr.File {
		names = append(names, z.Name)
		if z.Name == "transcripts/2.jsonl" {
			rc, _ := z.Open()
			data, _ := io.ReadAll(rc)
			rc.Close()
			if string(data) != `{"type":"user"}`+"\n" {
				t.Fatalf("content: %q", data)
			}
		}
	}
	if strings.Join(names, " ") != "transcripts/3.jsonl transcripts/2.jsonl" && strings.Join(names, " ") != "transcripts/2.jsonl transcripts/3.jsonl" {
		t.Fatalf("entries: %v", names)
	}
	if got, err := e.Ops.TranscriptArchive(); err != nil || got != st {
		t.Fatalf("status: %+v %v", got, err)
	}
}

// Whatever reads a transcript back out masks the credentials an agent's output echoed, and the
// offsets a live page follows still count the file's own bytes.
func TestATranscriptIsReadBackWithItsCredentialsMasked(t *testing.T) {
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	const id = 424242
	key := "sk-ant-" + strings.Repeat("A1b2", 10)
	body := `{"type":"assistant","message":{"content":[{"type":"text","text":"the key is ` + key + `"}]}}` + "\n"
	path := transcript.Path(e.DataDir, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	entries, end, err := e.Ops.TranscriptSince(id, 0)
	if err != nil || len(entries) != 1 {
		t.Fatalf("one entry: %v %v", entries, err)
	}
	if got := fmt.Sprint(entries); strings.Contains(got, key) || !strings.Contains(got, "[REDACTED:ANTHROPIC_API_KEY]") {
		t.Errorf("the entry shows %s", got)
	}
	if end != int64(len(body)) {
		t.Errorf("the next read starts at %d, want the file's %d bytes", end, len(body))
	}
}
