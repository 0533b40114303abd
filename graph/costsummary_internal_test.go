package graph

import (
	"encoding/binary"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/provenance"
	"github.com/zimmerhq/zimmer/session"
)

// TestACostSummaryUnpacksToWhatWasPacked: whatever the names hold (a model read from an
// untrusted transcript may hold anything), unpacking a summary over a window gives back exactly
// the rows of those days.
func TestACostSummaryUnpacksToWhatWasPacked(t *testing.T) {
	day := func(s string) int64 {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return dayNumber(d)
	}
	rows := []spendDay{
		{day: day("2026-12-01"), model: "claude-opus-4-5", root: "zimmer", n: [9]int64{3, 1200, 300, 40_000, 900, 600, 300, 1, 2}},
		{day: day("2026-12-02"), model: "", root: "", n: [9]int64{1}},
		{day: day("2026-12-02"), model: "evil\x00model|with\nseparators,ünïcødé", root: "root:with:colons", n: [9]int64{1, 1 << 40, -5}},
		{day: day("1969-12-31"), model: "before-the-epoch", root: "r", n: [9]int64{2}},
	}
	b := packSummary(42, day("2026-12-01"), rows, nil) // a day before the base packs too
	for _, tc := range []struct {
		name     string
		from, to int64
		want     []int
	}{
		{"every day", day("1900-01-01"), day("3000-01-01"), []int{0, 1, 2, 3}},
		{"one day", day("2026-12-02"), day("2026-12-03"), []int{1, 2}},
		{"the window's end is exclusive", day("2026-11-01"), day("2026-12-02"), []int{0}},
		{"a day before 1970", day("1969-12-31"), day("1970-01-01"), []int{3}},
		{"no day", day("2027-01-01"), day("2027-02-01"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := unpackSummary(nil, map[injectedKey]*InjectedBlockRow{}, b, tc.from, tc.to, newNameTable())
			if err != nil {
				t.Fatal(err)
			}
			var want []CostRow
			for _, i := range tc.want {
				r := rows[i]
				want = append(want, CostRow{SessionID: 42, AgentRoot: r.root, Model: r.model, Day: dayTime(r.day), Calls: r.n[0],
					TokenCounts: session.TokenCounts{InputTokens: r.n[1], OutputTokens: r.n[2], CacheReadTokens: r.n[3], CacheCreationTokens: r.n[4],
						CacheCreation5mTokens: r.n[5], CacheCreation1hTokens: r.n[6], WebSearchRequests: r.n[7], WebFetchRequests: r.n[8]}})
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("unpacked\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// TestInjectedTalliesSumPerBlockAndModelOverTheWindow: two sessions' summaries unpack into one
// sum per block and model, of the window's days only, beside their spend.
func TestInjectedTalliesSumPerBlockAndModelOverTheWindow(t *testing.T) {
	sums := map[injectedKey]*InjectedBlockRow{}
	a := packSummary(1, 100, []spendDay{{day: 100, model: "m", root: "r", n: [9]int64{1}}}, []injectedDay{
		{day: 100, block: "session_hierarchy", model: "m", occurrences: 2, bytes: 800, tokens: 200},
		{day: 101, block: "session_hierarchy", model: "m", occurrences: 1, bytes: 400, tokens: 100},
		{day: 99, block: "session_hierarchy", model: "m", occurrences: 50, bytes: 5, tokens: 5}, // outside
	})
	b := packSummary(2, 100, nil, []injectedDay{
		{day: 100, block: "session_hierarchy", model: "m", occurrences: 1, bytes: 40, tokens: 10},
		{day: 100, block: "human_messages", model: "m", occurrences: 3, bytes: 12, tokens: 3},
	})
	var rows []CostRow
	for _, p := range [][]byte{a, b} {
		var err error
		if rows, err = unpackSummary(rows, sums, p, 100, 102, newNameTable()); err != nil {
			t.Fatal(err)
		}
	}
	if len(rows) != 1 || rows[0].SessionID != 1 || rows[0].Calls != 1 {
		t.Errorf("spend rows %+v, want the one of session 1", rows)
	}
	want := map[injectedKey]InjectedBlockRow{
		{"session_hierarchy", "m"}: {Block: "session_hierarchy", Model: "m", Occurrences: 4, Bytes: 1240, Tokens: 310},
		{"human_messages", "m"}:    {Block: "human_messages", Model: "m", Occurrences: 3, Bytes: 12, Tokens: 3},
	}
	if len(sums) != len(want) {
		t.Fatalf("%d sums, want %d: %v", len(sums), len(want), sums)
	}
	for k, w := range want {
		if got := sums[k]; got == nil || *got != w {
			t.Errorf("%v: %+v, want %+v", k, got, w)
		}
	}
}

// TestACorruptCostSummaryIsAnErrorNotAPanic: a summary cut short or of another version is
// reported as corrupt, never read past its end.
func TestACorruptCostSummaryIsAnErrorNotAPanic(t *testing.T) {
	// header is a summary's start up to its spend rows: version, session 7, base day 20,000.
	header := func(rows int64) []byte {
		return binary.AppendVarint(binary.AppendVarint(binary.AppendVarint([]byte{costSummaryVersion}, 7), 20_000), rows)
	}
	whole := packSummary(7, 20_000, []spendDay{{day: 20_000, model: "claude-opus-4-5", root: "zimmer", n: [9]int64{1, 2, 3}}},
		[]injectedDay{{day: 20_000, block: "session_hierarchy", model: "m", occurrences: 1, bytes: 4, tokens: 1}})
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"another version", append([]byte{costSummaryVersion + 1}, whole[1:]...)},
		{"cut inside a name", whole[:10]},
		{"cut inside the spend", whole[:30]},
		{"cut inside the injected tallies", whole[:len(whole)-1]},
		{"a name longer than what is left", append(slices.Clip(header(1)), 0, 0, 0x7e, 'a')},
		{"a name of its own before it named one", append(slices.Clip(header(1)), 0, 1)},
		{"a well-known name past the table", append(slices.Clip(header(1)), 0, byte(2*len(wellKnownNames)+2))},
		{"more spend rows than it holds", header(1 << 60)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := unpackSummary(nil, map[injectedKey]*InjectedBlockRow{}, tc.b, 0, 1<<40, newNameTable()); !errors.Is(err, errCorruptSummary) {
				t.Errorf("%v, want a corrupt summary", err)
			}
		})
	}
}

// BenchmarkUnpackingAHierarchyOf5000Sessions unpacks what a roll-up over a 5,000-child router
// reads: a summary a session, two models' spend and three injected blocks each.
func BenchmarkUnpackingAHierarchyOf5000Sessions(b *testing.B) {
	summaries := make([]any, 5001)
	for i := range summaries {
		summaries[i] = workingDay(int64(i + 1))
	}
	for b.Loop() {
		if _, err := unpackSummaries(summaries, 19_990, 20_010); err != nil {
			b.Fatal(err)
		}
	}
}

// workingDay is the summary of a session's day of work: two models' spend and Zimmer's blocks
// injected into its turns.
func workingDay(sessionID int64) []byte {
	return packSummary(sessionID, 20_000, []spendDay{
		{day: 20_000, model: "claude-opus-4-5-20251101", root: "zimmer", n: [9]int64{2, 2400, 600, 80_000, 1800}},
		{day: 20_000, model: "claude-haiku-4-5-20251001", root: "zimmer", n: [9]int64{1, 1200, 300, 40_000, 900}}},
		[]injectedDay{{day: 20_000, block: "session_hierarchy", model: "claude-opus-4-5-20251101", occurrences: 1, bytes: 2400, tokens: 600},
			{day: 20_000, block: "human_messages", model: "claude-opus-4-5-20251101", occurrences: 1, bytes: 800, tokens: 200}})
}

// TestASessionsDayPacksIntoOneArrayBlock: a roll-up reads one summary per session, and Neo4j
// keeps a byte string in 120-byte blocks, the first 3 bytes its header: a session's day of
// work spells each name once and Zimmer's blocks not at all, and fits in one.
func TestASessionsDayPacksIntoOneArrayBlock(t *testing.T) {
	if n := len(workingDay(1_000_000)); n > 117 {
		t.Errorf("a working day packs into %d bytes, more than one array block holds", n)
	}
}

// TestZimmersBlocksAreWellKnownNames: every block Zimmer injects packs as a number; a block
// added to provenance.Blocks is appended to wellKnownNames too.
func TestZimmersBlocksAreWellKnownNames(t *testing.T) {
	for _, block := range []string{provenance.BlockHierarchy, provenance.BlockHumanMessages} {
		if !slices.Contains(wellKnownNames[:], block) {
			t.Errorf("block %q is not a well-known name: every summary would spell it out", block)
		}
	}
}

// TestThePackedFormatIsStable: summaries outlive the binary that wrote them, so a summary
// packed today unpacks the same under every later version of this format.
func TestThePackedFormatIsStable(t *testing.T) {
	// Session 9, base day 20,000: one spend row on day 20,001 (model "m", root "r"), then a
	// session_hierarchy and a human_messages tally on day 20,000, both for "m".
	packed := []byte{2, 18, 0xc0, 0xb8, 0x02, 2, 2, 0, 2, 'm', 0, 2, 'r', 2, 4, 6, 0, 0, 0, 0, 0, 0,
		0, 2, 1, 2, 8, 10, 0, 4, 1, 2, 8, 10}
	spend := []spendDay{{day: 20_001, model: "m", root: "r", n: volumes{1, 2, 3}}}
	injected := []injectedDay{{day: 20_000, block: "session_hierarchy", model: "m", occurrences: 1, bytes: 4, tokens: 5},
		{day: 20_000, block: "human_messages", model: "m", occurrences: 1, bytes: 4, tokens: 5}}
	if got := packSummary(9, 20_000, spend, injected); !slices.Equal(got, packed) {
		t.Errorf("packed as %v, want %v", got, packed)
	}
	sums := map[injectedKey]*InjectedBlockRow{}
	rows, err := unpackSummary(nil, sums, packed, 0, 1<<40, newNameTable())
	if err != nil {
		t.Fatal(err)
	}
	want := []CostRow{{SessionID: 9, AgentRoot: "r", Model: "m", Day: dayTime(20_001), Calls: 1,
		TokenCounts: session.TokenCounts{InputTokens: 2, OutputTokens: 3}}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("spend rows %+v, want %+v", rows, want)
	}
	for _, block := range []string{"session_hierarchy", "human_messages"} {
		if got, want := sums[injectedKey{block, "m"}], (InjectedBlockRow{Block: block, Model: "m", Occurrences: 1, Bytes: 4, Tokens: 5}); got == nil || *got != want {
			t.Errorf("%s tally %+v, want %+v", block, got, want)
		}
	}
}
