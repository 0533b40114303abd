package graph

import (
	"errors"
	"fmt"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// A read runs its statements without an explicit transaction, and runs again as a managed one
// exactly when the driver would have retried, however deep our context wraps the failure.
func TestAReadIsRetriedExactlyWhenTheDriverWouldRetry(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"no error", nil, false},
		{"a lost connection, wrapped by the statement helper", fmt.Errorf("session_provenance: %w", &neo4j.ConnectivityError{Inner: errors.New("EOF")}), true},
		{"a transient error, wrapped twice", fmt.Errorf("provenance of session 7: %w", fmt.Errorf("session_provenance: %w",
			&neo4j.Neo4jError{Code: "Neo.TransientError.Transaction.DeadlockDetected"})), true},
		{"a syntax error", fmt.Errorf("session_provenance: %w", &neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError"}), false},
		{"a missing session", fmt.Errorf("get session 7: %w", ErrNotFound), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := retriable(tc.err); got != tc.want {
				t.Errorf("retriable(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
