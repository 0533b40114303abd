package orchestrator_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/zimmerhq/zimmer/githubapi"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/trigger"
)

// fakeGitHub stands in for the GitHub REST API's issue listing.
type fakeGitHub struct {
	mu     sync.Mutex
	issues []map[string]any
	auth   []string // the Authorization header of every request
}

func (f *fakeGitHub) add(number int, title string, pr bool, labels ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ls := make([]any, len(labels))
	for i, l := range labels {
		ls[i] = map[string]any{"name": l}
	}
	issue := map[string]any{"number": number, "title": title, "html_url": "https://github.example/acme/app/issues/" + title,
		"body": "body of " + title, "user": map[string]any{"login": "octo"}, "labels": ls}
	if pr {
		issue["pull_request"] = map[string]any{"url": "x"}
	}
	f.issues = append(f.issues, issue)
}

func (f *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	if r.URL.Path != "/repos/acme/app/issues" || r.URL.Query().Get("state") != "open" {
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		return
	}
	label := r.URL.Query().Get("labels")
	out := []map[string]any{}
	for _, i := range f.issues {
		if label == "" || strings.Contains(strings.ToLower(mustJSON(i["labels"])), `"`+strings.ToLower(label)+`"`) {
			out = append(out, i)
		}
	}
	_ = json.NewEncoder(w).Encode(out)
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestAGitHubLabelPollFiresOncePerLabelledIssueAcrossTwoPollers(t *testing.T) {
	e, _, scope := triggerEnv(t)
	ctx := context.Background()
	gh := &fakeGitHub{}
	srv := httptest.NewServer(gh)
	t.Cleanup(srv.Close)
	const token = "ghp_secret-token-never-shown-0123456789"
	gh.add(1, "already-labelled", false, "Zimmer")
	name, root, tmpl := "label watch", "general-agent", "Fix {{link}} ({{labels}}) "+scope.Text
	created, _, err := e.Ops.CreateTrigger(ctx, orchestrator.TriggerParams{Name: &name, AgentRootName: &root, PromptTemplate: &tmpl,
		Conditions: []orchestrator.ConditionEdit{{Type: trigger.TypeGitHubLabel, Config: map[string]any{"repos": []any{"acme/app"}, "labels": []any{"zimmer"}, "target": "issue"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pollers := []*githubapi.Client{githubapi.New(srv.URL, token), githubapi.New(srv.URL+"/", token)}
	pollBoth := func() int {
		var wg sync.WaitGroup
		counts := make([]int, len(pollers))
		for i, p := range pollers {
			wg.Go(func() {
				n, err := e.Ops.PollGitHub(ctx, p, scope)
				if err != nil {
					t.Error(err)
				}
				counts[i] = n
			})
		}
		wg.Wait()
		return counts[0] + counts[1]
	}
	if n := pollBoth(); n != 0 {
		t.Fatalf("the first poll fired %d times; it baselines what is already labelled", n)
	}
	gh.add(2, "newly-labelled", false, "zimmer", "bug")
	gh.add(3, "other-label", false, "bug")
	gh.add(4, "a-pull-request", true, "zimmer")
	if n := pollBoth(); n != 1 {
		t.Fatalf("two pollers fired %d times for one newly labelled issue; want exactly 1", n)
	}
	if n := pollBoth(); n != 0 {
		t.Fatalf("a later poll fired %d more times", n)
	}
	got, err := e.Store.GetTrigger(ctx, created.ID)
	if err != nil || got.SessionsCreatedCount != 1 || len(got.Burst.SessionIDs) != 1 {
		t.Fatalf("the trigger created %d sessions (%v); want 1", got.SessionsCreatedCount, err)
	}
	s, err := e.Ops.Get(ctx, got.Burst.SessionIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := "Fix https://github.example/acme/app/issues/newly-labelled (zimmer, bug)"; s.Prompt == nil || !strings.HasPrefix(*s.Prompt, want) || s.Genesis != "github_label" {
		t.Fatalf("the spawned session: prompt %v, genesis %s", deref(s.Prompt), s.Genesis)
	}
	for _, a := range gh.auth {
		if a != "Bearer "+token {
			t.Fatalf("a poll sent Authorization %q", a)
		}
	}
}

func TestAGitHubFailureNeverCarriesTheToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom "+r.Header.Get("Authorization"), http.StatusBadGateway)
	}))
	t.Cleanup(srv.Close)
	const token = "ghp_secret-token-never-shown-0123456789"
	for _, base := range []string{srv.URL, "http://127.0.0.1:1"} {
		_, err := githubapi.New(base, token).OpenIssues(context.Background(), "acme/app", "zimmer")
		if err == nil || strings.Contains(err.Error(), token) {
			t.Fatalf("polling %s: %v; want an error without the token", base, err)
		}
	}
}
