package mcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

func TestGetConfigsListsWhatASessionCanBeBuiltFrom(t *testing.T) {
	t.Parallel()
	e := setup(t)
	text := e.ok(t, "/mcp?tool_groups=self_session", "get_configs", nil)
	contains(t, text, "## MCP Servers", "- **Name:** `context7`", "## Agent Roots", "### zimmer-router",
		"## Runtime Models", "`gpt-5.6-terra` (default, requires OAuth)", "## Goals", "`open-reviewed-green-pr`", "### Usage Notes")
}

func TestGetConfigsHidesTheRootsAFencedConnectionMayNotUse(t *testing.T) {
	t.Parallel()
	e := setup(t)
	text := e.ok(t, "/mcp?tool_groups=sessions&allowed_agent_roots=zimmer", "get_configs", nil)
	contains(t, text, "### zimmer\n", "restricted to the agent roots listed above")
	for _, hidden := range []string{"### general-agent", "### zimmer-router", "### fleet-maintenance"} {
		if strings.Contains(text, hidden) {
			t.Fatalf("a fenced connection sees %s", hidden)
		}
	}
	// MCP servers are not filtered by the fence.
	contains(t, text, "`zimmer-sessions`")
}

func TestQuickSearchMatchesTitlesAndCanonicalJSONAsOnePhrase(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tag := strings.ReplaceAll(graphtest.Unique(t, "qs"), "-", "")
	titled := e.fixture(t, func(s *session.Session) { s.Title = ptr("Alpha Beta " + tag) })
	meta := e.fixture(t, func(s *session.Session) { s.CustomMetadata = map[string]any{"router_issue": tag} })
	archived := e.fixture(t, func(s *session.Session) {
		s.Title, s.Status = ptr("gone "+tag), session.StatusArchived
	})
	search := func(args map[string]any) string { return e.ok(t, "/mcp", "quick_search_sessions", args) }
	cases := []struct {
		name      string
		args      map[string]any
		want      []int64
		wantCount int
	}{
		{"a title substring, case-insensitive", map[string]any{"query": strings.ToUpper(tag)}, []int64{meta.ID, titled.ID}, 2},
		{"a phrase: words adjacent and in order", map[string]any{"query": "alpha beta " + tag}, []int64{titled.ID}, 1},
		{"the words in another order are another phrase", map[string]any{"query": "beta alpha " + tag}, nil, 0},
		{"compact JSON spelling", map[string]any{"query": `"router_issue":"` + tag + `"`}, []int64{meta.ID}, 1},
		{"spaced JSON spelling finds the same", map[string]any{"query": `"router_issue": "` + tag + `"`}, []int64{meta.ID}, 1},
		{"archived sessions only on request", map[string]any{"query": tag, "show_archived": true}, []int64{archived.ID, meta.ID, titled.ID}, 3},
		{"naming archived in status includes them", map[string]any{"query": tag, "status": "archived"}, []int64{archived.ID}, 1},
		{"status as an array is any-of", map[string]any{"query": tag, "status": []any{"archived", "waiting"}}, []int64{archived.ID, meta.ID, titled.ID}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := search(c.args)
			if c.wantCount == 0 {
				contains(t, text, "No sessions found matching the specified criteria.")
				return
			}
			contains(t, text, fmt.Sprintf("Found %d session(s) (page 1 of 1):", c.wantCount))
			last := -1
			for _, id := range c.want {
				at := strings.Index(text, fmt.Sprintf("(ID: %d)", id))
				if at < 0 || at < last {
					t.Fatalf("want #%d, newest first, in:\n%s", id, text)
				}
				last = at
			}
		})
	}
}

func TestQuickSearchRowsAreCompactAndSayWhatTheyOmit(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tag := graphtest.Unique(t, "rows")
	e.fixture(t, func(s *session.Session) {
		s.Title, s.Prompt, s.Slug = ptr("Row "+tag), ptr(strings.Repeat("p", 150)), ptr(tag)
		s.Metadata[session.MetaPausedBy] = "user"
		s.Visibility = "hidden"
	})
	compact := e.ok(t, "/mcp", "quick_search_sessions", map[string]any{"query": tag})
	contains(t, compact, "- **Status:** waiting", "- **Paused:** by user", "- **Visibility:** hidden", "- **Genesis:** api (spot)",
		"- **Precedence:** 0", "- **Created:**", "- **Updated:**",
		"Compact rows omit six fields — slug, category, repository, branch, the prompt preview and the MCP server list",
		"`verbose: true`", "`get_session`")
	for _, omitted := range []string{"**Slug:**", "**Repository:**", "**Branch:**", "**Prompt:**", "**MCP Servers:**"} {
		if strings.Contains(compact, omitted) {
			t.Fatalf("a compact row carries %s", omitted)
		}
	}
	verbose := e.ok(t, "/mcp", "quick_search_sessions", map[string]any{"query": tag, "verbose": true})
	contains(t, verbose, "- **Slug:** "+tag, "- **Repository:** file:///tmp/repo", "- **Branch:** main",
		"- **Prompt:** "+strings.Repeat("p", 100)+"...", "- **MCP Servers:** (none)")
	if strings.Contains(verbose, "Compact rows omit") {
		t.Fatal("verbose rows omit nothing")
	}
}

func TestQuickSearchPagesAndRefusesBadFilters(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tag := graphtest.Unique(t, "page")
	for range 3 {
		e.fixture(t, func(s *session.Session) { s.Title = ptr("Paged " + tag) })
	}
	first := e.ok(t, "/mcp", "quick_search_sessions", map[string]any{"query": tag, "per_page": 2})
	contains(t, first, "Found 3 session(s) (page 1 of 2):", "*More sessions available. Use page=2 to see the next page.*")
	second := e.ok(t, "/mcp", "quick_search_sessions", map[string]any{"query": tag, "per_page": 2, "page": 2})
	contains(t, second, "(page 2 of 2)")
	e.refused(t, "/mcp", "quick_search_sessions", map[string]any{"status": "sleeping"},
		"Invalid status: sleeping. Valid statuses: running, waiting, needs_input, archived, failed")
	e.refused(t, "/mcp", "quick_search_sessions", map[string]any{"id": 999999999}, "Session not found: 999999999")
	none := e.ok(t, "/mcp", "quick_search_sessions", map[string]any{"query": "no-such-" + tag})
	contains(t, none, "No sessions found", "pass show_archived: true")
}

func TestQuickSearchByIDShortCircuits(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.fixture(t, nil)
	text := e.ok(t, "/mcp", "quick_search_sessions", map[string]any{"id": s.ID, "query": "ignored", "status": "failed"})
	contains(t, text, "## Session Found", fmt.Sprintf("(ID: %d)", s.ID))
}

func TestContentScanIsBoundedAndResumable(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tag := graphtest.Unique(t, "scan")
	var ids []int64
	for range 3 {
		// hidden + pi keeps the candidate set to this test's sessions in a shared database.
		s := e.fixture(t, func(s *session.Session) { s.Title, s.Visibility, s.AgentRuntime = ptr("Scan "+tag), "hidden", "pi" })
		ids = append(ids, s.ID)
	}
	args := map[string]any{"query": tag, "search_contents": true, "per_page": 2, "visibility": "hidden", "agent_runtime": "pi"}
	first := e.ok(t, "/mcp", "quick_search_sessions", args)
	contains(t, first, "Found 2 matching session(s) in this pass, newest first. A content scan reports no total count.",
		fmt.Sprintf("(ID: %d)", ids[2]), fmt.Sprintf("(ID: %d)", ids[1]), "**Scan incomplete:**", "because it reached per_page (2) matches",
		`"not found yet", not "not there"`, "**Transcripts read:** 0, for")
	cursor := between(first, "`scan_cursor: \"", "\"`")
	args["scan_cursor"] = cursor
	second := e.ok(t, "/mcp", "quick_search_sessions", args)
	contains(t, second, fmt.Sprintf("(ID: %d)", ids[0]))
	if strings.Contains(second, fmt.Sprintf("(ID: %d)", ids[1])) {
		t.Fatal("a resumed scan must continue below where it stopped")
	}
	args["query"] = "another " + tag
	e.refused(t, "/mcp", "quick_search_sessions", args, "Invalid scan_cursor: it was issued for a different query or filters")
	args["scan_cursor"] = "garbage"
	e.refused(t, "/mcp", "quick_search_sessions", args, "Invalid scan_cursor")
}

// between is the text after open and before the next close.
func between(s, open, close string) string {
	_, after, ok := strings.Cut(s, open)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, close)
	return v
}

func ptr[T any](v T) *T { return &v }

// writeTranscript gives a session the one-line transcript a run would have left, in which the
// agent says phrase, and records its path as the runner does.
func (e *env) writeTranscript(t *testing.T, s *session.Session, phrase string) (path, line string) {
	t.Helper()
	path = transcript.Path(e.dataDir, s.ID)
	line = fmt.Sprintf(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I found that %s, as asked."}]}}`, phrase)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.UpdateSession(context.Background(), s.ID, func(u *session.Session) error {
		u.Metadata[session.MetaTranscriptPath] = path
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return path, line
}

func TestGetSessionInlinesTheTranscriptOnRequest(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.fixture(t, nil)
	path, line := e.writeTranscript(t, s, "the build is green")
	contains(t, e.ok(t, "/mcp", "get_session", map[string]any{"id": s.ID}), "### Transcript File", path)
	contains(t, e.ok(t, "/mcp", "get_session", map[string]any{"id": s.ID, "include_transcript": true}), "### Transcript", "I found that the build is green, as asked.")
	contains(t, e.ok(t, "/mcp", "get_session", map[string]any{"id": s.ID, "include_transcript": true, "transcript_format": "json"}), line)
	never := e.fixture(t, nil)
	contains(t, e.ok(t, "/mcp", "get_session", map[string]any{"id": never.ID, "include_transcript": true}), "No transcript available for this session.")
}

func TestContentScanFindsWhatWasSaidMidConversation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	phrase := graphtest.Unique(t, "said only in the transcript")
	ran := e.fixture(t, func(s *session.Session) {
		s.Title, s.Visibility, s.AgentRuntime = ptr("Ran "+phrase[:8]), "snoozed", "codex"
	})
	e.writeTranscript(t, ran, phrase)
	e.fixture(t, func(s *session.Session) { s.Visibility, s.AgentRuntime = "snoozed", "codex" }) // never ran
	args := map[string]any{"query": strings.ToUpper(phrase), "visibility": "snoozed", "agent_runtime": "codex"}
	contains(t, e.ok(t, "/mcp", "quick_search_sessions", args), "No sessions found")
	args["search_contents"] = true
	text := e.ok(t, "/mcp", "quick_search_sessions", args)
	contains(t, text, fmt.Sprintf("(ID: %d)", ran.ID), "**Scan complete:**")
	if read := between(text, "**Transcripts read:** ", ","); read == "0" {
		t.Fatalf("the scan must read the transcript it matched:\n%s", text)
	}
}
