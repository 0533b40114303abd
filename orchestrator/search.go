package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// SearchParams are quick search's query and filters. Query is one case-insensitive substring —
// a multi-word query is a phrase, its words adjacent and in order — matched against the title
// and the metadata and custom_metadata JSON.
type SearchParams struct {
	Query                                            string
	Statuses                                         []string
	AgentRuntime, PriorityClass, Genesis, Visibility string
	// Order is OrderCreatedDesc (default) or OrderPrecedence.
	Order         string
	ShowArchived  bool
	Page, PerPage int
	// The web UI's list filters (Search only, not ScanContents): "" / nil / false match all.
	AgentRoot  string
	CategoryID *int64
	Favorites  bool
}

// Orders of a search.
const (
	OrderCreatedDesc = "created_desc"
	OrderPrecedence  = "precedence"
)

// MaxQueryLength bounds a search phrase.
const MaxQueryLength = 1000

// Search returns one page of sessions matching p, with the total count.
func (s *Service) Search(ctx context.Context, p SearchParams) ([]*session.Session, Page, error) {
	f, err := s.searchFilter(p)
	if err != nil {
		return nil, Page{}, err
	}
	page, perPage := pageBounds(p.Page, p.PerPage)
	list, total, err := s.store.SearchSessions(ctx, f, (page-1)*perPage, perPage)
	if err != nil {
		return nil, Page{}, err
	}
	return list, newPage(page, perPage, total), nil
}

func pageBounds(page, perPage int) (int, int) {
	if perPage < 1 || perPage > MaxPerPage {
		perPage = DefaultPerPage
	}
	return max(page, 1), perPage
}

// searchFilter validates the filters, naming the valid values of the one that is wrong.
func (s *Service) searchFilter(p SearchParams) (graph.SearchFilter, error) {
	q := strings.ToLower(strings.TrimSpace(p.Query))
	if len([]rune(q)) > MaxQueryLength {
		return graph.SearchFilter{}, invalid("Query too long", fmt.Sprintf("maximum query length is %d characters", MaxQueryLength))
	}
	f := graph.SearchFilter{Query: q, JSONQuery: storedJSONSpelling(q), AgentRuntime: p.AgentRuntime,
		ShowArchived: p.ShowArchived, ByPrecedence: p.Order == OrderPrecedence, Statuses: []string{}}
	for _, st := range p.Statuses {
		if !session.Status(st).Valid() {
			return f, invalid("Invalid status", fmt.Sprintf("%s. Valid statuses: running, waiting, needs_input, archived, failed", st))
		}
		f.Statuses = append(f.Statuses, st)
	}
	if c := p.PriorityClass; c != "" && !session.Class(c).Valid() {
		return f, invalid("Invalid priority_class", fmt.Sprintf("%s. Valid: spot, priority", c))
	}
	if g := p.Genesis; g != "" && !session.Genesis(g).Valid() {
		return f, invalid("Invalid genesis", fmt.Sprintf("%s. Valid: %s", g, genesisNames()))
	}
	if v := p.Visibility; v != "" && !slices.Contains([]string{VisibilityVisible, VisibilityHidden, VisibilitySnoozed}, v) {
		return f, invalid("Invalid visibility", fmt.Sprintf("%s. Valid: visible, hidden, snoozed", v))
	}
	if o := p.Order; o != "" && o != OrderCreatedDesc && o != OrderPrecedence {
		return f, invalid("Invalid order", fmt.Sprintf("%s. Valid: %s, %s", o, OrderCreatedDesc, OrderPrecedence))
	}
	f.PriorityClass, f.Genesis, f.Visibility = p.PriorityClass, p.Genesis, p.Visibility
	f.AgentRoot, f.CategoryID, f.FavoritesOnly = p.AgentRoot, p.CategoryID, p.Favorites
	return f, nil
}

func genesisNames() string {
	names := make([]string, len(session.Geneses))
	for i, g := range session.Geneses {
		names[i] = string(g)
	}
	return strings.Join(names, ", ")
}

var (
	spaceAroundColon = regexp.MustCompile(`"\s*:\s*`)
	spaceAfterComma  = regexp.MustCompile(`,\s*"`)
	spaceBeforeComma = regexp.MustCompile(`"\s*,`)
	htmlEscaped      = strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`)
)

// storedJSONSpelling respells a phrase the way the store writes JSON (encoding/json: compact,
// keys sorted, <>& escaped), so "key":"value" and "key": "value" find the same sessions
// whichever writer last touched a row. Canonical form orders an object's keys, so a phrase
// spanning two keys may not match: search one key/value pair or a bare value.
func storedJSONSpelling(q string) string {
	q = spaceAroundColon.ReplaceAllString(q, `":`)
	q = spaceAfterComma.ReplaceAllString(q, `,"`)
	q = spaceBeforeComma.ReplaceAllString(q, `",`)
	return htmlEscaped.Replace(q)
}

// ScanParams are a bounded content scan: the search's filters and phrase, how many matches
// are wanted, where to resume, and how long it may take.
type ScanParams struct {
	Search SearchParams
	// Before resumes below this session id (a previous scan's Cursor); 0 starts at the newest.
	Before int64
	Limit  int
	Budget time.Duration
}

// ScanResult is what a content scan found before it stopped.
type ScanResult struct {
	Matches []*session.Session // newest first
	// Scanned counts candidates looked at; WithTranscript those that had a transcript to read.
	Scanned, WithTranscript int
	// TranscriptsCut counts transcripts longer than the scan reads, of which only the end was searched.
	TranscriptsCut int
	// Complete is true when every candidate was scanned; otherwise Cursor resumes the scan.
	Complete bool
	Cursor   int64
	// OutOfTime is true when the wall-clock budget, not the match count, stopped the scan.
	OutOfTime bool
}

// scanBatch is how many candidates one round trip reads.
const scanBatch = 200

// ScanContents walks candidates newest first, matching the phrase against title, metadata and
// (where the session has run) the transcript, and stops at Limit matches or when the budget runs
// out. The transcript has no index a substring match can use, so the scan is bounded rather
// than best-effort, and it reports no total: "not found yet" is not "not there".
func (s *Service) ScanContents(ctx context.Context, p ScanParams) (ScanResult, error) {
	f, err := s.searchFilter(p.Search)
	if err != nil {
		return ScanResult{}, err
	}
	_, limit := pageBounds(1, p.Limit)
	deadline := s.now().Add(p.Budget)
	before := p.Before
	if before <= 0 {
		before = math.MaxInt64
	}
	var out ScanResult
	for {
		batch, err := s.store.ScanSessions(ctx, f, before, scanBatch)
		if err != nil {
			return ScanResult{}, err
		}
		for _, c := range batch {
			out.Scanned++
			before = c.Session.ID
			if c.Matched || s.transcriptMatches(c.Session, f.Query, &out) {
				out.Matches = append(out.Matches, c.Session)
			}
			if len(out.Matches) >= limit {
				out.Cursor = before
				return out, nil
			}
			if s.now().After(deadline) {
				out.Cursor, out.OutOfTime = before, true
				return out, nil
			}
		}
		if len(batch) < scanBatch {
			out.Complete = true
			return out, nil
		}
	}
}

// transcriptText is what was said in a session, as the transcript renders it (prompts, the
// agent's words, its tool calls; long tool results cut), from the last scanWindow bytes of its
// transcript; cut says the file was longer. A session that never ran has none.
func (s *Service) transcriptText(sess *session.Session) (text string, cut, ok bool) {
	if path := session.BagString(sess.Metadata, session.MetaTranscriptPath); path == "" {
		return "", false, false
	}
	data, cut, err := s.transcriptWindow(sess, scanWindow)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("content scan could not read a transcript", "session_id", sess.ID, "err", err)
		}
		return "", false, false
	}
	return transcript.Render(data), cut, true
}

// scanWindow is how much of each transcript a content scan reads: its end.
const scanWindow = 2 << 20

// transcriptMatches reports the phrase in the session's transcript, counting the transcripts read.
func (s *Service) transcriptMatches(sess *session.Session, phrase string, out *ScanResult) bool {
	if phrase == "" {
		return false
	}
	text, cut, ok := s.transcriptText(sess)
	if !ok {
		return false
	}
	out.WithTranscript++
	if cut {
		out.TranscriptsCut++
	}
	return strings.Contains(strings.ToLower(text), phrase)
}
