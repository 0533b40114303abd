package graph

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/roster"
)

// RecordHumanMessage stores words a named human said to a session, sealed into its session's
// hash chain and the fleet-wide one, and returns its id. The author must be on the roster and
// the session must exist (ErrNotFound otherwise). There is deliberately no method that changes
// or deletes a message.
func (s *Store) RecordHumanMessage(ctx context.Context, m roster.Message) (int64, error) {
	id, err := write(ctx, s, "insert_human_message", func(tx txn) (int64, error) {
		rec, err := tx.single("lock_human_chain", queries.LockHumanChain, map[string]any{"session_id": m.SessionID, "author": m.Author})
		if err != nil {
			return 0, err
		}
		head := rec.AsMap()
		m.ID = asInt(head["id"])
		at := s.now().UTC()
		m.OccurredAt = m.OccurredAt.UTC()
		sealed := roster.Seal(m, at, &roster.Sealed{Seq: asInt(head["length"]), Digest: asString(head["prev"])})
		_, err = tx.single("insert_human_message", queries.InsertHumanMessage, map[string]any{
			"id": m.ID, "session_id": m.SessionID, "author": m.Author, "channel": m.Channel, "content": m.Content,
			"occurred_at": m.OccurredAt, "entry_point": m.EntryPoint, "slack_user_id": nullable(m.SlackUserID),
			"slack_channel": nullable(m.SlackChannel), "slack_permalink": nullable(m.SlackPermalink), "at": at,
			"seq": sealed.Seq, "content_digest": sealed.ContentDigest, "prev_digest": sealed.PrevDigest, "digest": sealed.Digest,
			"fleet_digest": roster.LinkDigest(asString(head["fleet_prev"]), sealed.Digest),
		})
		return m.ID, err
	})
	if err != nil {
		return 0, fmt.Errorf("record human message by %q in session %d: %w", m.Author, m.SessionID, err)
	}
	return id, nil
}

// Chain is one session's human-message chain as stored: its records in the order they were
// chained, and its head (length 0 and digest "" when there is none).
type Chain struct {
	SessionID  int64
	Records    []roster.Sealed
	HeadLength int64
	HeadDigest string
}

// ChainHead is the fleet-wide chain head: every record ever chained, folded in order.
type ChainHead struct {
	Length int64
	Digest string
}

// HumanChains reads human-message chains: one session's (sessionID > 0), or a page of every
// session that has any, limit sessions with ids above after.
func (s *Store) HumanChains(ctx context.Context, sessionID, after int64, limit int) ([]Chain, error) {
	var only any
	if sessionID > 0 {
		only = sessionID
	}
	out, err := read(ctx, s, "human_chains", func(tx txn) ([]Chain, error) {
		recs, err := tx.collect("human_chains", queries.HumanChains, map[string]any{"session_id": only, "after": after, "limit": limit})
		if err != nil {
			return nil, err
		}
		chains := make([]Chain, 0, len(recs))
		for _, r := range recs {
			m := r.AsMap()
			c := Chain{SessionID: asInt(m["session_id"])}
			for _, raw := range list(m["records"]) {
				c.Records = append(c.Records, sealedFrom(raw.(map[string]any)))
			}
			if h, ok := m["head"].(map[string]any); ok {
				c.HeadLength, c.HeadDigest = asInt(h["length"]), asString(h["digest"])
			}
			chains = append(chains, c)
		}
		return chains, nil
	})
	if err != nil {
		return nil, fmt.Errorf("read human-message chains: %w", err)
	}
	return out, nil
}

// FleetChainHead reads the fleet-wide chain head.
func (s *Store) FleetChainHead(ctx context.Context) (ChainHead, error) {
	out, err := read(ctx, s, "fleet_chain_head", func(tx txn) (ChainHead, error) {
		rec, err := tx.single("fleet_chain_head", queries.FleetChainHead, nil)
		if err != nil {
			return ChainHead{}, err
		}
		m := rec.AsMap()
		return ChainHead{Length: asInt(m["length"]), Digest: asString(m["digest"])}, nil
	})
	if err != nil {
		return ChainHead{}, fmt.Errorf("read the fleet chain head: %w", err)
	}
	return out, nil
}

func sealedFrom(m map[string]any) roster.Sealed {
	return roster.Sealed{Message: messageFrom(m), RecordedAt: timeOf(m["created_at"]), Seq: asInt(m["seq"]),
		ContentDigest: asString(m["content_digest"]), PrevDigest: asString(m["prev_digest"]), Digest: asString(m["digest"])}
}

// chainUnchained seals, in id order, the human-message records written before records were
// hash-chained, continuing each session's chain and the fleet's; a migration step, idempotent.
func (s *Store) chainUnchained(ctx context.Context) (int64, error) {
	return write(ctx, s, "chain_human_messages", func(tx txn) (int64, error) {
		rec, err := tx.single("unchained_human_messages", queries.UnchainedHumanMessages, nil)
		if err != nil {
			return 0, err
		}
		m := rec.AsMap()
		raws := list(m["records"])
		if len(raws) == 0 {
			return 0, nil
		}
		last := map[int64]*roster.Sealed{}
		for _, raw := range list(m["heads"]) {
			h := raw.(map[string]any)
			last[asInt(h["session_id"])] = &roster.Sealed{Seq: asInt(h["length"]), Digest: asString(h["digest"])}
		}
		fleetLength, fleetDigest := asInt(m["fleet_length"]), asString(m["fleet_digest"])
		records := make([]map[string]any, 0, len(raws))
		touched := map[int64]bool{}
		for _, raw := range raws {
			r := sealedFrom(raw.(map[string]any))
			sealed := roster.Seal(r.Message, r.RecordedAt, last[r.SessionID])
			last[r.SessionID], touched[r.SessionID] = &sealed, true
			fleetLength, fleetDigest = fleetLength+1, roster.LinkDigest(fleetDigest, sealed.Digest)
			records = append(records, map[string]any{"id": r.ID, "seq": sealed.Seq, "content_digest": sealed.ContentDigest,
				"prev_digest": sealed.PrevDigest, "digest": sealed.Digest})
		}
		heads := make([]map[string]any, 0, len(touched))
		for sid := range touched {
			heads = append(heads, map[string]any{"session_id": sid, "length": last[sid].Seq, "digest": last[sid].Digest})
		}
		out, err := tx.single("chain_human_messages", queries.ChainHumanMessages, map[string]any{
			"records": records, "heads": heads, "fleet_length": fleetLength, "fleet_digest": fleetDigest})
		if err != nil {
			return 0, err
		}
		n, _, err := neo4j.GetRecordValue[int64](out, "chained")
		return n, err
	})
}
