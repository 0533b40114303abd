package provenance

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
)

// Origin says whether a human spoke to the session being viewed or to another session in its
// hierarchy. It is never stored: it only means something relative to a viewer.
type Origin string

// The two origins every rendering marks.
const (
	Here      Origin = "here"
	Elsewhere Origin = "elsewhere"
)

// Budgets of the renderings (payload budgets): the uncut rendering lists the newest
// MaxHumanMessages plus the newest SummaryPerOrigin of each origin; the summary lists only the
// latter, each cut to SummaryContentLimit characters.
const (
	MaxHumanMessages    = 25
	SummaryPerOrigin    = 5
	SummaryContentLimit = 300
)

// Entry is one human message as seen from the session being viewed.
type Entry struct {
	roster.Message
	Origin Origin
	// SessionLabel is "<agent root> · <title>" of the session it was said to.
	SessionLabel string
	// DisplayName is the roster's name for the author, or the raw key once the key names no row:
	// the record still says who spoke, it just stops naming a person.
	DisplayName string
	// Notes is the roster's context about the author; "" when there is none.
	Notes string
}

// AuthoredIn names where the human was speaking, explicitly for the elsewhere case.
func (e Entry) AuthoredIn() string {
	if e.Origin == Here {
		return fmt.Sprintf("this session (#%d)", e.SessionID)
	}
	return fmt.Sprintf("session #%d — %s", e.SessionID, e.SessionLabel)
}

// Record is everything Zimmer knows a named human said anywhere in one session's hierarchy,
// with the capture gaps that qualify an empty answer.
type Record struct {
	Session   *session.Session
	Hierarchy *lineage.Hierarchy
	Entries   []Entry // the whole record, chronological (occurred_at, then id)
	Gaps      []Gap   // channels this hierarchy came in through that capture cannot see
}

// SessionID is the session the record is viewed from.
func (r Record) SessionID() int64 { return r.Hierarchy.SessionID }

// Empty reports a hierarchy where no named human is known to have said anything.
func (r Record) Empty() bool { return len(r.Entries) == 0 }

// HereCount counts the whole record's here entries, never only what a rendering shows.
func (r Record) HereCount() int { return r.count(Here) }

// ElsewhereCount counts the whole record's elsewhere entries.
func (r Record) ElsewhereCount() int { return r.count(Elsewhere) }

// HumanMessageHere answers the merge-gate question: did a named human speak to THIS session?
// Elsewhere entries are context, never authorization, so they never make it true.
func (r Record) HumanMessageHere() bool { return r.HereCount() > 0 }

// CaptureComplete reports that every channel the hierarchy came in through is instrumented.
func (r Record) CaptureComplete() bool { return len(r.Gaps) == 0 }

func (r Record) count(o Origin) int {
	n := 0
	for _, e := range r.Entries {
		if e.Origin == o {
			n++
		}
	}
	return n
}

// Gather builds the record of the session h was walked from: msgs are the messages said to the
// hierarchy's sessions, users the roster, adminKey ZIMMER_ADMIN_USER. It is pure so every
// surface sees the same record.
func Gather(sess *session.Session, h *lineage.Hierarchy, msgs []roster.Message, users []roster.User, adminKey string) Record {
	// Only the sessions a message was said in need a label; most hierarchies have few or none.
	labels := make(map[int64]string, len(msgs))
	for _, m := range msgs {
		labels[m.SessionID] = ""
	}
	for _, n := range h.Nodes {
		if _, said := labels[n.ID]; said {
			labels[n.ID] = rootLabel(n) + " · " + titleLabel(n)
		}
	}
	byKey := make(map[string]roster.User, len(users))
	for _, u := range users {
		byKey[u.Key] = u
	}
	sorted := slices.Clone(msgs)
	// The reader is reconstructing a conversation, so the order is when the human spoke.
	slices.SortStableFunc(sorted, func(a, b roster.Message) int {
		return cmp.Or(a.OccurredAt.Compare(b.OccurredAt), cmp.Compare(a.ID, b.ID))
	})
	rec := Record{Session: sess, Hierarchy: h, Entries: make([]Entry, 0, len(sorted)), Gaps: CaptureGaps(h, users, adminKey)}
	for _, m := range sorted {
		e := Entry{Message: m, Origin: Elsewhere, SessionLabel: "unknown", DisplayName: m.Author}
		if m.SessionID == h.SessionID {
			e.Origin = Here
		}
		if l := labels[m.SessionID]; l != "" {
			e.SessionLabel = l
		}
		if u, ok := byKey[m.Author]; ok {
			e.DisplayName, e.Notes = u.DisplayName, strings.TrimSpace(u.Notes)
		}
		rec.Entries = append(rec.Entries, e)
	}
	return rec
}

func rootLabel(n lineage.Node) string {
	if n.AgentRoot == "" {
		return "—"
	}
	return n.AgentRoot
}

func titleLabel(n lineage.Node) string {
	if strings.TrimSpace(n.Title) == "" {
		return fmt.Sprintf("Session #%d", n.ID)
	}
	return n.Title
}

// UncutSelection is what get_session_provenance lists: the newest MaxHumanMessages overall
// plus the newest SummaryPerOrigin of each origin, so chatty elsewhere entries can never push
// the here ones out. Chronological.
func (r Record) UncutSelection() []Entry {
	return r.selectEntries(MaxHumanMessages, SummaryPerOrigin)
}

// SummarySelection is what get_session lists by default: the newest SummaryPerOrigin of each
// origin. It is a subset of UncutSelection by construction, so pointing at that call is true.
func (r Record) SummarySelection() []Entry {
	return r.selectEntries(0, SummaryPerOrigin)
}

// Newest is the newest n entries overall, chronological: the full prompt block's selection.
func (r Record) Newest(n int) []Entry {
	return r.selectEntries(n, 0)
}

// selectEntries keeps the newest overall entries and the newest perOrigin of each origin, in
// the record's own order.
func (r Record) selectEntries(overall, perOrigin int) []Entry {
	keep := make([]bool, len(r.Entries))
	for i := max(0, len(r.Entries)-overall); i < len(r.Entries); i++ {
		keep[i] = true
	}
	left := map[Origin]int{Here: perOrigin, Elsewhere: perOrigin}
	for i := len(r.Entries) - 1; i >= 0; i-- {
		if o := r.Entries[i].Origin; left[o] > 0 {
			keep[i] = true
			left[o]--
		}
	}
	var out []Entry
	for i, e := range r.Entries {
		if keep[i] {
			out = append(out, e)
		}
	}
	return out
}

// described is one entry per author among shown with a roster note, in first-appearance order:
// each human is described once, only when a note exists, and only when their words are shown.
func described(shown []Entry) []Entry {
	var out []Entry
	seen := map[string]bool{}
	for _, e := range shown {
		if e.Notes != "" && !seen[e.Author] {
			seen[e.Author] = true
			out = append(out, e)
		}
	}
	return out
}
