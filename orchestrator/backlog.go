package orchestrator

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// The work backlog: a ranked queue of cleared issues, each of which becomes an unattended spot
// session on the orchestrator root. Agents may read it, append to it (placed by band) and pull
// from its top; pinning, hand-placing, removing by judgement and starting as a priority session
// are the human's levers and exist only here for the REST controller and the web page.

// BacklogRoot is the agent root a backlog item is started on.
const BacklogRoot = "zimmer-orchestrator"

// MaxBacklogPull is the most items one pull may start.
const MaxBacklogPull = 20

// BacklogJobLimit is how many sessions the unattended backlog job keeps live at once.
const BacklogJobLimit = 2

// ErrBacklogItemNotFound is an unknown backlog item id; it is also ErrNotFound.
var ErrBacklogItemNotFound = fmt.Errorf("backlog item %w", ErrNotFound)

// Backlog is the queued items in rank order.
func (s *Service) Backlog(ctx context.Context) ([]session.BacklogItem, error) {
	return s.store.Backlog(ctx)
}

// BacklogHistory is the latest items that left the queue.
func (s *Service) BacklogHistory(ctx context.Context, limit int) ([]session.BacklogItem, error) {
	return s.store.BacklogHistory(ctx, limit)
}

// BacklogAppend is a new item. AddedBySession and AddedByRoot come from an agent's connection,
// AddedBy from a human's login; never from the item's own text.
type BacklogAppend struct {
	IssueURL, Title, Notes, Band string
	AddedBySession               *int64
	AddedByRoot, AddedBy         string
}

// AppendBacklogItem places a new item by the band rules. An issue already queued is refused
// with its position, so two writers cannot queue the same work twice.
func (s *Service) AppendBacklogItem(ctx context.Context, a BacklogAppend) (session.BacklogItem, error) {
	it := session.BacklogItem{
		IssueURL: strings.TrimSpace(a.IssueURL), Title: strings.TrimSpace(a.Title), Notes: strings.TrimSpace(a.Notes),
		Band: cmp.Or(strings.TrimSpace(a.Band), session.DefaultBacklogBand), AddedBySession: a.AddedBySession,
		AddedByRoot: a.AddedByRoot, AddedBy: a.AddedBy,
	}
	var p problems
	switch {
	case it.IssueURL == "":
		p.add("issue_url can't be blank")
	case len(it.IssueURL) > session.MaxBacklogURL:
		p.add(fmt.Sprintf("issue_url is too long (maximum is %d characters)", session.MaxBacklogURL))
	case !strings.HasPrefix(it.IssueURL, "https://") && !strings.HasPrefix(it.IssueURL, "http://"):
		p.add("issue_url must be an http(s) URL of the issue")
	}
	if len(it.Title) > session.MaxBacklogTitle {
		p.add(fmt.Sprintf("title is too long (maximum is %d characters)", session.MaxBacklogTitle))
	}
	if len(it.Notes) > session.MaxBacklogNotes {
		p.add(fmt.Sprintf("notes is too long (maximum is %d characters)", session.MaxBacklogNotes))
	}
	if !slices.Contains(session.BacklogBands, it.Band) {
		p.add(fmt.Sprintf("band must be one of %s (got %q)", strings.Join(session.BacklogBands, ", "), it.Band))
	}
	if err := p.err("Validation failed"); err != nil {
		return session.BacklogItem{}, err
	}
	var at int
	out, err := s.store.EditBacklog(ctx, func(queue []session.BacklogItem) (graph.BacklogEdit, error) {
		if i := slices.IndexFunc(queue, func(q session.BacklogItem) bool { return q.IssueURL == it.IssueURL }); i >= 0 {
			return graph.BacklogEdit{}, invalid("Already on the backlog",
				fmt.Sprintf("%s is item #%d at position %d of %d", it.IssueURL, queue[i].ID, i+1, len(queue)))
		}
		at = session.BacklogPlacement(queue, it.Band)
		return graph.BacklogEdit{Queue: slices.Insert(queue, at, it)}, nil
	})
	if err != nil {
		return session.BacklogItem{}, err
	}
	return out.Queue[at], nil
}

// BacklogRemoval is one item an agent removes on a pull, with a reason from the fixed
// vocabulary (session.BacklogRemovalReasons).
type BacklogRemoval struct {
	ItemID int64
	Reason string
}

// BacklogStart is one item a pull or a human started: the session, or why it could not start
// (the item is then back at the top of the queue).
type BacklogStart struct {
	Item    session.BacklogItem
	Session *session.Session
	Err     error
}

// BacklogPull is the outcome of a pull.
type BacklogPull struct {
	Removed []session.BacklogItem
	Started []BacklogStart
	Left    int // items still queued after the pull
}

// PullBacklog removes the listed items (each with a reason from the vocabulary), then starts
// the top count items as spot sessions on the orchestrator root, each a child of caller.
// Nothing is written when a removal is refused.
func (s *Service) PullBacklog(ctx context.Context, caller int64, count int, removals []BacklogRemoval) (BacklogPull, error) {
	if count < 0 || count > MaxBacklogPull {
		return BacklogPull{}, invalid("Validation failed", fmt.Sprintf("count must be between 0 and %d", MaxBacklogPull))
	}
	for _, r := range removals {
		if !slices.Contains(session.BacklogRemovalReasons, r.Reason) {
			return BacklogPull{}, invalid("Validation failed", fmt.Sprintf("item #%d: the reason must be one of %s (got %q); "+
				"an item is removed only for an observed fact, never by judgement", r.ItemID, strings.Join(session.BacklogRemovalReasons, ", "), r.Reason))
		}
	}
	if _, err := s.store.GetSession(ctx, caller); err != nil {
		return BacklogPull{}, fmt.Errorf("the pulling session: %w", err)
	}
	var out BacklogPull
	edit, err := s.store.EditBacklog(ctx, func(queue []session.BacklogItem) (graph.BacklogEdit, error) {
		var e graph.BacklogEdit
		for _, r := range removals {
			i := slices.IndexFunc(queue, func(q session.BacklogItem) bool { return q.ID == r.ItemID })
			if i < 0 {
				return e, invalid("Validation failed", fmt.Sprintf("item #%d is not on the backlog (nothing was removed or pulled)", r.ItemID))
			}
			it := queue[i]
			it.Status, it.RemovedReason, it.PulledBy = session.BacklogRemoved, r.Reason, &caller
			e.Left = append(e.Left, it)
			queue = slices.Delete(queue, i, i+1)
		}
		n := min(count, len(queue))
		for _, it := range queue[:n] {
			it.Status, it.PulledBy, it.StartedBy = session.BacklogStarting, &caller, fmt.Sprintf("session #%d", caller)
			e.Left = append(e.Left, it)
		}
		e.Queue = queue[n:]
		return e, nil
	})
	if err != nil {
		return BacklogPull{}, err
	}
	for _, it := range edit.Left {
		if it.Status == session.BacklogRemoved {
			out.Removed = append(out.Removed, it)
			continue
		}
		out.Started = append(out.Started, s.startBacklogItem(ctx, it, &caller, "spot"))
	}
	out.Left = len(edit.Queue)
	return out, nil
}

// startBacklogItem creates the item's session (keyed by the item, so a retry of a start that
// failed after the create returns the same session) and records it on the row. A failed start
// puts the item back at the top of the queue.
func (s *Service) startBacklogItem(ctx context.Context, it session.BacklogItem, parent *int64, class string) BacklogStart {
	prompt := backlogPrompt(it)
	key := fmt.Sprintf("zimmer-backlog-item-%d", it.ID)
	root, title := BacklogRoot, clipTitle(cmp.Or(it.Title, it.IssueURL))
	created, err := s.Create(ctx, CreateParams{
		AgentRoot: &root, Prompt: &prompt, Title: &title, SchedulingClass: &class, IdempotencyKey: &key,
		ParentSessionID: parent, Genesis: session.GenesisAPI,
		CustomMetadata: map[string]any{"backlog_item_id": it.ID, "issue_url": it.IssueURL},
	})
	if err == nil {
		var stored session.BacklogItem
		stored, err = s.store.UpdateBacklogItem(ctx, it.ID, func(b *session.BacklogItem) error {
			b.Status, b.SessionID = session.BacklogStarted, &created.Session.ID
			return nil
		})
		if err == nil {
			return BacklogStart{Item: stored, Session: created.Session}
		}
	}
	if _, rerr := s.store.EditBacklog(ctx, func(queue []session.BacklogItem) (graph.BacklogEdit, error) {
		back := it
		back.PulledBy, back.StartedBy = nil, ""
		return graph.BacklogEdit{Queue: slices.Insert(queue, 0, back)}, nil
	}); rerr != nil {
		s.log.Error("backlog: an item that failed to start could not be put back", "item", it.ID, "err", rerr)
	}
	return BacklogStart{Item: it, Err: err}
}

func backlogPrompt(it session.BacklogItem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Implement the cleared issue %s", it.IssueURL)
	if it.Title != "" {
		fmt.Fprintf(&b, " (%s)", it.Title)
	}
	b.WriteString(".\n")
	if it.Notes != "" {
		b.WriteString("\nNotes from whoever queued it:\n" + it.Notes + "\n")
	}
	fmt.Fprintf(&b, "\nThis session was started from Zimmer's work backlog (item #%d).\n", it.ID)
	return b.String()
}

// RunBacklogJob is the unattended backlog job: while fewer than BacklogJobLimit of the sessions
// it started are live, it starts the top item (a spot session with no parent). It reports what
// it started; an empty queue or a full quota starts nothing.
func (s *Service) RunBacklogJob(ctx context.Context) ([]BacklogStart, error) {
	live, err := s.store.LiveBacklogSessions(ctx)
	if err != nil {
		return nil, err
	}
	var started []BacklogStart
	for ; live < BacklogJobLimit; live++ {
		var item *session.BacklogItem
		if _, err := s.store.EditBacklog(ctx, func(queue []session.BacklogItem) (graph.BacklogEdit, error) {
			if len(queue) == 0 {
				return graph.BacklogEdit{}, nil
			}
			it := queue[0]
			it.Status, it.StartedBy = session.BacklogStarting, session.BacklogStartedByJob
			item = &it
			return graph.BacklogEdit{Queue: queue[1:], Left: []session.BacklogItem{it}}, nil
		}); err != nil || item == nil {
			return started, err
		}
		st := s.startBacklogItem(ctx, *item, nil, "spot")
		started = append(started, st)
		if st.Err != nil {
			return started, st.Err
		}
	}
	return started, nil
}

// The human's levers.

// PinBacklogItem pins or unpins a queued item where it stands: appends never land above a pin.
func (s *Service) PinBacklogItem(ctx context.Context, id int64, pinned bool) (session.BacklogItem, error) {
	return s.editQueuedItem(ctx, id, func(queue []session.BacklogItem, i int) []session.BacklogItem {
		queue[i].Pinned = pinned
		return queue
	})
}

// PlaceBacklogItem moves a queued item to position (1-based; past the end is the end).
func (s *Service) PlaceBacklogItem(ctx context.Context, id int64, position int) (session.BacklogItem, error) {
	if position < 1 {
		return session.BacklogItem{}, invalid("Validation failed", "position must be 1 or more")
	}
	return s.editQueuedItem(ctx, id, func(queue []session.BacklogItem, i int) []session.BacklogItem {
		it := queue[i]
		queue = slices.Delete(queue, i, i+1)
		return slices.Insert(queue, min(position-1, len(queue)), it)
	})
}

// RemoveBacklogItem takes a queued item off the backlog for the human's reason.
func (s *Service) RemoveBacklogItem(ctx context.Context, id int64, reason, by string) (session.BacklogItem, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return session.BacklogItem{}, invalid("Validation failed", "reason can't be blank")
	}
	var removed session.BacklogItem
	_, err := s.store.EditBacklog(ctx, func(queue []session.BacklogItem) (graph.BacklogEdit, error) {
		i, err := queuedIndex(queue, id)
		if err != nil {
			return graph.BacklogEdit{}, err
		}
		removed = queue[i]
		removed.Status, removed.RemovedReason = session.BacklogRemoved, fmt.Sprintf("%s (by %s)", reason, by)
		return graph.BacklogEdit{Queue: slices.Delete(queue, i, i+1), Left: []session.BacklogItem{removed}}, nil
	})
	return removed, err
}

// StartBacklogItemAsPriority starts a queued item now as a priority session with no parent.
func (s *Service) StartBacklogItemAsPriority(ctx context.Context, id int64, by string) (BacklogStart, error) {
	var item session.BacklogItem
	_, err := s.store.EditBacklog(ctx, func(queue []session.BacklogItem) (graph.BacklogEdit, error) {
		i, err := queuedIndex(queue, id)
		if err != nil {
			return graph.BacklogEdit{}, err
		}
		item = queue[i]
		item.Status, item.StartedBy = session.BacklogStarting, by
		return graph.BacklogEdit{Queue: slices.Delete(queue, i, i+1), Left: []session.BacklogItem{item}}, nil
	})
	if err != nil {
		return BacklogStart{}, err
	}
	st := s.startBacklogItem(ctx, item, nil, "priority")
	return st, st.Err
}

func (s *Service) editQueuedItem(ctx context.Context, id int64, edit func([]session.BacklogItem, int) []session.BacklogItem) (session.BacklogItem, error) {
	var out session.BacklogItem
	res, err := s.store.EditBacklog(ctx, func(queue []session.BacklogItem) (graph.BacklogEdit, error) {
		i, err := queuedIndex(queue, id)
		if err != nil {
			return graph.BacklogEdit{}, err
		}
		return graph.BacklogEdit{Queue: edit(queue, i)}, nil
	})
	if err != nil {
		return out, err
	}
	i, _ := queuedIndex(res.Queue, id)
	return res.Queue[i], nil
}

func queuedIndex(queue []session.BacklogItem, id int64) (int, error) {
	if i := slices.IndexFunc(queue, func(q session.BacklogItem) bool { return q.ID == id }); i >= 0 {
		return i, nil
	}
	return -1, &NotFoundError{Message: fmt.Sprintf("Backlog item #%d is not on the backlog", id), Kind: ErrBacklogItemNotFound}
}
