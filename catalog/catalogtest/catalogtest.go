// Package catalogtest reads back what the catalog writes into a working directory, with the
// real decoders, for the tests of the catalog and of the runner that writes those files.
package catalogtest

import (
	"encoding/json"
	"os"
	"testing"
)

// MCPServers is the mcpServers table of a written .mcp.json (Claude Code's and Pi's config).
func MCPServers(t testing.TB, path string) map[string]map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("written %s is not JSON: %v\n%s", path, err, data)
	}
	return doc.MCPServers
}
