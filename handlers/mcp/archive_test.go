package mcp_test

import (
	"archive/zip"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/transcript"
)

func TestGetTranscriptArchiveStatesItsAgeAndWhereToDownloadIt(t *testing.T) {
	t.Parallel()
	e := setup(t)
	contains(t, e.ok(t, "/mcp", "get_transcript_archive", nil), "No transcript archive exists yet. The archive is built every 10 minutes.")
	if r := handlerstest.Do(t, http.DefaultClient, http.MethodGet, e.srv.URL+"/api/v1/transcript_archive/download", nil, "X-API-Key", apiKey); r.Status != http.StatusNotFound {
		t.Fatalf("no archive yet: %d %s", r.Status, r.Raw)
	}
	path := transcript.Path(e.dataDir, 7)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"type":"user"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ops.BuildTranscriptArchive(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	text := e.ok(t, "/mcp", "get_transcript_archive", nil)
	contains(t, text, "## Transcript Archive", "- **Generated At:** ", "- **Age:** ", "(rebuilt every 10 minutes)",
		"- **Session Count:** 1", "- **File Size:** ", " B\n", "- **Download:** "+e.srv.URL+"/api/v1/transcript_archive/download",
		`curl -fSL -H "X-API-Key: $ZIMMER_API_KEY" -o transcripts.zip`)

	// The REST half: the status, and the zip itself.
	st := handlerstest.Do(t, http.DefaultClient, http.MethodGet, e.srv.URL+"/api/v1/transcript_archive/status", nil, "X-API-Key", apiKey)
	if st.Status != http.StatusOK || st.Body["session_count"] != float64(1) {
		t.Fatalf("status: %d %s", st.Status, st.Raw)
	}
	dl := handlerstest.Do(t, http.DefaultClient, http.MethodGet, e.srv.URL+"/api/v1/transcript_archive/download", nil, "X-API-Key", apiKey)
	zr, err := zip.NewReader(strings.NewReader(dl.Raw), int64(len(dl.Raw)))
	if dl.Status != http.StatusOK || dl.Header.Get("Content-Type") != "application/zip" || err != nil ||
		len(zr.File) != 1 || zr.File[0].Name != "transcripts/7.jsonl" {
		t.Fatalf("download: %d %s %v", dl.Status, dl.Header, err)
	}
}
