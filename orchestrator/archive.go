package orchestrator

import (
	"archive/zip"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The transcript archive: one zip of every session's transcript, rebuilt by a maintenance job
// (every 10 minutes) into the data directory and streamed to whoever downloads it. It is a bulk
// export, so it is always somewhat stale, and it is bounded: past MaxArchiveInput of
// transcripts the oldest are left out, and the status says how many.

// MaxArchiveInput is how many bytes of transcripts one archive takes, newest first.
const MaxArchiveInput = 4 << 30

// ArchiveEvery is the archive job's cadence, which is also how stale the archive may be.
const ArchiveEvery = 10 * time.Minute

// ErrNoArchive is the answer while no archive has been built yet; it is also ErrNotFound.
var ErrNoArchive = fmt.Errorf("transcript archive %w", ErrNotFound)

// ArchiveStatus describes the current archive.
type ArchiveStatus struct {
	GeneratedAt  time.Time `json:"generated_at"`
	SessionCount int       `json:"session_count"`
	Skipped      int       `json:"skipped"` // transcripts left out to keep it within MaxArchiveInput
	Size         int64     `json:"size"`
}

func (s *Service) archiveDir() string    { return filepath.Join(s.dataDir, "transcript-archive") }
func (s *Service) archivePath() string   { return filepath.Join(s.archiveDir(), "latest.zip") }
func (s *Service) archiveStatus() string { return filepath.Join(s.archiveDir(), "latest.json") }

// BuildTranscriptArchive writes a new archive of the newest transcripts up to limit bytes
// (MaxArchiveInput when zero), file by file without holding one in memory, and swaps it in
// whole: a download in flight keeps reading the archive it opened.
func (s *Service) BuildTranscriptArchive(ctx context.Context, limit int64) (ArchiveStatus, error) {
	limit = cmp.Or(limit, MaxArchiveInput)
	entries, err := os.ReadDir(filepath.Join(s.dataDir, "transcripts"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return ArchiveStatus{}, fmt.Errorf("list transcripts: %w", err)
	}
	type file struct {
		name string
		size int64
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		files = append(files, file{e.Name(), info.Size(), info.ModTime()})
	}
	slices.SortFunc(files, func(a, b file) int { return b.mod.Compare(a.mod) })
	if err := os.MkdirAll(s.archiveDir(), 0o700); err != nil {
		return ArchiveStatus{}, fmt.Errorf("transcript archive: %w", err)
	}
	tmp, err := os.CreateTemp(s.archiveDir(), "building-*.zip")
	if err != nil {
		return ArchiveStatus{}, fmt.Errorf("transcript archive: %w", err)
	}
	defer os.Remove(tmp.Name()) // gone once renamed; removes a half-built one otherwise
	st := ArchiveStatus{GeneratedAt: s.now().UTC()}
	zw := zip.NewWriter(tmp)
	var total int64
	for _, f := range files {
		if ctx.Err() != nil {
			tmp.Close()
			return ArchiveStatus{}, ctx.Err()
		}
		if total+f.size > limit {
			st.Skipped++
			continue
		}
		if err := addToArchive(zw, filepath.Join(s.dataDir, "transcripts", f.name), f.name, f.mod); err != nil {
			s.log.Warn("transcript left out of the archive", "file", f.name, "err", err)
			st.Skipped++
			continue
		}
		total += f.size
		st.SessionCount++
	}
	if err := zw.Close(); err != nil {
		tmp.Close()
		return ArchiveStatus{}, fmt.Errorf("transcript archive: %w", err)
	}
	info, err := tmp.Stat()
	if err == nil {
		st.Size = info.Size()
		err = tmp.Close()
	}
	if err != nil {
		return ArchiveStatus{}, fmt.Errorf("transcript archive: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.archivePath()); err != nil {
		return ArchiveStatus{}, fmt.Errorf("transcript archive: %w", err)
	}
	data, _ := json.Marshal(st)
	if err := os.WriteFile(s.archiveStatus(), data, 0o600); err != nil {
		return ArchiveStatus{}, fmt.Errorf("transcript archive status: %w", err)
	}
	return st, nil
}

func addToArchive(zw *zip.Writer, path, name string, mod time.Time) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "transcripts/" + name, Method: zip.Deflate, Modified: mod})
	if err != nil {
		return err
	}
	_, err = io.Copy(w, f)
	return err
}

// TranscriptArchive is the current archive's status (ErrNoArchive before the first build).
func (s *Service) TranscriptArchive() (ArchiveStatus, error) {
	data, err := os.ReadFile(s.archiveStatus())
	if errors.Is(err, os.ErrNotExist) {
		return ArchiveStatus{}, &NotFoundError{Message: "No transcript archive exists yet", Kind: ErrNoArchive}
	}
	if err != nil {
		return ArchiveStatus{}, fmt.Errorf("transcript archive status: %w", err)
	}
	var st ArchiveStatus
	if err := json.Unmarshal(data, &st); err != nil {
		return ArchiveStatus{}, fmt.Errorf("transcript archive status: %w", err)
	}
	return st, nil
}

// OpenTranscriptArchive opens the current archive for streaming; the caller closes it.
func (s *Service) OpenTranscriptArchive() (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(s.archivePath(), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, &NotFoundError{Message: "No transcript archive exists yet", Kind: ErrNoArchive}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open transcript archive: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open transcript archive: %w", err)
	}
	return f, info, nil
}
