package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
)

// InjectedBlock is one prompt block a turn carried: its cost name, its size in bytes and the
// tokens estimated for it.
type InjectedBlock struct {
	Block         string
	Bytes, Tokens int64
}

// RecordInjectedBlocks adds a turn's injected blocks to its session's tally for the day of at,
// under the model the turn ran. A session that is gone records nothing.
func (s *Store) RecordInjectedBlocks(ctx context.Context, sessionID int64, model string, at time.Time, blocks []InjectedBlock) error {
	if len(blocks) == 0 {
		return nil
	}
	rows := make([]map[string]any, len(blocks))
	for i, b := range blocks {
		rows[i] = map[string]any{"block": b.Block, "bytes": b.Bytes, "tokens": b.Tokens}
	}
	at = at.UTC()
	_, err := write(ctx, s, "record_injected_blocks", func(tx txn) (int64, error) {
		rec, err := tx.single("record_injected_blocks", queries.RecordInjectedBlocks, map[string]any{"session_id": sessionID,
			"model": model, "day": at.Truncate(24 * time.Hour), "blocks": rows})
		if err != nil {
			return 0, err
		}
		n, _, err := neo4j.GetRecordValue[int64](rec, "recorded")
		if err != nil || n == 0 {
			return n, err
		}
		return n, tx.rebuildCostSummaries([]any{sessionID})
	})
	if err != nil {
		return fmt.Errorf("record the injected blocks of session %d: %w", sessionID, err)
	}
	return nil
}

// InjectedBlockRow is the tally of one block under one model over a window.
type InjectedBlockRow struct {
	Block, Model               string
	Occurrences, Bytes, Tokens int64
}
