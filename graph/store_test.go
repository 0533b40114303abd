package graph_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
)

// The test Neo4j runs with auth on, like every Neo4j `make up`, `make test` and compose start.
func TestOpenNeedsTheNeo4jCredentials(t *testing.T) {
	good := graphtest.Neo4jOptions()
	if good.Password == "" {
		t.Fatal("ZIMMER_TEST_NEO4J_PASSWORD is empty: run the tests with `make test` (or load .zimmer/test/test.env)")
	}
	const wrong = "not-the-password-4711"
	for _, tc := range []struct {
		name           string
		user, password string
		opens          bool
	}{
		{"without credentials", "", "", false},
		{"with a password Neo4j does not know", "zimmer-nobody", wrong, false},
		{"with the generated password", good.User, good.Password, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := good
			o.User, o.Password = tc.user, tc.password
			start := time.Now()
			s, err := graph.Open(context.Background(), o, 20*time.Second)
			if tc.opens {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				defer s.Close(context.Background())
				if err := s.Ping(context.Background()); err != nil {
					t.Fatalf("ping: %v", err)
				}
				return
			}
			if err == nil {
				s.Close(context.Background())
				t.Fatal("Neo4j accepted a client without its password: auth is off")
			}
			if !strings.Contains(err.Error(), "refused the credentials") || strings.Contains(err.Error(), wrong) {
				t.Errorf("want an error saying the credentials were refused, without the password; got %v", err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("refused credentials took %s to report: they are not retried", d)
			}
		})
	}
}
