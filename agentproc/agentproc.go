// Package agentproc is an agent CLI's process on this host as Zimmer records it (its pid is its
// process group): whether it is alive, whether it still works in its session's workspace, and
// ending it. The runner ends the turns it runs with it; the health cleanup ends agents whose
// session no longer runs.
package agentproc

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WorkspaceRoot is a session's workspace under the data directory (ZIMMER_DATA_DIR): its clone
// and the files Zimmer writes beside it.
func WorkspaceRoot(dataDir string, sessionID int64) string {
	return filepath.Join(dataDir, "workspaces", strconv.FormatInt(sessionID, 10))
}

// Alive: the pid exists and is not a zombie (an agent whose worker died is reparented, and its
// new parent may never reap it).
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc to ask: the signal answered
	}
	// The state follows the parenthesised command name, which may itself contain spaces.
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// OwnedBy proves a pid is still an agent of this workspace (its working directory is inside
// it) before it is signalled: a recorded pid may since have been reused by another process.
func OwnedBy(pid int, root string) bool {
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		return false
	}
	return cwd == root || strings.HasPrefix(cwd, root+string(filepath.Separator))
}

// Terminate ends the process group pid leads: SIGTERM, up to grace for it to go, then SIGKILL.
// It reports whether the leader is gone afterwards.
func Terminate(pid int, grace time.Duration) bool {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for Alive(pid) && time.Now().Before(deadline) {
		time.Sleep(25 * time.Millisecond)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	for end := time.Now().Add(time.Second); Alive(pid) && time.Now().Before(end); {
		time.Sleep(25 * time.Millisecond)
	}
	return !Alive(pid)
}
