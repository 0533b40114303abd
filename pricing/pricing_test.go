package pricing

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/session"
)

func TestPriceChargesEachKindOfTokenAtItsListPrice(t *testing.T) {
	table := Default()
	for _, tc := range []struct {
		name   string
		model  string
		counts session.TokenCounts
		want   Cost
		priced bool
	}{
		{"input and output at the family's rates", "claude-opus-4-5", session.TokenCounts{InputTokens: 1_000_000, OutputTokens: 1_000_000},
			Cost{Input: 5, Output: 25, Total: 30}, true},
		{"cache reads at a tenth of input", "claude-sonnet-4-5", session.TokenCounts{CacheReadTokens: 1_000_000},
			Cost{CacheRead: 0.3, Total: 0.3}, true},
		{"5-minute writes at 1.25x and 1-hour writes at 2x input", "claude-haiku-4-5",
			session.TokenCounts{CacheCreationTokens: 3_000_000, CacheCreation5mTokens: 1_000_000, CacheCreation1hTokens: 2_000_000},
			Cost{CacheWrite: 1.25 + 4, Total: 5.25}, true},
		{"cache writes without the split are priced as 1-hour writes", "claude-haiku-4-5",
			session.TokenCounts{CacheCreationTokens: 1_000_000}, Cost{CacheWrite: 2, Total: 2}, true},
		{"web searches at $10 per thousand, fetches free", "claude-opus-4-5", session.TokenCounts{WebSearchRequests: 3, WebFetchRequests: 7},
			Cost{WebSearch: 0.03, Total: 0.03}, true},
		{"the longest family name wins", "mythos-opus-hybrid", session.TokenCounts{InputTokens: 1_000_000}, Cost{Input: 10, Total: 10}, true},
		{"a model without a rate costs nothing and says so", "gpt-5-codex", session.TokenCounts{InputTokens: 1_000_000, OutputTokens: 5},
			Cost{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, priced := table.Price(tc.model, tc.counts)
			if priced != tc.priced || !near(got, tc.want) {
				t.Errorf("Price(%q, %+v) = %+v priced=%v, want %+v priced=%v", tc.model, tc.counts, got, priced, tc.want, tc.priced)
			}
		})
	}
}

func near(a, b Cost) bool {
	eq := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	return eq(a.Input, b.Input) && eq(a.Output, b.Output) && eq(a.CacheRead, b.CacheRead) && eq(a.CacheWrite, b.CacheWrite) &&
		eq(a.WebSearch, b.WebSearch) && eq(a.WebFetch, b.WebFetch) && eq(a.Total, b.Total)
}

func TestACatalogFolderPriceListReplacesTheBuiltInOne(t *testing.T) {
	dir := t.TempDir()
	if tab, err := Load(dir); err != nil || tab.Source != "built in" {
		t.Fatalf("a folder without prices.json: %v, %v; want the built-in list", tab, err)
	}
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"models": {"gpt-5": {"input": 1.25, "output": 10, "cache_read": 0.125}}, "multipliers": {"cache_write_1h": 2}}`)
	tab, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, priced := tab.Price("gpt-5-codex", session.TokenCounts{InputTokens: 1e6, CacheReadTokens: 1e6, CacheCreationTokens: 1e6})
	if want := (Cost{Input: 1.25, CacheRead: 0.125, CacheWrite: 2.5, Total: 3.875}); !priced || !near(got, want) {
		t.Errorf("overridden list: %+v priced=%v, want %+v", got, priced, want)
	}
	if _, priced := tab.Price("claude-opus-4-5", session.TokenCounts{InputTokens: 1}); priced {
		t.Error("the folder's list replaces the built-in one whole: opus is no longer priced")
	}
	for body, want := range map[string]string{
		`{"models": {}}`:                      "names no model family",
		`{"models": {"opus": {"input": -1}}}`: "negative",
		`{"models": {"opus": {"input": 1}}, "web_search_per_thousand": -2}`: "negative",
		`not json`: "not valid JSON",
	} {
		write(body)
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s) = %v, want an error saying %q", body, err, want)
		}
	}
}
