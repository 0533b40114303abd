package graph

import (
	"errors"
	"fmt"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

func TestLostSchemaRaceIsOnlyTheRuleAlreadyExisting(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"an equivalent rule created meanwhile", &neo4j.Neo4jError{Code: "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"}, true},
		{"an index created meanwhile, wrapped", fmt.Errorf("x: %w", &neo4j.Neo4jError{Code: "Neo.ClientError.Schema.IndexAlreadyExists"}), true},
		{"a constraint created meanwhile", &neo4j.Neo4jError{Code: "Neo.ClientError.Schema.ConstraintAlreadyExists"}, true},
		{"a syntax error is a real failure", &neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError"}, false},
		{"a plain error is a real failure", errors.New("connection refused"), false},
	}
	for _, tt := range tests {
		if got := lostSchemaRace(tt.err); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
