package orchestrator_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func TestResolveReadsDigitsAsAnIDAndAnythingElseAsASlug(t *testing.T) {
	ops, store := setup(t)
	victim := graphtest.Session(t, store, nil)
	slug, legacy := graphtest.Unique(t, "named"), fmt.Sprint(victim.ID)
	named := graphtest.Session(t, store, func(d *session.Session) { d.Slug = &slug })
	// A legacy slug from before the rule, planted straight through the store: it spells the
	// victim's id, and must never capture it.
	squatter := graphtest.Session(t, store, func(d *session.Session) { d.Slug = &legacy })
	tests := []struct {
		name, key string
		want      int64 // 0: not found
	}{
		{"an id another session's legacy slug spells", fmt.Sprint(victim.ID), victim.ID},
		{"an id with spaces around it", fmt.Sprintf(" %d ", victim.ID), victim.ID},
		{"the squatter by its own id", fmt.Sprint(squatter.ID), squatter.ID},
		{"a slug", slug, named.ID},
		{"an unknown id", "999999999999", 0},
		{"zero", "0", 0},
		{"digits too long for an id", "12345678901234567890", 0},
		{"an unknown slug", graphtest.Unique(t, "nobody"), 0},
		{"nothing", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ops.Resolve(context.Background(), tt.key)
			if tt.want == 0 {
				if !errors.Is(err, orchestrator.ErrNotFound) {
					t.Fatalf("Resolve(%q) = %d, %v; want ErrNotFound", tt.key, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Resolve(%q) = %d, %v; want %d", tt.key, got, err, tt.want)
			}
		})
	}
}
