package catalog

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Source hands out the catalog to read now. A caller takes one snapshot per operation (a turn
// keeps the one it started with) and never holds it across operations: a Live source swaps in a
// reloaded catalog whenever its files change. A *Catalog is a Source that never changes.
type Source interface {
	Current() *Catalog
}

// Current is the catalog itself: a loaded catalog is a Source that never reloads.
func (c *Catalog) Current() *Catalog { return c }

// Live is a catalog folder that reloads when its files change. A reload that fails keeps the
// last catalog that loaded, and says why in the log.
type Live struct {
	dir  string
	log  *slog.Logger
	cur  atomic.Pointer[Catalog]
	seen string // the files' fingerprint when cur was loaded; touched only by Reload's caller
}

// NewLive loads dir (ZIMMER_CATALOG_DIR); "" is the built-in catalog, which never changes.
func NewLive(dir string, log *slog.Logger) (*Live, error) {
	l := &Live{dir: dir, log: log}
	l.seen = l.fingerprint()
	c, err := Load(dir)
	if err != nil {
		return nil, err
	}
	l.logWarnings(c)
	l.cur.Store(c)
	return l, nil
}

// Current is the catalog as last loaded.
func (l *Live) Current() *Catalog { return l.cur.Load() }

// Watch polls the folder's files every interval until ctx ends, reloading when one changed.
func (l *Live) Watch(ctx context.Context, every time.Duration) {
	if l.dir == "" {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.Reload()
		}
	}
}

// Reload loads the folder again if any of its files changed since the last load, and swaps the
// result in; it reports whether it swapped. Not safe to call concurrently with itself.
func (l *Live) Reload() bool {
	fp := l.fingerprint()
	if fp == l.seen {
		return false
	}
	l.seen = fp
	c, err := Load(l.dir)
	if err != nil {
		l.log.Error("catalog changed but does not load; keeping the previous one", "dir", l.dir, "err", err)
		return false
	}
	l.logWarnings(c)
	l.cur.Store(c)
	l.log.Info("catalog reloaded", "dir", l.dir, "mcp_servers", len(c.MCPServers), "roots", len(c.Roots))
	return true
}

func (l *Live) logWarnings(c *Catalog) {
	for _, w := range c.Warnings {
		l.log.Warn("catalog", "warning", w)
	}
}

// fingerprint is each catalog file's size and modification time ("-" when absent), skill
// folders included: a changed, added or removed file changes it.
func (l *Live) fingerprint() string {
	if l.dir == "" {
		return ""
	}
	var b strings.Builder
	for _, name := range slices.Concat(requiredFiles, optionalFiles) {
		info, err := os.Stat(filepath.Join(l.dir, name))
		if err != nil {
			fmt.Fprintf(&b, "%s:-;", name)
			continue
		}
		fmt.Fprintf(&b, "%s:%d:%d;", name, info.Size(), info.ModTime().UnixNano())
	}
	// Skill folders are part of the catalog too: an edited SKILL.md reaches the next prepare.
	_ = filepath.WalkDir(filepath.Join(l.dir, skillsDir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil {
			fmt.Fprintf(&b, "%s:%d:%d;", p, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}
