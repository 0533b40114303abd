package web

import (
	"context"
	"fmt"
	"html/template"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/provenance"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// What the session page shows beyond its record: the transcript's last entries, the queue, the
// costs so far, the timeline and the buttons its status allows. Its panels are named templates
// of session.html, so a live update (live.go) re-renders exactly what the page rendered.

const (
	transcriptTail = 50  // transcript entries shown before "show earlier"
	queueShown     = 50  // pending messages listed
	logShown       = 30  // timeline lines listed, newest last
	maxQueueMoves  = 500 // a reorder's position bound, far past any real queue
)

type outlineLine struct {
	ID      int64
	Depth   int
	Text    string
	Current bool
}

type entryView struct {
	provenance.Entry
	Here      bool
	Permalink string // only an https link; anything else is not rendered
}

// actionView is one POST button (partials.html "action").
type actionView struct {
	Action, Label, Confirm, ID string
	Danger                     bool
	Fields                     map[string]string
	Token                      string
}

type sessionPage struct {
	Shown            string // digests of the panels as rendered, for the live stream (shownPanels)
	Session          *session.Session
	Root             string
	Notice           string
	Alert            string // beside the created notice: which of its MCP servers cannot start
	Category         string
	Outline          []outlineLine
	Drawing          template.HTML
	Truncated        bool
	TruncationReason string
	Entries          []entryView
	HereCount        int
	ElsewhereCount   int
	Gaps             []provenance.Gap
	Queue            []*session.Message
	QueueTotal       int
	Costs            session.UsageTotals
	Logs             []session.LogEntry
	EarlierLogs      int
	Transcript       orchestrator.TranscriptView
	Servers          []pickerOption // the server form's picker (the full page only, not a live update)
}

// Transcript reads for loadSessionPage: its last transcriptTail entries, every entry of the
// window, or none (a live update, which streams the transcript separately).
const (
	lastTranscript = iota
	allTranscript
	skipTranscript
)

// loadSessionPage reads everything the page shows but the notice.
func (h *Handler) loadSessionPage(ctx context.Context, id int64, transcriptRead int) (sessionPage, error) {
	v, err := h.ops.SessionView(ctx, id, queueShown)
	if err != nil {
		return sessionPage{}, err
	}
	rec, hier := v.Record, v.Record.Hierarchy
	p := sessionPage{Session: rec.Session, Root: rootLabel(rec.Session), Outline: outline(hier), Drawing: drawLineage(hier),
		Truncated: hier.Truncated, TruncationReason: hier.Reason(), HereCount: rec.HereCount(),
		ElsewhereCount: rec.ElsewhereCount(), Gaps: rec.Gaps, Queue: v.Pending, QueueTotal: v.PendingTotal}
	if v.Category != nil {
		p.Category = v.Category.Name
	}
	for _, e := range rec.Entries {
		ev := entryView{Entry: e, Here: e.Origin == provenance.Here}
		if strings.HasPrefix(e.SlackPermalink, "https://") {
			ev.Permalink = e.SlackPermalink
		}
		p.Entries = append(p.Entries, ev)
	}
	if p.Costs, err = h.ops.UsageTotals(ctx, id); err != nil {
		return sessionPage{}, err
	}
	logs, total, err := h.ops.RecentTimeline(ctx, id, logShown)
	if err != nil {
		return sessionPage{}, err
	}
	p.Logs, p.EarlierLogs = logs, total-len(logs)
	if transcriptRead == skipTranscript {
		return p, nil
	}
	last := transcriptTail
	if transcriptRead == allTranscript {
		last = 0
	}
	if p.Transcript, err = h.ops.TranscriptEntries(ctx, id, last); err != nil {
		return sessionPage{}, err
	}
	return p, nil
}

// actions are the buttons the session's status allows, each posting to its own route; the
// destructive ones ask first.
func actions(s *session.Session, token string) []actionView {
	path := func(a string) string { return fmt.Sprintf("/sessions/%d/%s", s.ID, a) }
	var out []actionView
	add := func(a actionView) { a.Token = token; out = append(out, a) }
	switch s.Status {
	case session.StatusRunning:
		add(actionView{Action: path("pause"), Label: "Pause", ID: "action-pause"})
	case session.StatusArchived:
		add(actionView{Action: path("unarchive"), Label: "Restore from Trash", ID: "action-unarchive"})
		add(actionView{Action: path("delete"), Label: "Delete forever", ID: "action-delete", Danger: true,
			Confirm: fmt.Sprintf("Delete session #%d and everything it owns, including its human-message records? This cannot be undone.", s.ID)})
	case session.StatusFailed, session.StatusNeedsInput:
		// Not offered on a waiting session: it may be asleep on a wake or queued, and a
		// restart would run it now behind the back of either.
		add(actionView{Action: path("restart"), Label: "Restart", ID: "action-restart"})
	}
	if inSpotQueue(s) {
		add(actionView{Action: path("start_now"), Label: "Start now", ID: "action-start-now"})
	}
	if s.Status != session.StatusArchived && s.PriorityClass() != session.ClassSpot {
		add(actionView{Action: path("demote_to_spot"), Label: "Demote to spot", ID: "action-demote"})
	}
	if s.Status != session.StatusArchived {
		sleep := "Sleep"
		if s.Status == session.StatusRunning {
			sleep = "Sleep after this turn"
		}
		add(actionView{Action: path("sleep"), Label: sleep, ID: "action-sleep"})
		add(actionView{Action: path("archive"), Label: "Archive", ID: "action-archive", Danger: true,
			Confirm: fmt.Sprintf("Archive session #%d? A running turn is stopped and queued messages are discarded; it can be restored from the Trash.", s.ID),
			Fields:  map[string]string{"force": "true"}})
	}
	add(actionView{Action: path("refresh"), Label: "Re-read transcript", ID: "action-refresh"})
	fav := "Favourite"
	if s.Favorited {
		fav = "Unfavourite"
	}
	add(actionView{Action: path("favorite"), Label: fav, ID: "action-favorite"})
	return out
}

// transcriptEntry is how an entry is drawn: its kind's label and whether it folds.
type transcriptEntry struct {
	transcript.Entry
	Label string
}

func transcriptEntries(es []transcript.Entry) []transcriptEntry {
	out := make([]transcriptEntry, len(es))
	for i, e := range es {
		out[i] = transcriptEntry{Entry: e, Label: entryLabels[e.Kind]}
		if e.Kind == transcript.KindToolCall && e.Name == "" {
			out[i].Label = "Tool result"
		}
	}
	return out
}

var entryLabels = map[transcript.Kind]string{
	transcript.KindTurn: "Turn", transcript.KindUser: "User", transcript.KindAssistant: "Assistant",
	transcript.KindToolCall: "Tool call", transcript.KindCommand: "Command", transcript.KindNote: "Note",
}
