package graphtest

import (
	"context"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Cypher runs one statement on the test database behind the store's back: what someone with
// direct access to Neo4j can do (edit a record, delete a node), for tests of what Zimmer
// detects afterwards.
func Cypher(t testing.TB, cypher string, params map[string]any) {
	t.Helper()
	Query(t, cypher, params)
}

// Query is Cypher returning what the statement returned, for tests that look at the records
// or the plan (run with PROFILE) themselves.
func Query(t testing.TB, cypher string, params map[string]any) *neo4j.EagerResult {
	t.Helper()
	o := Neo4jOptions()
	ctx := context.Background()
	driver, err := neo4j.NewDriverWithContext(o.URI, neo4j.BasicAuth(o.User, o.Password, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer driver.Close(ctx)
	res, err := neo4j.ExecuteQuery(ctx, driver, cypher, params, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("%s: %v", cypher, err)
	}
	return res
}
