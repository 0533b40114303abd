package graph_test

import (
	"context"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/roster"
)

func say(t *testing.T, store *graph.Store, sessionID int64, content string) int64 {
	t.Helper()
	id, err := store.RecordHumanMessage(context.Background(), roster.Message{SessionID: sessionID, Author: "tadasant",
		Channel: roster.ChannelWebUI, Content: content, EntryPoint: "web_ui.follow_up", OccurredAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func verify(t *testing.T, store *graph.Store, sessionID int64) (int, *roster.Break) {
	t.Helper()
	chains, err := store.HumanChains(context.Background(), sessionID, sessionID-1, 1)
	if err != nil || len(chains) != 1 {
		t.Fatalf("chains of #%d: %v %v", sessionID, chains, err)
	}
	c := chains[0]
	return len(c.Records), roster.VerifyChain(sessionID, c.Records, c.HeadLength, c.HeadDigest)
}

// TestMigrateChainsRecordsWrittenBeforeChaining: records with no digest (as every record was
// before chaining) are sealed in id order by the migration, after and around chained ones, and
// a second migration changes nothing.
func TestMigrateChainsRecordsWrittenBeforeChaining(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	legacy, mixed := graphtest.Session(t, store, nil), graphtest.Session(t, store, nil)
	say(t, store, mixed.ID, "chained first")
	for _, sid := range []int64{legacy.ID, legacy.ID, mixed.ID} {
		graphtest.Cypher(t, `MATCH (s:Session {id: $sid}) MATCH (c:Counter {name: 'human_message'}) SET c.value = c.value + 1
			CREATE (s)-[:HAS_HUMAN_MESSAGE]->(:HumanMessage {id: c.value, session_id: $sid, author: 'tadasant',
			  channel: 'web_ui', content: 'from before chaining', occurred_at: datetime(), entry_point: 'web_ui.follow_up',
			  created_at: datetime()})`, map[string]any{"sid": sid})
	}
	if n, b := verify(t, store, legacy.ID); b == nil || n != 2 {
		t.Fatalf("unchained records verified as a chain: %d records, %v", n, b)
	}
	if _, err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range []int64{legacy.ID, mixed.ID} {
		if n, b := verify(t, store, s); b != nil || n != 2 {
			t.Fatalf("session #%d after the migration: %d records, %v", s, n, b)
		}
	}
	say(t, store, legacy.ID, "chained after the migration")
	if _, err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if n, b := verify(t, store, legacy.ID); b != nil || n != 3 {
		t.Fatalf("after a second migration and a new record: %d records, %v", n, b)
	}
}

// TestAnEditInNeo4jBreaksTheChainAtThatRecord: changing one record's content directly in the
// database is found, naming that record; so is deleting a record.
func TestAnEditInNeo4jBreaksTheChainAtThatRecord(t *testing.T) {
	store := graphtest.Store(t)
	s := graphtest.Session(t, store, nil)
	var ids []int64
	for _, c := range []string{"Ship it on Tuesday.", "Use the blue button.", "Then tell Julie."} {
		ids = append(ids, say(t, store, s.ID, c))
	}
	if n, b := verify(t, store, s.ID); b != nil || n != 3 {
		t.Fatalf("fresh chain: %d records, %v", n, b)
	}
	graphtest.Cypher(t, "MATCH (h:HumanMessage {id: $id}) SET h.content = 'Ship it on Friday.'", map[string]any{"id": ids[0]})
	if _, b := verify(t, store, s.ID); b == nil || b.RecordID != ids[0] {
		t.Fatalf("edited record #%d: got %v", ids[0], b)
	}
	other := graphtest.Session(t, store, nil)
	kept := say(t, store, other.ID, "one")
	gone := say(t, store, other.ID, "two")
	graphtest.Cypher(t, "MATCH (h:HumanMessage {id: $id}) DETACH DELETE h", map[string]any{"id": gone})
	if _, b := verify(t, store, other.ID); b == nil || b.RecordID != kept {
		t.Fatalf("deleted last record #%d: got %v, want the break at #%d", gone, b, kept)
	}
}
