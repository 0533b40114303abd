package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
)

// The runner load check, small: sessions go through a real worker to needs_input and the
// report has its rows.
func TestRunnerLoadCheckReportsOverheadAndThroughput(t *testing.T) {
	store := graphtest.Store(t)
	var out bytes.Buffer
	if err := runnerLoad(context.Background(), store, options{runs: 8, redis: graphtest.RedisURL(12)}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"spawn overhead (claimed → CLI started)", "whole turn (claimed → needs_input)", "8 turns in", "turns/s"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("the report lacks %q:\n%s", want, out.String())
		}
	}
	t.Log("\n" + out.String())
}
