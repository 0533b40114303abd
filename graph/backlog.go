package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// Backlog returns the queued work-backlog items in rank order.
func (s *Store) Backlog(ctx context.Context) ([]session.BacklogItem, error) {
	out, err := read(ctx, s, "backlog", backlogQueue)
	if err != nil {
		return nil, fmt.Errorf("read the work backlog: %w", err)
	}
	return out, nil
}

// BacklogHistory returns up to limit items that left the queue, most recently changed first.
func (s *Store) BacklogHistory(ctx context.Context, limit int) ([]session.BacklogItem, error) {
	out, err := read(ctx, s, "backlog_history", func(tx txn) ([]session.BacklogItem, error) {
		return backlogItems(tx, "backlog_history", queries.BacklogHistory, map[string]any{"limit": limit})
	})
	if err != nil {
		return nil, fmt.Errorf("read the work backlog's history: %w", err)
	}
	return out, nil
}

// BacklogItem reads one item, queued or not (ErrNotFound when there is none).
func (s *Store) BacklogItem(ctx context.Context, id int64) (session.BacklogItem, error) {
	out, err := read(ctx, s, "get_backlog_item", func(tx txn) (session.BacklogItem, error) { return backlogItem(tx, id) })
	if err != nil {
		return session.BacklogItem{}, fmt.Errorf("backlog item %d: %w", id, err)
	}
	return out, nil
}

// LiveBacklogSessions counts the sessions the unattended backlog job started that are neither
// archived nor failed.
func (s *Store) LiveBacklogSessions(ctx context.Context) (int, error) {
	out, err := read(ctx, s, "live_backlog_sessions", func(tx txn) (int, error) {
		rec, err := tx.single("live_backlog_sessions", queries.LiveBacklogSessions,
			map[string]any{"started_by": session.BacklogStartedByJob})
		if err != nil {
			return 0, err
		}
		n, _, err := neo4j.GetRecordValue[int64](rec, "live")
		return int(n), err
	})
	if err != nil {
		return 0, fmt.Errorf("count the backlog job's live sessions: %w", err)
	}
	return out, nil
}

// BacklogEdit is what an edit of the queue returns: the new queue in rank order (an item with
// no id is new and is inserted) and the items that left it, with their new status.
type BacklogEdit struct {
	Queue []session.BacklogItem
	Left  []session.BacklogItem
}

// EditBacklog runs edit on the queue under the backlog lock, then stores the result in the same
// transaction: new items inserted, every item written, the queue ranked 1..n in the order given.
// An error from edit writes nothing. It returns what was stored, ids and ranks filled in.
func (s *Store) EditBacklog(ctx context.Context, edit func(queue []session.BacklogItem) (BacklogEdit, error)) (BacklogEdit, error) {
	out, err := write(ctx, s, "edit_backlog", func(tx txn) (BacklogEdit, error) {
		if _, err := tx.single("lock_backlog", queries.LockBacklog, nil); err != nil {
			return BacklogEdit{}, err
		}
		queue, err := backlogQueue(tx)
		if err != nil {
			return BacklogEdit{}, err
		}
		e, err := edit(queue)
		if err != nil {
			return BacklogEdit{}, err
		}
		at := s.now().UTC()
		rows := make([]map[string]any, 0, len(e.Queue)+len(e.Left))
		for i := range e.Queue {
			it := &e.Queue[i]
			it.Rank, it.Status = int64(i+1), session.BacklogQueued
			if it.ID == 0 {
				it.CreatedAt = at
				if it.ID, err = insertBacklogItem(tx, backlogProps(*it, at)); err != nil {
					return BacklogEdit{}, err
				}
			}
			it.UpdatedAt = at
			rows = append(rows, map[string]any{"id": it.ID, "props": backlogProps(*it, at)})
		}
		for i := range e.Left {
			it := &e.Left[i]
			it.Rank, it.UpdatedAt = 0, at
			rows = append(rows, map[string]any{"id": it.ID, "props": backlogProps(*it, at)})
		}
		if _, err := tx.collect("write_backlog_items", queries.WriteBacklogItems, map[string]any{"rows": rows}); err != nil {
			return BacklogEdit{}, err
		}
		return e, nil
	})
	if err != nil {
		return BacklogEdit{}, fmt.Errorf("edit the work backlog: %w", err)
	}
	return out, nil
}

// UpdateBacklogItem applies mutate to an item that is not queued (one being started) under the
// backlog lock and stores it; ranks are EditBacklog's alone.
func (s *Store) UpdateBacklogItem(ctx context.Context, id int64, mutate func(*session.BacklogItem) error) (session.BacklogItem, error) {
	out, err := write(ctx, s, "update_backlog_item", func(tx txn) (session.BacklogItem, error) {
		if _, err := tx.single("lock_backlog", queries.LockBacklog, nil); err != nil {
			return session.BacklogItem{}, err
		}
		it, err := backlogItem(tx, id)
		if err != nil {
			return session.BacklogItem{}, err
		}
		if err := mutate(&it); err != nil {
			return session.BacklogItem{}, err
		}
		if it.Status == session.BacklogQueued {
			return session.BacklogItem{}, fmt.Errorf("%w: an item goes back on the queue only through an edit of the queue", ErrInvalid)
		}
		it.Rank, it.UpdatedAt = 0, s.now().UTC()
		_, err = tx.collect("write_backlog_items", queries.WriteBacklogItems, map[string]any{
			"rows": []map[string]any{{"id": it.ID, "props": backlogProps(it, it.UpdatedAt)}},
		})
		return it, err
	})
	if err != nil {
		return session.BacklogItem{}, fmt.Errorf("update backlog item %d: %w", id, err)
	}
	return out, nil
}

func backlogQueue(tx txn) ([]session.BacklogItem, error) {
	return backlogItems(tx, "backlog_queue", queries.BacklogQueue, nil)
}

func backlogItem(tx txn, id int64) (session.BacklogItem, error) {
	rec, err := tx.single("get_backlog_item", queries.GetBacklogItem, map[string]any{"id": id})
	if err != nil {
		return session.BacklogItem{}, err
	}
	return recordBacklogItem(rec)
}

func backlogItems(tx txn, name, cypher string, params map[string]any) ([]session.BacklogItem, error) {
	recs, err := tx.collect(name, cypher, params)
	if err != nil {
		return nil, err
	}
	out := make([]session.BacklogItem, 0, len(recs))
	for _, rec := range recs {
		it, err := recordBacklogItem(rec)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

func insertBacklogItem(tx txn, props map[string]any) (int64, error) {
	rec, err := tx.single("insert_backlog_item", queries.InsertBacklogItem, map[string]any{"props": props})
	if err != nil {
		return 0, err
	}
	id, _, err := neo4j.GetRecordValue[int64](rec, "id")
	return id, err
}

// backlogProps are an item's stored properties but its id; a nil value removes the property.
func backlogProps(it session.BacklogItem, at time.Time) map[string]any {
	return map[string]any{
		"issue_url": it.IssueURL, "title": it.Title, "notes": it.Notes, "band": it.Band, "rank": it.Rank,
		"pinned": it.Pinned, "status": string(it.Status), "added_by_session": optValue(it.AddedBySession),
		"added_by_root": it.AddedByRoot, "added_by": it.AddedBy, "session_id": optValue(it.SessionID),
		"pulled_by": optValue(it.PulledBy), "started_by": it.StartedBy, "removed_reason": it.RemovedReason,
		"created_at": it.CreatedAt, "updated_at": at,
	}
}

func recordBacklogItem(rec *neo4j.Record) (session.BacklogItem, error) {
	node, _, err := neo4j.GetRecordValue[neo4j.Node](rec, "b")
	if err != nil {
		return session.BacklogItem{}, fmt.Errorf("read backlog item node: %w", err)
	}
	p := node.Props
	return session.BacklogItem{
		ID: asInt(p["id"]), IssueURL: asString(p["issue_url"]), Title: asString(p["title"]), Notes: asString(p["notes"]),
		Band: asString(p["band"]), Rank: asInt(p["rank"]), Pinned: asBool(p["pinned"]),
		Status: session.BacklogStatus(asString(p["status"])), AddedBySession: optInt(p["added_by_session"]),
		AddedByRoot: asString(p["added_by_root"]), AddedBy: asString(p["added_by"]), SessionID: optInt(p["session_id"]),
		PulledBy: optInt(p["pulled_by"]), StartedBy: asString(p["started_by"]), RemovedReason: asString(p["removed_reason"]),
		CreatedAt: asTime(p["created_at"]), UpdatedAt: asTime(p["updated_at"]),
	}, nil
}
