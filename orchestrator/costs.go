package orchestrator

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/pricing"
	"github.com/zimmerhq/zimmer/session"
)

// CostQuery is what a cost report asks (get_costs, GET /costs): a window of Days days ending
// today, or From/To (YYYY-MM-DD, inclusive, UTC days); a scope of one session (wins) or one
// agent root, the fleet when neither; IncludeDescendants adds every session the scope spawned.
type CostQuery struct {
	Days               int
	From, To           string
	AgentRoot          string
	SessionID          int64
	IncludeDescendants bool
}

// ParseCostQuery reads a report's window and scope from a query string (REST GET /costs, the
// Costs page): days, from, to, agent_root, session_id and include_descendants ("true" or "1").
// A session_id that is not a positive id is a ValidationError; an unreadable days is the default.
func ParseCostQuery(v url.Values) (CostQuery, error) {
	days, _ := strconv.Atoi(v.Get("days"))
	flag := v.Get("include_descendants")
	q := CostQuery{Days: days, From: v.Get("from"), To: v.Get("to"), AgentRoot: v.Get("agent_root"),
		IncludeDescendants: flag == "true" || flag == "1"}
	if raw := v.Get("session_id"); raw != "" {
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id <= 0 {
			return q, invalid("Validation failed", "session_id must be a positive integer")
		}
		q.SessionID = id
	}
	return q, nil
}

// Window bounds (reference: days 1..365, default 7; a span of at most 365 days).
const (
	defaultCostDays = 7
	maxCostDays     = 365
	topCostSessions = 10
)

// CostWindow is the report's days, both inclusive.
type CostWindow struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label"`
	from  time.Time
	to    time.Time // exclusive: the day after To
}

// CostLine is one line of a breakdown: a key (a day, an agent root, a model, "#id") and what
// its requests cost at list price.
type CostLine struct {
	Key       string       `json:"key"`
	SessionID int64        `json:"session_id,omitempty"`
	ListPrice float64      `json:"list_price"`
	Cost      pricing.Cost `json:"cost"`
	Calls     int64        `json:"calls"`
	Tokens    int64        `json:"tokens"`
}

// CostTotals sums the report.
type CostTotals struct {
	ListPrice float64 `json:"list_price"`
	Calls     int64   `json:"calls"`
	Tokens    int64   `json:"tokens"`
	Sessions  int     `json:"sessions"`
}

// LedgerCoverage says how complete the ledger is: the sweep of every transcript (in flight:
// the report covers only part of history) and the oldest request it holds.
type LedgerCoverage struct {
	Partial     bool           `json:"partial"`
	Backfill    graph.Backfill `json:"backfill"`
	CoversSince *time.Time     `json:"covers_since"`
}

// CostReport is the token ledger priced at list price over a window and scope. The dollar
// figures are a comparable unit across models, not a bill.
type CostReport struct {
	Window             CostWindow          `json:"window"`
	AgentRoot          string              `json:"agent_root,omitempty"`
	SessionID          int64               `json:"session_id,omitempty"`
	IncludeDescendants bool                `json:"include_descendants"`
	Totals             CostTotals          `json:"totals"`
	CostBreakdown      pricing.Cost        `json:"cost_breakdown"`
	TokenBreakdown     session.TokenCounts `json:"token_breakdown"`
	ByDay              []CostLine          `json:"by_day"`
	ByAgentRoot        []CostLine          `json:"by_agent_root"`
	ByModel            []CostLine          `json:"by_model"`
	TopSessions        []CostLine          `json:"top_sessions"`
	UnpricedModels     []string            `json:"unpriced_models"`
	InjectedBlocks     []InjectedLine      `json:"injected_blocks"`
	LedgerCoverage     LedgerCoverage      `json:"ledger_coverage"`
	Pricing            *pricing.Table      `json:"pricing"`
}

// InjectedLine is one prompt block Zimmer injected into a session's turns (session_hierarchy,
// human_messages), summed over the report's window per model: how often it was sent, its bytes,
// the tokens estimated for them (pricing.EstimateTokens) and their list price as fresh input at
// that model's rate. It is a share of the spend above, not an addition to it, and it counts
// each sending once: a block re-read from the prompt cache on a turn's later requests is not
// attributed to it.
type InjectedLine struct {
	Block       string  `json:"block"`
	Model       string  `json:"model"`
	Occurrences int64   `json:"occurrences"`
	Bytes       int64   `json:"bytes"`
	Tokens      int64   `json:"estimated_tokens"`
	ListPrice   float64 `json:"list_price"`
}

// costWindow resolves the window: from/to when either parses (to defaults to today, from to
// a week before to; swapped when reversed; at most 365 days), else the last Days days.
func costWindow(q CostQuery, today time.Time) CostWindow {
	today = today.UTC().Truncate(24 * time.Hour)
	day := func(s string) (time.Time, bool) {
		t, err := time.Parse(time.DateOnly, s)
		return t, err == nil
	}
	from, fromOK := day(q.From)
	to, toOK := day(q.To)
	var w CostWindow
	if fromOK || toOK {
		if !toOK {
			to = today
		}
		if !fromOK {
			from = to.AddDate(0, 0, -defaultCostDays)
		}
		if from.After(to) {
			from, to = to, from
		}
		if to.Sub(from) >= maxCostDays*24*time.Hour {
			from = to.AddDate(0, 0, -(maxCostDays - 1))
		}
		w.Label = from.Format(time.DateOnly) + " to " + to.Format(time.DateOnly)
	} else {
		days := min(max(cmp.Or(q.Days, defaultCostDays), 1), maxCostDays)
		to = today
		from = today.AddDate(0, 0, -(days - 1))
		w.Label = fmt.Sprintf("the last %d days", days)
		if days == 1 {
			w.Label = "today"
		}
	}
	w.from, w.to = from, to.AddDate(0, 0, 1)
	w.From, w.To = from.Format(time.DateOnly), to.Format(time.DateOnly)
	return w
}

// Prices is the price list in force: the catalog folder's prices.json, else the built-in one.
func (s *Service) Prices() (*pricing.Table, error) {
	t, err := pricing.Load(s.catalogDir)
	if err != nil {
		return nil, invalid("The price list does not load", err.Error())
	}
	return t, nil
}

// Costs reports the ledger priced at list price. A session that does not exist is a
// NotFoundError; an agent root with no spend is an empty report.
func (s *Service) Costs(ctx context.Context, q CostQuery) (*CostReport, error) {
	prices, err := s.Prices()
	if err != nil {
		return nil, err
	}
	if q.SessionID != 0 {
		q.AgentRoot = ""
	}
	w := costWindow(q, s.now())
	// The session check and the ledger's coverage are read beside the spend, which is most of
	// the report's time: a hierarchy's roll-up need not wait for them in turn.
	var cov LedgerCoverage
	sideErr := make(chan error, 1)
	go func() {
		if q.SessionID != 0 {
			if _, err := s.store.GetSession(ctx, q.SessionID); err != nil {
				sideErr <- err
				return
			}
		}
		var err error
		cov, err = s.LedgerCoverage(ctx)
		sideErr <- err
	}()
	spend, err := s.store.Spend(ctx, graph.CostScope{FromDay: w.from, ToDay: w.to, SessionID: q.SessionID, AgentRoot: q.AgentRoot,
		Descendants: q.IncludeDescendants && (q.SessionID != 0 || q.AgentRoot != "")})
	if sErr := <-sideErr; sErr != nil {
		return nil, sErr
	}
	if err != nil {
		return nil, err
	}
	r := priceRows(spend.Rows, prices)
	if q.SessionID != 0 {
		r.priceInjected(spend.Injected, prices)
	}
	r.Window, r.AgentRoot, r.SessionID, r.IncludeDescendants, r.LedgerCoverage = w, q.AgentRoot, q.SessionID, q.IncludeDescendants, cov
	return r, nil
}

// Other is the metrics' label for a model without a rate or an agent root not in the catalog.
const Other = "other"

// CostCensus is the last 24 hours' spend at list price for the metrics: by model family (the
// price list's) and by agent root (the catalog's), each with Other for the rest, every label
// present whether spent or not, so the series are bounded and steady.
func (s *Service) CostCensus(ctx context.Context) (byModel, byRoot map[string]float64, err error) {
	prices, err := s.Prices()
	if err != nil {
		return nil, nil, err
	}
	now := s.now()
	rows, err := s.store.CostRows(ctx, now.Add(-24*time.Hour), now)
	if err != nil {
		return nil, nil, err
	}
	byModel, byRoot = map[string]float64{Other: 0}, map[string]float64{Other: 0}
	for _, f := range prices.Families() {
		byModel[f] = 0
	}
	for name := range s.Catalog().Roots {
		byRoot[name] = 0
	}
	for _, row := range rows {
		c, _ := prices.Price(row.Model, row.TokenCounts)
		family, ok := prices.Family(row.Model)
		if !ok {
			family = Other
		}
		root := row.AgentRoot
		if _, known := byRoot[root]; !known {
			root = Other
		}
		byModel[family] += c.Total
		byRoot[root] += c.Total
	}
	return byModel, byRoot, nil
}

// LedgerCoverage says how complete the ledger is: the transcript sweep's progress and the
// oldest request held.
func (s *Service) LedgerCoverage(ctx context.Context) (LedgerCoverage, error) {
	b, err := s.LedgerBackfill(ctx)
	if err != nil {
		return LedgerCoverage{}, err
	}
	since, err := s.store.LedgerCoversSince(ctx)
	if err != nil {
		return LedgerCoverage{}, err
	}
	c := LedgerCoverage{Partial: b.Run == 0 || b.Running(), Backfill: b}
	if !since.IsZero() {
		c.CoversSince = &since
	}
	return c, nil
}

// priceRows prices a report's rows. A report's thousands of rows share a few days, agent
// roots and models: each row is priced and added to its session's line and its group's (its
// day, root and model), and the lines by day, root and model are summed from the groups.
func priceRows(rows []graph.CostRow, prices *pricing.Table) *CostReport {
	r := &CostReport{Pricing: prices, ByDay: []CostLine{}, ByAgentRoot: []CostLine{}, ByModel: []CostLine{}, TopSessions: []CostLine{}, UnpricedModels: []string{},
		InjectedBlocks: []InjectedLine{}}
	groups := costGroups{prices: prices, of: map[costGroupKey]*costGroup{}}
	sessions := make(map[int64]*CostLine, len(rows)/2)
	var last *CostLine // a session's rows mostly come together
	for _, row := range rows {
		g := groups.find(row)
		c := g.price(row.TokenCounts)
		g.line.add(c, row)
		g.tokens = g.tokens.Add(row.TokenCounts)
		if row.SessionID == 0 {
			continue
		}
		if last == nil || last.SessionID != row.SessionID {
			last = lineOf(sessions, row.SessionID, func() CostLine { return CostLine{SessionID: row.SessionID} })
		}
		last.add(c, row)
	}
	days, roots, models := map[time.Time]*CostLine{}, map[string]*CostLine{}, map[string]*CostLine{}
	unpriced := map[string]bool{}
	for _, g := range groups.all {
		model, root := cmp.Or(g.key.model, "(unnamed model)"), cmp.Or(g.key.root, "(no agent root)")
		if !g.priced {
			unpriced[model] = true
		}
		r.CostBreakdown, r.TokenBreakdown = r.CostBreakdown.Add(g.line.Cost), r.TokenBreakdown.Add(g.tokens)
		r.Totals.Calls += g.line.Calls
		lineOf(days, g.key.day, func() CostLine { return CostLine{Key: g.key.day.Format(time.DateOnly)} }).merge(g.line)
		lineOf(roots, root, func() CostLine { return CostLine{Key: root} }).merge(g.line)
		lineOf(models, model, func() CostLine { return CostLine{Key: model} }).merge(g.line)
	}
	r.Totals.ListPrice, r.Totals.Tokens, r.Totals.Sessions = r.CostBreakdown.Total, r.TokenBreakdown.Tokens(), len(sessions)
	r.ByDay = sortedLines(days, func(a, b *CostLine) int { return cmp.Compare(a.Key, b.Key) }, len(days))
	byCost := func(a, b *CostLine) int {
		return cmp.Or(cmp.Compare(b.ListPrice, a.ListPrice), cmp.Compare(b.Tokens, a.Tokens), cmp.Compare(a.Key, b.Key))
	}
	r.ByAgentRoot, r.ByModel = sortedLines(roots, byCost, len(roots)), sortedLines(models, byCost, len(models))
	// A session's line is labelled once it makes the top: thousands never do.
	r.TopSessions = sortedLines(sessions, func(a, b *CostLine) int {
		return cmp.Or(cmp.Compare(b.ListPrice, a.ListPrice), cmp.Compare(b.Tokens, a.Tokens), cmp.Compare(a.SessionID, b.SessionID))
	}, topCostSessions)
	for i := range r.TopSessions {
		r.TopSessions[i].Key = "#" + strconv.FormatInt(r.TopSessions[i].SessionID, 10)
	}
	for m := range unpriced {
		r.UnpricedModels = append(r.UnpricedModels, m)
	}
	slices.Sort(r.UnpricedModels)
	return r
}

// costGroupKey is what a report's rows are grouped by before its lines are summed.
type costGroupKey struct {
	day         time.Time
	root, model string
}

// costGroup is the rows of one day, agent root and model, and their model's price.
type costGroup struct {
	key    costGroupKey
	price  func(session.TokenCounts) pricing.Cost
	priced bool
	line   CostLine
	tokens session.TokenCounts
}

// costGroups finds a row's group: one of the last few (rows repeat them in turn) before the map.
type costGroups struct {
	prices *pricing.Table
	of     map[costGroupKey]*costGroup
	all    []*costGroup
	recent [4]*costGroup
	next   int
}

func (gs *costGroups) find(row graph.CostRow) *costGroup {
	for _, g := range gs.recent {
		if g != nil && g.key.model == row.Model && g.key.root == row.AgentRoot && g.key.day.Equal(row.Day) {
			return g
		}
	}
	k := costGroupKey{day: row.Day, root: row.AgentRoot, model: row.Model}
	g := gs.of[k]
	if g == nil {
		g = &costGroup{key: k}
		g.price, g.priced = gs.prices.For(row.Model)
		gs.of[k] = g
		gs.all = append(gs.all, g)
	}
	gs.recent[gs.next] = g
	gs.next = (gs.next + 1) % len(gs.recent)
	return g
}

// lineOf is the line of key k in m, made by fresh the first time.
func lineOf[K comparable](m map[K]*CostLine, k K, fresh func() CostLine) *CostLine {
	l := m[k]
	if l == nil {
		made := fresh()
		l = &made
		m[k] = l
	}
	return l
}

func (l *CostLine) add(c pricing.Cost, row graph.CostRow) {
	l.Cost = l.Cost.Add(c)
	l.ListPrice, l.Calls, l.Tokens = l.Cost.Total, l.Calls+row.Calls, l.Tokens+row.Tokens()
}

// merge adds another line's sums to l.
func (l *CostLine) merge(o CostLine) {
	l.Cost = l.Cost.Add(o.Cost)
	l.ListPrice, l.Calls, l.Tokens = l.Cost.Total, l.Calls+o.Calls, l.Tokens+o.Tokens
}

// priceInjected prices the injected blocks as input tokens, naming a model without a rate.
func (r *CostReport) priceInjected(rows []graph.InjectedBlockRow, prices *pricing.Table) {
	for _, row := range rows {
		c, priced := prices.Price(row.Model, session.TokenCounts{InputTokens: row.Tokens})
		if model := cmp.Or(row.Model, "(unnamed model)"); !priced && !slices.Contains(r.UnpricedModels, model) {
			r.UnpricedModels = append(r.UnpricedModels, model)
			slices.Sort(r.UnpricedModels)
		}
		r.InjectedBlocks = append(r.InjectedBlocks, InjectedLine{Block: row.Block, Model: row.Model, Occurrences: row.Occurrences,
			Bytes: row.Bytes, Tokens: row.Tokens, ListPrice: c.Total})
	}
}

// sortedLines is the first n of m's lines in order. Lines are ordered by pointer (a line is
// large), and when n is fewer than all (a hierarchy's top sessions of thousands) only the
// first n are kept in order: most lines then cost one comparison.
func sortedLines[K comparable](m map[K]*CostLine, order func(a, b *CostLine) int, n int) []CostLine {
	top := make([]*CostLine, 0, min(n, len(m))+1)
	for _, l := range m {
		if n == 0 || len(top) == n && order(l, top[n-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, l, order)
		top = slices.Insert(top, i, l)
		top = top[:min(len(top), n)]
	}
	out := make([]CostLine, len(top))
	for i, l := range top {
		out[i] = *l
	}
	return out
}

// CostRecordQuery pages the ledger's rows (GET /costs/records): the window and scope of a
// CostQuery (without roll-up), a model, and a page.
type CostRecordQuery struct {
	CostQuery
	Model         string
	Page, PerPage int
}

// CostRecords is one page of ledger rows, newest first, with the price list they are priced by.
func (s *Service) CostRecords(ctx context.Context, q CostRecordQuery) ([]session.TokenUsage, Page, CostWindow, error) {
	w := costWindow(q.CostQuery, s.now())
	page, perPage := pageBounds(q.Page, q.PerPage)
	rows, total, err := s.store.CostRecords(ctx, graph.CostRecordFilter{From: w.from, To: w.to, SessionID: q.SessionID,
		AgentRoot: q.AgentRoot, Model: q.Model, Skip: (page - 1) * perPage, Limit: perPage})
	if err != nil {
		return nil, Page{}, CostWindow{}, err
	}
	return rows, newPage(page, perPage, total), w, nil
}
