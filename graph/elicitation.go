package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// InsertElicitation stores a pending elicitation; a request_id already taken is ErrConflict.
func (s *Store) InsertElicitation(ctx context.Context, e session.Elicitation) (session.Elicitation, error) {
	schema, err := json.Marshal(e.RequestedSchema)
	if err != nil {
		return session.Elicitation{}, fmt.Errorf("elicitation schema: %w", err)
	}
	out, err := write(ctx, s, "insert_elicitation", func(tx txn) (session.Elicitation, error) {
		rec, err := tx.single("insert_elicitation", queries.InsertElicitation, map[string]any{"props": map[string]any{
			"request_id": e.RequestID, "session_id": optValue(e.SessionID), "message": e.Message, "schema_json": string(schema),
			"mode": e.Mode, "status": string(session.ElicitationPending), "created_at": s.now().UTC(), "expires_at": e.ExpiresAt.UTC(),
		}})
		if err != nil {
			return session.Elicitation{}, err
		}
		return recordElicitation(rec)
	})
	if err != nil {
		return session.Elicitation{}, fmt.Errorf("record elicitation %q: %w", e.RequestID, err)
	}
	return out, nil
}

// Elicitation reads one by request id, else by numeric id (ErrNotFound when neither names one).
func (s *Store) Elicitation(ctx context.Context, key string) (session.Elicitation, error) {
	var id any
	if n, err := strconv.ParseInt(key, 10, 64); err == nil {
		id = n
	}
	out, err := read(ctx, s, "get_elicitation", func(tx txn) (session.Elicitation, error) {
		rec, err := tx.single("get_elicitation", queries.GetElicitation, map[string]any{"key": key, "id": id})
		if err != nil {
			return session.Elicitation{}, err
		}
		return recordElicitation(rec)
	})
	if err != nil {
		return session.Elicitation{}, fmt.Errorf("elicitation %q: %w", key, err)
	}
	return out, nil
}

// ResolveElicitation answers a pending elicitation; one no longer pending is ErrNotFound.
func (s *Store) ResolveElicitation(ctx context.Context, id int64, status session.ElicitationStatus, response map[string]any) (session.Elicitation, error) {
	var body any
	if response != nil {
		b, err := json.Marshal(response)
		if err != nil {
			return session.Elicitation{}, fmt.Errorf("elicitation response: %w", err)
		}
		body = string(b)
	}
	out, err := write(ctx, s, "resolve_elicitation", func(tx txn) (session.Elicitation, error) {
		rec, err := tx.single("resolve_elicitation", queries.ResolveElicitation, map[string]any{
			"id": id, "status": string(status), "response_json": body, "at": s.now().UTC()})
		if err != nil {
			return session.Elicitation{}, err
		}
		return recordElicitation(rec)
	})
	if err != nil {
		return session.Elicitation{}, fmt.Errorf("resolve elicitation %d: %w", id, err)
	}
	return out, nil
}

// ExpireElicitations marks every overdue pending elicitation expired and returns them.
func (s *Store) ExpireElicitations(ctx context.Context) ([]session.Elicitation, error) {
	out, err := write(ctx, s, "expire_elicitations", func(tx txn) ([]session.Elicitation, error) {
		recs, err := tx.collect("expire_elicitations", queries.ExpireElicitations, map[string]any{"now": s.now().UTC()})
		if err != nil {
			return nil, err
		}
		list := make([]session.Elicitation, 0, len(recs))
		for _, rec := range recs {
			e, err := recordElicitation(rec)
			if err != nil {
				return nil, err
			}
			list = append(list, e)
		}
		return list, nil
	})
	if err != nil {
		return nil, fmt.Errorf("expire elicitations: %w", err)
	}
	return out, nil
}

func recordElicitation(rec *neo4j.Record) (session.Elicitation, error) {
	node, _, err := neo4j.GetRecordValue[neo4j.Node](rec, "e")
	if err != nil {
		return session.Elicitation{}, fmt.Errorf("read elicitation node: %w", err)
	}
	p := node.Props
	e := session.Elicitation{ID: asInt(p["id"]), RequestID: asString(p["request_id"]), SessionID: optInt(p["session_id"]),
		Message: asString(p["message"]), Mode: asString(p["mode"]), Status: session.ElicitationStatus(asString(p["status"])),
		CreatedAt: asTime(p["created_at"]), ExpiresAt: asTime(p["expires_at"]), RespondedAt: optTime(p["responded_at"])}
	_ = json.Unmarshal([]byte(asString(p["schema_json"])), &e.RequestedSchema) // written from a map
	if raw := asString(p["response_json"]); raw != "" {
		_ = json.Unmarshal([]byte(raw), &e.Response)
	}
	return e, nil
}
