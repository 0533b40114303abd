package graph

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// CostRow is spend summed for one session (0 when folded), agent root, model and day.
type CostRow struct {
	SessionID int64
	AgentRoot string
	Model     string
	Day       time.Time // midnight UTC
	Calls     int64
	session.TokenCounts
}

// CostRows sums the fleet's ledger over [from, to) per agent root, model and day, reading the
// ledger itself: for windows that are not whole days.
func (s *Store) CostRows(ctx context.Context, from, to time.Time) ([]CostRow, error) {
	out, err := read(ctx, s, "cost_rows", func(tx txn) ([]CostRow, error) {
		recs, err := tx.collect("cost_rows", queries.CostRows, map[string]any{"from": from.UTC(), "to": to.UTC()})
		if err != nil {
			return nil, err
		}
		rows := make([]CostRow, len(recs))
		for i, rec := range recs {
			m := rec.AsMap()
			day, _ := m["day"].(neo4j.Date)
			rows[i] = CostRow{AgentRoot: asString(m["agent_root"]), Model: asString(m["model"]), Day: day.Time().UTC(),
				Calls: asInt(m["calls"]), TokenCounts: tokenCounts(m)}
		}
		return rows, nil
	})
	if err != nil {
		return nil, fmt.Errorf("cost rows: %w", err)
	}
	return out, nil
}

// CostScope is what a cost report covers: the whole UTC days [FromDay, ToDay) of one session
// (SessionID wins), one agent root, or the fleet; Descendants adds every session the scope's
// sessions spawned, transitively.
type CostScope struct {
	FromDay, ToDay time.Time
	SessionID      int64
	AgentRoot      string
	Descendants    bool
}

// overSessions says the scope is a set of sessions (read from their cost summaries) rather
// than rows recorded under an agent root or the fleet's (read from the SpendDay index).
func (sc CostScope) overSessions() bool {
	return sc.SessionID != 0 || (sc.AgentRoot != "" && sc.Descendants)
}

// Spend is a report's scope as the summaries hold it: a row per session, agent root, model and
// day; and, for a scope of sessions, the injected prompt blocks summed per block and model
// (by block, then model).
type Spend struct {
	Rows     []CostRow
	Injected []InjectedBlockRow
}

// Spend reads a report's scope in one statement: a scope of sessions from their cost
// summaries, an agent root or the fleet from the SpendDay rows.
func (s *Store) Spend(ctx context.Context, sc CostScope) (Spend, error) {
	from, to := dayNumber(sc.FromDay), dayNumber(sc.ToDay)
	out, err := read(ctx, s, "spend", func(tx txn) (Spend, error) {
		if !sc.overSessions() {
			rec, err := tx.single("spend_rows", queries.SpendRows, map[string]any{
				"from_day": neo4j.DateOf(sc.FromDay.UTC()), "to_day": neo4j.DateOf(sc.ToDay.UTC()), "agent_root": sc.AgentRoot})
			if err != nil {
				return Spend{}, err
			}
			rows, _ := rec.Get("rows")
			r, err := spendRows(list(rows))
			return Spend{Rows: r, Injected: []InjectedBlockRow{}}, err
		}
		rec, err := tx.single("cost_summaries", queries.CostSummaries, map[string]any{"session_id": sc.SessionID,
			"agent_root": sc.AgentRoot, "descendants": sc.Descendants, "from_day": from, "to_day": to})
		if err != nil {
			return Spend{}, err
		}
		summaries, _ := rec.Get("summaries")
		return unpackSummaries(list(summaries), from, to)
	})
	if err != nil {
		return Spend{}, fmt.Errorf("spend: %w", err)
	}
	return out, nil
}

// unpackSummaries unpacks the sessions' summaries over days [from, to).
func unpackSummaries(summaries []any, from, to int64) (Spend, error) {
	out := Spend{Rows: make([]CostRow, 0, 2*len(summaries))}
	names, sums := newNameTable(), map[injectedKey]*InjectedBlockRow{}
	var err error
	for _, b := range summaries {
		if out.Rows, err = unpackSummary(out.Rows, sums, asBytes(b), from, to, names); err != nil {
			return Spend{}, err
		}
	}
	out.Injected = make([]InjectedBlockRow, 0, len(sums))
	for _, row := range sums {
		out.Injected = append(out.Injected, *row)
	}
	slices.SortFunc(out.Injected, func(a, b InjectedBlockRow) int {
		return cmp.Or(cmp.Compare(a.Block, b.Block), cmp.Compare(a.Model, b.Model))
	})
	return out, nil
}

// spendRows decodes summaries as spend_rows packs them: [session_id, agent_root, model, day,
// n], n as SummarizeSpend packs it.
func spendRows(raws []any) ([]CostRow, error) {
	rows := make([]CostRow, 0, len(raws))
	for _, raw := range raws {
		p := list(raw)
		var n volumes
		var day neo4j.Date
		ok, isDate := false, false
		if len(p) == 5 {
			n, ok = volumesOf(p[4])
			day, isDate = p[3].(neo4j.Date)
		}
		if !ok || !isDate {
			return nil, fmt.Errorf("a spend summary packed as %v, want [session_id, agent_root, model, day, n of %d]", raw, len(n))
		}
		rows = append(rows, n.row(asInt(p[0]), asString(p[1]), asString(p[2]), day.Time().UTC()))
	}
	return rows, nil
}

// volumes is a SpendDay's n: [calls, input, output, cache_read, cache_creation,
// cache_creation_5m, cache_creation_1h, web_search, web_fetch].
type volumes [9]int64

// volumesOf decodes n as a statement returns it; ok is false for anything but nine numbers.
func volumesOf(v any) (n volumes, ok bool) {
	raw := list(v)
	if len(raw) != len(n) {
		return n, false
	}
	for i, x := range raw {
		n[i] = asInt(x)
	}
	return n, true
}

// row is the cost row of these volumes for a session, agent root, model and day.
func (n volumes) row(sessionID int64, agentRoot, model string, day time.Time) CostRow {
	return CostRow{SessionID: sessionID, AgentRoot: agentRoot, Model: model, Day: day, Calls: n[0],
		TokenCounts: session.TokenCounts{InputTokens: n[1], OutputTokens: n[2], CacheReadTokens: n[3], CacheCreationTokens: n[4],
			CacheCreation5mTokens: n[5], CacheCreation1hTokens: n[6], WebSearchRequests: n[7], WebFetchRequests: n[8]}}
}

// LedgerCoversSince is the time of the oldest request in the ledger; zero when it is empty.
func (s *Store) LedgerCoversSince(ctx context.Context) (time.Time, error) {
	out, err := read(ctx, s, "ledger_covers_since", func(tx txn) (time.Time, error) {
		rec, err := tx.single("ledger_covers_since", queries.LedgerCoversSince, nil)
		if err != nil {
			return time.Time{}, err
		}
		since, _ := rec.Get("since")
		return asTime(since), nil
	})
	if errors.Is(err, ErrNotFound) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("ledger coverage: %w", err)
	}
	return out, nil
}

// Backfill is the sweep of every transcript in a data directory (the key) into the ledger, one
// at a time per directory: Cursor is
// the last session id swept; a zero FinishedAt with a StartedAt is a sweep in flight.
type Backfill struct {
	Run         int64      `json:"run"`
	Trigger     string     `json:"trigger"`
	StartedAt   time.Time  `json:"started_at"`
	FinishedAt  *time.Time `json:"finished_at"`
	Cursor      int64      `json:"cursor"`
	FilesTotal  int64      `json:"files_total"`
	FilesDone   int64      `json:"files_done"`
	SessionRows int64      `json:"session_rows"`
	LastError   string     `json:"last_error,omitempty"`
}

// Running says the sweep is in flight.
func (b Backfill) Running() bool { return b.Run > 0 && b.FinishedAt == nil }

func backfillOf(rec *neo4j.Record) (Backfill, error) {
	v, _ := rec.Get("run")
	m, ok := v.(map[string]any)
	if !ok {
		return Backfill{}, errors.New("backfill: no run in the record")
	}
	b := Backfill{Run: asInt(m["run"]), Trigger: asString(m["trigger"]), StartedAt: asTime(m["started_at"]), Cursor: asInt(m["cursor"]),
		FilesTotal: asInt(m["files_total"]), FilesDone: asInt(m["files_done"]), SessionRows: asInt(m["session_rows"]), LastError: asString(m["last_error"])}
	if f, ok := m["finished_at"].(time.Time); ok {
		f = f.UTC()
		b.FinishedAt = &f
	}
	return b, nil
}

// StartBackfill starts a sweep over filesTotal transcripts, or joins the one in flight
// (joined true); two callers at once start one sweep.
func (s *Store) StartBackfill(ctx context.Context, key string, filesTotal int64, trigger string) (Backfill, bool, error) {
	type started struct {
		b      Backfill
		joined bool
	}
	out, err := write(ctx, s, "backfill_start", func(tx txn) (started, error) {
		rec, err := tx.single("backfill_start", queries.BackfillStart, map[string]any{"key": key, "at": s.now().UTC(), "files_total": filesTotal, "trigger": trigger})
		if err != nil {
			return started{}, err
		}
		b, err := backfillOf(rec)
		joined, _, _ := neo4j.GetRecordValue[bool](rec, "joined")
		return started{b, joined}, err
	})
	if err != nil {
		return Backfill{}, false, fmt.Errorf("start the ledger backfill: %w", err)
	}
	return out.b, out.joined, nil
}

// ClaimBackfill leases the sweep in flight to one slice until until; ok is false when there
// is none in flight or another slice holds it.
func (s *Store) ClaimBackfill(ctx context.Context, key string, until time.Time) (Backfill, bool, error) {
	b, err := write(ctx, s, "backfill_claim", func(tx txn) (Backfill, error) {
		rec, err := tx.single("backfill_claim", queries.BackfillClaim, map[string]any{"key": key, "at": s.now().UTC(), "until": until.UTC()})
		if err != nil {
			return Backfill{}, err
		}
		return backfillOf(rec)
	})
	if errors.Is(err, ErrNotFound) {
		return Backfill{}, false, nil
	}
	if err != nil {
		return Backfill{}, false, fmt.Errorf("claim the ledger backfill: %w", err)
	}
	return b, true, nil
}

// BackfillStep is what one slice of a sweep did.
type BackfillStep struct {
	Key                      string
	Run, Cursor, Files, Rows int64
	Error                    string
	Finished                 bool
}

// RecordBackfill stores a slice's progress on its sweep.
func (s *Store) RecordBackfill(ctx context.Context, st BackfillStep) (Backfill, error) {
	var errText any
	if st.Error != "" {
		errText = st.Error
	}
	b, err := write(ctx, s, "backfill_progress", func(tx txn) (Backfill, error) {
		rec, err := tx.single("backfill_progress", queries.BackfillProgress, map[string]any{"key": st.Key, "run": st.Run, "cursor": st.Cursor,
			"files": st.Files, "rows": st.Rows, "error": errText, "finished": st.Finished, "at": s.now().UTC()})
		if err != nil {
			return Backfill{}, err
		}
		return backfillOf(rec)
	})
	if err != nil {
		return Backfill{}, fmt.Errorf("record the ledger backfill's progress: %w", err)
	}
	return b, nil
}

// BackfillStatus reads the current or last sweep; the zero Backfill before the first.
func (s *Store) BackfillStatus(ctx context.Context, key string) (Backfill, error) {
	b, err := read(ctx, s, "backfill_status", func(tx txn) (Backfill, error) {
		rec, err := tx.single("backfill_status", queries.BackfillStatus, map[string]any{"key": key})
		if err != nil {
			return Backfill{}, err
		}
		return backfillOf(rec)
	})
	if errors.Is(err, ErrNotFound) {
		return Backfill{}, nil
	}
	if err != nil {
		return Backfill{}, fmt.Errorf("read the ledger backfill: %w", err)
	}
	return b, nil
}

// CostRecordFilter picks ledger rows: called in [From, To), of a session, agent root and
// model when set; Skip and Limit page them.
type CostRecordFilter struct {
	From, To    time.Time
	SessionID   int64
	AgentRoot   string
	Model       string
	Skip, Limit int
}

// CostRecords is one page of ledger rows, newest first, and how many match.
func (s *Store) CostRecords(ctx context.Context, f CostRecordFilter) ([]session.TokenUsage, int, error) {
	type page struct {
		rows  []session.TokenUsage
		total int
	}
	out, err := read(ctx, s, "cost_records", func(tx txn) (page, error) {
		rec, err := tx.single("cost_records", queries.CostRecords, map[string]any{"from": f.From.UTC(), "to": f.To.UTC(),
			"session_id": f.SessionID, "agent_root": f.AgentRoot, "model": f.Model, "skip": f.Skip, "limit": f.Limit})
		if err != nil {
			return page{}, err
		}
		m := rec.AsMap()
		raw, _ := m["rows"].([]any)
		p := page{total: int(asInt(m["total"])), rows: make([]session.TokenUsage, 0, len(raw))}
		for _, r := range raw {
			u, _ := r.(map[string]any)
			p.rows = append(p.rows, usageOf(u))
		}
		return p, nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("cost records: %w", err)
	}
	return out.rows, out.total, nil
}
