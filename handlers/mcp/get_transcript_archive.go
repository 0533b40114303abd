package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/orchestrator"
)

func getTranscriptArchiveTool() *toolDef {
	return &toolDef{name: "get_transcript_archive", group: groupSessions, full: variant{
		description: "Where to download a zip of every session's transcript (a bulk export, hundreds of megabytes, rebuilt " +
			"every 10 minutes — so up to 10 minutes stale). To find a session by something said in it, use " +
			"quick_search_sessions with search_contents instead.",
		schema: newSchema(fields{}),
		run:    runGetTranscriptArchive,
	}}
}

func runGetTranscriptArchive(_ context.Context, c *call) (string, error) {
	st, err := c.h.ops.TranscriptArchive()
	if errors.Is(err, orchestrator.ErrNoArchive) {
		return fmt.Sprintf("No transcript archive exists yet. The archive is built every %d minutes.", int(orchestrator.ArchiveEvery.Minutes())), nil
	}
	if err != nil {
		return "", err
	}
	url := c.base + "/api/v1/transcript_archive/download"
	var b doc
	b.heading(2, "Transcript Archive")
	b.field("Generated At", timestamp(st.GeneratedAt))
	b.field("Age", fmt.Sprintf("%s (rebuilt every %d minutes)", time.Since(st.GeneratedAt).Round(time.Second), int(orchestrator.ArchiveEvery.Minutes())))
	b.field("Session Count", st.SessionCount)
	if st.Skipped > 0 {
		b.field("Left Out", fmt.Sprintf("%d older transcript(s), to keep the archive within %s", st.Skipped, byteSize(orchestrator.MaxArchiveInput)))
	}
	b.field("File Size", byteSize(st.Size))
	b.field("Download", url)
	b.blank()
	b.fence("sh", fmt.Sprintf(`curl -fSL -H "X-API-Key: $ZIMMER_API_KEY" -o transcripts.zip %q`, url))
	return b.String(), nil
}

// byteSize is n in B, KB, MB or GB, one decimal.
func byteSize(n int64) string {
	f, units := float64(n), []string{"B", "KB", "MB", "GB"}
	i := 0
	for ; f >= 1024 && i < len(units)-1; i++ {
		f /= 1024
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}
