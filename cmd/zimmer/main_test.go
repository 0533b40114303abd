package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
)

func TestRunRefusesWhatItCannotStart(t *testing.T) {
	tests := []struct {
		name string
		cmd  string
		env  map[string]string
		want string
	}{
		{"an unknown command", "launch", nil, `unknown command "launch"`},
		{"serve without API keys", "serve", nil, "API_KEYS is empty"},
		{"a malformed Neo4j URI", "migrate", map[string]string{"NEO4J_URI": "nope"}, "NEO4J_URI"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(context.Background(), tt.cmd, func(k string) string { return tt.env[k] }, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want an error containing %q, got %v", tt.want, err)
			}
		})
	}
}

func TestHelpPrintsUsage(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), "help", nil, &out); err != nil || !strings.Contains(out.String(), "serve") {
		t.Fatalf("help: %v %q", err, out.String())
	}
}

func TestMigrateAppliesTheSchemaToARealNeo4j(t *testing.T) {
	o := graphtest.Neo4jOptions()
	env := map[string]string{"NEO4J_URI": o.URI, "NEO4J_USER": o.User, "NEO4J_PASSWORD": o.Password}
	var out bytes.Buffer
	if err := run(context.Background(), "migrate", func(k string) string { return env[k] }, &out); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if !strings.Contains(out.String(), "schema applied") {
		t.Fatalf("migrate logs what it did: %q", out.String())
	}
}
