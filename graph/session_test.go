package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/session"
)

func ptr[T any](v T) *T { return &v }

func TestCreateSessionAssignsSequentialIDsAndDefaultTitle(t *testing.T) {
	store := graphtest.Store(t)
	a := graphtest.Session(t, store, nil)
	b := graphtest.Session(t, store, nil)
	if b.ID <= a.ID {
		t.Fatalf("ids must increase: %d then %d", a.ID, b.ID)
	}
	if got, want := *a.Title, fmt.Sprintf("Session %d", a.ID); got != want {
		t.Fatalf("default title %q, want %q", got, want)
	}
	if a.Metadata["auto_generated_title"] != true {
		t.Fatalf("a default title is marked auto_generated_title, metadata %v", a.Metadata)
	}
	if a.Slug != nil {
		t.Fatalf("an auto-generated title derives no slug, got %q", *a.Slug)
	}
}

func TestCreateSessionRoundTripsEveryField(t *testing.T) {
	store := graphtest.Store(t)
	parent := graphtest.Session(t, store, nil)
	created := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	key := graphtest.Unique(t, "key")
	want := graphtest.Draft()
	want.Title, want.Prompt, want.Goal = ptr("Round trip "+key), ptr("do it"), ptr("a goal")
	want.Subdirectory, want.SessionNotes = ptr("sub/dir"), ptr("notes")
	want.IdempotencyKey, want.ParentSessionID = &key, &parent.ID
	want.SchedulingClass = ptr(session.ClassPriority)
	want.MCPServers, want.CatalogSkills = []string{"a", "b"}, []string{"s"}
	want.Config = map[string]any{"model": "sonnet"}
	want.CustomMetadata = map[string]any{"k": "v", "n": float64(3)}
	want.Precedence, want.HeartbeatInterval, want.AutoCompactWindow = 7, 90, 5000
	want.CreatedAt, want.UpdatedAt = created, created
	out, err := store.CreateSession(context.Background(), want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.GetSession(context.Background(), out.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		field     string
		got, want any
	}{
		{"title", *got.Title, *want.Title}, {"prompt", *got.Prompt, "do it"}, {"goal", *got.Goal, "a goal"},
		{"subdirectory", *got.Subdirectory, "sub/dir"}, {"notes", *got.SessionNotes, "notes"},
		{"idempotency_key", *got.IdempotencyKey, key}, {"parent", *got.ParentSessionID, parent.ID},
		{"class", *got.SchedulingClass, session.ClassPriority}, {"mcp", fmt.Sprint(got.MCPServers), "[a b]"},
		{"skills", fmt.Sprint(got.CatalogSkills), "[s]"}, {"hooks", len(got.CatalogHooks), 0},
		{"model", got.Config["model"], "sonnet"}, {"custom", got.CustomMetadata["n"], float64(3)},
		{"precedence", got.Precedence, int64(7)}, {"heartbeat", got.HeartbeatInterval, int64(90)},
		{"window", got.AutoCompactWindow, int64(5000)}, {"created_at", got.CreatedAt, created},
		{"genesis", got.Genesis, session.GenesisAPI}, {"status", got.Status, session.StatusWaiting},
		{"slug", *got.Slug, session.SlugBase(*want.Title, created)},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.field, c.got, c.want)
		}
	}
}

func TestCreateSessionSlugCollisionsGetSuffixes(t *testing.T) {
	store := graphtest.Store(t)
	title := graphtest.Unique(t, "Same Title")
	created := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	base := session.SlugBase(title, created)
	for i, want := range []string{base, base + "-1", base + "-2"} {
		s := graphtest.Session(t, store, func(d *session.Session) { d.Title = &title; d.CreatedAt = created })
		if s.Slug == nil || *s.Slug != want {
			t.Fatalf("session %d: slug %v, want %q", i, s.Slug, want)
		}
	}
}

func TestCreateSessionRefusesATakenExplicitSlug(t *testing.T) {
	store := graphtest.Store(t)
	slug := graphtest.Unique(t, "taken")
	graphtest.Session(t, store, func(d *session.Session) { d.Slug = &slug; d.Title = ptr("x") })
	_, err := store.CreateSession(context.Background(), func() *session.Session {
		d := graphtest.Draft()
		d.Slug, d.Title = &slug, ptr("y")
		return d
	}())
	if !errors.Is(err, graph.ErrConflict) {
		t.Fatalf("want ErrConflict, got %v", err)
	}
}

func TestCreateSessionWithUnknownParentIsNotFound(t *testing.T) {
	store := graphtest.Store(t)
	d := graphtest.Draft()
	d.ParentSessionID = ptr(int64(9_000_000_000))
	if _, err := store.CreateSession(context.Background(), d); !errors.Is(err, graph.ErrNotFound) {
		t.Fatalf("want ErrNotFound, got %v", err)
	}
}

func TestConcurrentCreatesWithOneIdempotencyKeyMakeOneSession(t *testing.T) {
	store := graphtest.Store(t)
	key := graphtest.Unique(t, "idem")
	const n = 50
	var wg sync.WaitGroup
	ids := make([]int64, n)
	existing := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := graphtest.Draft()
			d.IdempotencyKey = &key
			out, err := store.CreateSession(context.Background(), d)
			errs[i] = err
			if err == nil {
				ids[i], existing[i] = out.Session.ID, out.Existing
			}
		}()
	}
	wg.Wait()
	created := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("create %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Fatalf("create %d returned session %d, create 0 returned %d", i, ids[i], ids[0])
		}
		if !existing[i] {
			created++
		}
	}
	if created != 1 {
		t.Fatalf("exactly one create must report a new session, %d did", created)
	}
}

func TestUpdateSessionIsReadModifyWrite(t *testing.T) {
	store := graphtest.Store(t)
	s := graphtest.Session(t, store, nil)
	key := s.ID
	up, err := store.UpdateSession(context.Background(), key, func(u *session.Session) error {
		u.Title = ptr(graphtest.Unique(t, "Renamed"))
		delete(u.Metadata, "auto_generated_title")
		u.CustomMetadata["x"] = "y"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if up.Slug == nil || up.CustomMetadata["x"] != "y" {
		t.Fatalf("update must store the change and derive a slug from the new title: %+v", up)
	}
	bySlug, err := store.ResolveSlug(context.Background(), *up.Slug)
	if err != nil || bySlug != s.ID {
		t.Fatalf("lookup by the new slug: %v %v", bySlug, err)
	}
	stop := errors.New("refused")
	if _, err := store.UpdateSession(context.Background(), key, func(u *session.Session) error {
		u.Title = ptr("must not land")
		return stop
	}); !errors.Is(err, stop) {
		t.Fatalf("a mutate error is returned unchanged, got %v", err)
	}
	again, _ := store.GetSession(context.Background(), key)
	if *again.Title == "must not land" {
		t.Fatal("a refused update must write nothing")
	}
}

func TestDeleteSessionKeepsChildrenAndClearsTheirPointer(t *testing.T) {
	store := graphtest.Store(t)
	parent := graphtest.Session(t, store, nil)
	child := graphtest.Session(t, store, func(d *session.Session) { d.ParentSessionID = &parent.ID })
	if _, err := store.DeleteSession(context.Background(), parent.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.GetSession(context.Background(), parent.ID); !errors.Is(err, graph.ErrNotFound) {
		t.Fatalf("deleted parent must be gone, got %v", err)
	}
	got, err := store.GetSession(context.Background(), child.ID)
	if err != nil {
		t.Fatalf("child must survive: %v", err)
	}
	if got.ParentSessionID != nil {
		t.Fatalf("child's parent pointer must be cleared, got %d", *got.ParentSessionID)
	}
	if _, err := store.DeleteSession(context.Background(), parent.ID); !errors.Is(err, graph.ErrNotFound) {
		t.Fatalf("deleting twice is ErrNotFound, got %v", err)
	}
}

func TestListSessionsFiltersAndPagesNewestFirst(t *testing.T) {
	store := graphtest.Store(t)
	runtime := graphtest.Unique(t, "rt") // a runtime name no other test uses isolates this listing
	var made []int64
	for i := range 5 {
		s := graphtest.Session(t, store, func(d *session.Session) {
			d.AgentRuntime = runtime
			if i == 4 {
				d.Status = session.StatusArchived
			}
			if i == 3 {
				d.Genesis = session.GenesisWebUI
			}
		})
		made = append(made, s.ID)
	}
	tests := []struct {
		name    string
		filter  graph.SessionFilter
		want    []int64
		wantTot int
	}{
		{"archived sessions are hidden by default", graph.SessionFilter{}, []int64{made[3], made[2], made[1], made[0]}, 4},
		{"show_archived includes them", graph.SessionFilter{ShowArchived: true}, []int64{made[4], made[3], made[2], made[1], made[0]}, 5},
		{"status archived lists only archived", graph.SessionFilter{Status: "archived"}, []int64{made[4]}, 1},
		{"genesis filter", graph.SessionFilter{Genesis: "web_ui"}, []int64{made[3]}, 1},
		{"priority_class is derived from genesis", graph.SessionFilter{PriorityClass: "priority"}, []int64{made[3]}, 1},
		{"second page of two", graph.SessionFilter{Page: 2, PerPage: 2}, []int64{made[1], made[0]}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.filter
			f.AgentRuntime = runtime
			if f.Page == 0 {
				f.Page, f.PerPage = 1, 25
			}
			list, total, err := store.ListSessions(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, s := range list {
				got = append(got, s.ID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || total != tt.wantTot {
				t.Fatalf("got %v (total %d), want %v (total %d)", got, total, tt.want, tt.wantTot)
			}
		})
	}
}
