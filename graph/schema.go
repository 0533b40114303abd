package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
)

// Migrate creates every constraint, index and id sequence; it is idempotent and runs at every
// `zimmer serve` start as well as from `zimmer migrate`. It returns the statements it ran.
func (s *Store) Migrate(ctx context.Context) (int, error) {
	stmts := queries.SchemaStatements()
	for _, stmt := range stmts {
		// Schema commands cannot share a transaction with anything else: one auto-commit each.
		if _, err := neo4j.ExecuteQuery(ctx, s.driver, stmt, nil, neo4j.EagerResultTransformer); err != nil && !lostSchemaRace(err) {
			return 0, fmt.Errorf("migrate %q: %w", stmt, err)
		}
	}
	if _, err := neo4j.ExecuteQuery(ctx, s.driver, queries.AwaitIndexes, nil, neo4j.EagerResultTransformer); err != nil {
		return 0, fmt.Errorf("migrate: wait for indexes: %w", err)
	}
	_, err := write(ctx, s, "ensure_counters", func(tx txn) (struct{}, error) {
		_, err := tx.collect("ensure_counters", queries.EnsureCounters, map[string]any{
			"names": []string{"session", "enqueued_message", "category", "human_message", "notification", "trigger", "trigger_condition",
				"backlog_item", "gate_decision", "outcome_analysis", "elicitation", "subagent_transcript"},
		})
		return struct{}{}, err
	})
	if err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	if err := s.SeedUsers(ctx); err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	// Records written before human messages were hash-chained join their chains, in order.
	if _, err := s.chainUnchained(ctx); err != nil {
		return 0, fmt.Errorf("migrate: chain human messages: %w", err)
	}
	// A ledger written before the cost reports read daily summaries gets them, once.
	if err := s.summarizeLedger(ctx); err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	// Sessions that spent before each had a packed cost summary get theirs, once.
	if err := s.packCostSummaries(ctx); err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	// Sessions and edges written before the lineage writers marked them (spawners, wide
	// seniors, edges' ends) get the marks, once.
	if err := s.markLineage(ctx); err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	return len(stmts) + 6, nil
}

// lostSchemaRace reports the error a schema command gets when another process created the same
// rule between its IF NOT EXISTS check and its own write (two processes migrating one fresh
// database at once): the rule exists, which is all the migration wanted.
func lostSchemaRace(err error) bool {
	var ne *neo4j.Neo4jError
	if !errors.As(err, &ne) {
		return false
	}
	switch ne.Code {
	case "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
		"Neo.ClientError.Schema.IndexAlreadyExists",
		"Neo.ClientError.Schema.ConstraintAlreadyExists":
		return true
	}
	return false
}
