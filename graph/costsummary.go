package graph

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
)

// A session's cost summary is everything a report over sessions reads of it, packed into one
// byte string on the session node (its cost_summary, beside cost_first_day and cost_last_day):
// its SpendDay rows and its InjectedBlock tallies, every day of each. A roll-up over a
// 5,000-session hierarchy then reads one property of each session its walk reaches, instead of
// two or three nodes with five properties each (or a summary node a hop away, which costs a
// pass over each session's relationships), and the driver decodes 5,000 byte strings instead
// of 50,000 values. The summaries are derived: rebuilt from the SpendDay and InjectedBlock
// nodes (which stay the record, and serve the fleet and agent-root scopes through their
// indexes) in the transaction that changes either, under the session's lock, never patched;
// a session's writer (replace_session) keeps them as they are.
//
// Layout (signed varints as encoding/binary writes them): version, session id, a base day
// (days since 1970-01-01; the first day, so the others are small), the number of spend rows,
// then per spend row: day (after the base), model, agent root, and the nine volumes of
// SpendDay.n; then, to the end, per injected tally: day (after the base), block, model,
// occurrences, bytes, tokens.
//
// A name is a number k, as HPACK names a header: k > 0 is the k-th of wellKnownNames, 0 a
// string that follows (its length, then its bytes) and joins the summary's own names, k < 0
// the -k-th of those. A session repeats its model and agent root every day and each tally
// names one of Zimmer's blocks, so a session's day of work fits in one of the store's 120-byte
// array blocks (with every name spelled out, it took two).

// costSummaryVersion is the format's; a new one also renames the marker of the migration in
// uncosted_sessions, which then repacks every summary.
const costSummaryVersion = 2

// wellKnownNames are the names every fleet's summaries hold: the blocks Zimmer injects
// (provenance.Blocks names them). Their positions are the format: append, never reorder.
var wellKnownNames = [...]string{"session_hierarchy", "human_messages"}

// errCorruptSummary is what a summary that does not parse is; a store fault, never input.
var errCorruptSummary = errors.New("corrupt cost summary")

// spendDay is one SpendDay row as a summary holds it.
type spendDay struct {
	day         int64
	model, root string
	n           volumes
}

// injectedDay is one InjectedBlock tally as a summary holds it.
type injectedDay struct {
	day                        int64
	block, model               string
	occurrences, bytes, tokens int64
}

// packSummary packs a session's summary from its rows and tallies, their days counted from
// base (any day; the first keeps them short).
func packSummary(sessionID, base int64, spend []spendDay, injected []injectedDay) []byte {
	b := binary.AppendVarint([]byte{costSummaryVersion}, sessionID)
	b = binary.AppendVarint(binary.AppendVarint(b, base), int64(len(spend)))
	var own []string
	for _, r := range spend {
		b = binary.AppendVarint(b, r.day-base)
		b = appendName(appendName(b, &own, r.model), &own, r.root)
		for _, v := range r.n {
			b = binary.AppendVarint(b, v)
		}
	}
	for _, r := range injected {
		b = binary.AppendVarint(b, r.day-base)
		b = appendName(appendName(b, &own, r.block), &own, r.model)
		b = binary.AppendVarint(binary.AppendVarint(binary.AppendVarint(b, r.occurrences), r.bytes), r.tokens)
	}
	return b
}

// appendName appends s as a name: well-known, one of own, or a new one of own.
func appendName(b []byte, own *[]string, s string) []byte {
	if k := slices.Index(wellKnownNames[:], s); k >= 0 {
		return binary.AppendVarint(b, int64(k+1))
	}
	if k := slices.Index(*own, s); k >= 0 {
		return binary.AppendVarint(b, -int64(k+1))
	}
	*own = append(*own, s)
	return append(binary.AppendVarint(binary.AppendVarint(b, 0), int64(len(s))), s...)
}

// summaryReader reads a summary front to back; the first fault sticks, so a caller checks once.
type summaryReader struct {
	b     []byte
	names *nameTable
	own   []string // the summary's own names, in order
	err   error
}

func newSummaryReader(b []byte, names *nameTable) summaryReader {
	r := summaryReader{b: b, names: names, own: names.scratch[:0]}
	if len(b) == 0 || b[0] != costSummaryVersion {
		r.err = fmt.Errorf("%w: version %v", errCorruptSummary, b[:min(len(b), 1)])
		return r
	}
	r.b = b[1:]
	return r
}

// nameTable interns the names a report's summaries hold: thousands of summaries repeat a
// handful of models, roots and blocks, mostly in the same order, so the last few are compared
// before the table is hashed.
type nameTable struct {
	recent  [8]string
	next    int
	all     map[string]string
	scratch []string // a summary's own names, reused from one summary to the next
}

func newNameTable() *nameTable { return &nameTable{all: map[string]string{}} }

func (t *nameTable) intern(b []byte) string {
	for _, s := range t.recent {
		if s == string(b) {
			return s
		}
	}
	s, ok := t.all[string(b)]
	if !ok {
		s = string(b)
		t.all[s] = s
	}
	t.recent[t.next] = s
	t.next = (t.next + 1) % len(t.recent)
	return s
}

func (r *summaryReader) more() bool { return r.err == nil && len(r.b) > 0 }

func (r *summaryReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	if len(r.b) > 0 && r.b[0] < 0x80 { // one byte: most counts of a small session, and names' lengths
		c := r.b[0]
		r.b = r.b[1:]
		return int64(c>>1) ^ -int64(c&1)
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("%w: a number is cut off", errCorruptSummary)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// name reads a name as appendName writes it.
func (r *summaryReader) name() string {
	k := r.varint()
	switch {
	case r.err != nil:
		return ""
	case k > 0 && k <= int64(len(wellKnownNames)):
		return wellKnownNames[k-1]
	case k < 0 && -k <= int64(len(r.own)):
		return r.own[-k-1]
	case k != 0:
		r.err = fmt.Errorf("%w: name %d of %d well-known and %d of its own", errCorruptSummary, k, len(wellKnownNames), len(r.own))
		return ""
	}
	n := r.varint()
	if r.err != nil {
		return ""
	}
	if n < 0 || n > int64(len(r.b)) {
		r.err = fmt.Errorf("%w: a name of %d bytes with %d left", errCorruptSummary, n, len(r.b))
		return ""
	}
	s := r.names.intern(r.b[:n])
	r.b = r.b[n:]
	r.own = append(r.own, s)
	r.names.scratch = r.own
	return s
}

// injectedKey is what injected tallies are summed by over a report's sessions and days.
type injectedKey struct{ block, model string }

// unpackSummary appends a summary's spend rows whose day is in [from, to) (days since 1970) to
// out, and adds its tallies of those days into sums.
func unpackSummary(out []CostRow, sums map[injectedKey]*InjectedBlockRow, b []byte, from, to int64, names *nameTable) ([]CostRow, error) {
	r := newSummaryReader(b, names)
	id, base := r.varint(), r.varint()
	// A count read from a corrupt summary may be anything: the loop ends at the first fault.
	for i, count := int64(0), r.varint(); i < count && r.err == nil; i++ {
		day, model, root := base+r.varint(), r.name(), r.name()
		var n volumes
		for i := range n {
			n[i] = r.varint()
		}
		if r.err == nil && from <= day && day < to {
			out = append(out, n.row(id, root, model, dayTime(day)))
		}
	}
	for r.more() {
		day, block, model := base+r.varint(), r.name(), r.name()
		occurrences, bytes, tokens := r.varint(), r.varint(), r.varint()
		if r.err != nil || day < from || day >= to {
			continue
		}
		k := injectedKey{block, model}
		row := sums[k]
		if row == nil {
			row = &InjectedBlockRow{Block: block, Model: model}
			sums[k] = row
		}
		row.Occurrences, row.Bytes, row.Tokens = row.Occurrences+occurrences, row.Bytes+bytes, row.Tokens+tokens
	}
	if r.err != nil {
		return nil, fmt.Errorf("cost summary of session %d: %w", id, r.err)
	}
	return out, nil
}

const secondsPerDay = 24 * 60 * 60

// dayNumber is the UTC day of t as days since 1970-01-01.
func dayNumber(t time.Time) int64 {
	s := t.UTC().Unix()
	if s < 0 && s%secondsPerDay != 0 {
		return s/secondsPerDay - 1
	}
	return s / secondsPerDay
}

func dayTime(day int64) time.Time { return time.Unix(day*secondsPerDay, 0).UTC() }

// rebuildCostSummaries packs the named sessions' summaries afresh from their SpendDay rows and
// InjectedBlock tallies, in the caller's transaction. A caller that changed those must have
// taken the session's lock before its change (the statement takes it otherwise): a summary
// then always packs what commits with it. A session that is gone gets none.
func (t txn) rebuildCostSummaries(sessionIDs []any) error {
	if len(sessionIDs) == 0 {
		return nil
	}
	recs, err := t.collect("cost_summary_sources", queries.CostSummarySources, map[string]any{"session_ids": sessionIDs})
	if err != nil {
		return err
	}
	summaries := make([]map[string]any, 0, len(recs))
	for _, rec := range recs {
		m := rec.AsMap()
		id := asInt(m["id"])
		spend, err := spendSources(list(m["spend"]))
		if err != nil {
			return fmt.Errorf("summarize the spend of session %d: %w", id, err)
		}
		injected, err := injectedSources(list(m["injected"]))
		if err != nil {
			return fmt.Errorf("summarize the injected blocks of session %d: %w", id, err)
		}
		// A report skips a summary whose days all fall outside its window without reading it.
		first, last, ok := daySpan(spend, injected)
		summary := map[string]any{"id": id, "packed": packSummary(id, first, spend, injected), "first_day": nil, "last_day": nil}
		if ok {
			summary["first_day"], summary["last_day"] = first, last
		}
		summaries = append(summaries, summary)
	}
	_, err = t.collect("write_cost_summaries", queries.WriteCostSummaries, map[string]any{"summaries": summaries})
	return err
}

// daySpan is the first and last day a summary holds; ok is false when it holds none.
func daySpan(spend []spendDay, injected []injectedDay) (first, last int64, ok bool) {
	see := func(day int64) {
		if !ok || day < first {
			first = day
		}
		if !ok || day > last {
			last = day
		}
		ok = true
	}
	for _, r := range spend {
		see(r.day)
	}
	for _, r := range injected {
		see(r.day)
	}
	return first, last, ok
}

// spendSources decodes SpendDay rows as cost_summary_sources returns them: [day, model,
// agent_root, n].
func spendSources(raws []any) ([]spendDay, error) {
	rows := make([]spendDay, len(raws))
	for i, raw := range raws {
		p := list(raw)
		var n volumes
		ok, isDate := false, false
		var day neo4j.Date
		if len(p) == 4 {
			n, ok = volumesOf(p[3])
			day, isDate = p[0].(neo4j.Date)
		}
		if !ok || !isDate {
			return nil, fmt.Errorf("a spend row read as %v, want [day, model, agent_root, n of %d]", raw, len(n))
		}
		rows[i] = spendDay{day: dayNumber(day.Time()), model: asString(p[1]), root: asString(p[2]), n: n}
	}
	return rows, nil
}

// injectedSources decodes InjectedBlock tallies as cost_summary_sources returns them: [day,
// block, model, occurrences, bytes, tokens].
func injectedSources(raws []any) ([]injectedDay, error) {
	rows := make([]injectedDay, len(raws))
	for i, raw := range raws {
		p := list(raw)
		if len(p) != 6 {
			return nil, fmt.Errorf("an injected tally read as %v, want [day, block, model, occurrences, bytes, tokens]", raw)
		}
		rows[i] = injectedDay{day: dayNumber(asTime(p[0])), block: asString(p[1]), model: asString(p[2]), occurrences: asInt(p[3]),
			bytes: asInt(p[4]), tokens: asInt(p[5])}
	}
	return rows, nil
}
