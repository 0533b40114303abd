package runner

import (
	"context"
	"path/filepath"

	"github.com/zimmerhq/zimmer/session"
)

// CloneForTest runs the runner's git clone of sess into a workspace under root, with environ as
// the environment git starts from.
func CloneForTest(ctx context.Context, environ func() []string, sess *session.Session, root string) error {
	r := &Runner{opt: Options{Environ: environ}}
	return r.clone(ctx, sess, workspace{root: root, clone: filepath.Join(root, "repo")})
}

// CloneWaitDelay is how long a killed clone's pipes are waited for.
const CloneWaitDelay = cloneWaitDelay

// DirSize is the bytes of the regular files under dir, as the workspace budget counts them.
func DirSize(dir string) int64 { return dirSize(dir) }
