package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/catalog/catalogtest"
)

func secretsFile(t *testing.T, text string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secrets")
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPlaceholdersResolveFromTheSecretsFileThenTheEnvironment(t *testing.T) {
	file := secretsFile(t, "# the fleet's tokens\nFROM_FILE=file-value\n\nBOTH=file wins\nEMPTY=\nSPACED = a b=c \n", 0o600)
	env := map[string]string{"BOTH": "env loses", "FROM_ENV": "env-value"}
	lookup, err := SecretsLookup(file, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"FROM_FILE", "file-value", true},
		{"BOTH", "file wins", true},
		{"FROM_ENV", "env-value", true},
		{"EMPTY", "", true},
		{"SPACED", " a b=c", true},
		{"NOWHERE", "", false},
	}
	for _, tt := range tests {
		if v, ok := lookup(tt.name); v != tt.want || ok != tt.ok {
			t.Errorf("%s: got (%q, %v), want (%q, %v)", tt.name, v, ok, tt.want, tt.ok)
		}
	}
	if _, err := SecretsLookup("", nil); err != nil {
		t.Fatalf("no secrets file is the environment alone: %v", err)
	}
}

func TestUnusableSecretsFilesAreRefusedWithoutShowingAValue(t *testing.T) {
	tests := []struct {
		name, text string
		mode       os.FileMode
		want       string
	}{
		{"readable by others", "TOKEN=hunter2-secret\n", 0o644, "must be 0600"},
		{"readable by the group", "TOKEN=hunter2-secret\n", 0o640, "must be 0600"},
		{"a line without =", "TOKEN=ok\nhunter2-secret\n", 0o600, "line 2 is not KEY=value"},
		{"a lower-case key", "token=hunter2-secret\n", 0o600, "line 1 is not KEY=value"},
	}
	for _, tt := range tests {
		_, err := SecretsLookup(secretsFile(t, tt.text, tt.mode), nil)
		if !errors.Is(err, ErrSecretsFile) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the error shows a value: %v", tt.name, err)
		}
	}
	if _, err := SecretsLookup(filepath.Join(t.TempDir(), "absent"), nil); !errors.Is(err, ErrSecretsFile) {
		t.Errorf("a missing secrets file is an error: %v", err)
	}
}

// The secrets file feeds the same rules as the environment: Zimmer's own names are never
// expanded from it, and ZIMMER_MCP_VARIABLES still decides what may be read.
func TestSecretsFileValuesObeyReservedNamesAndTheAllowList(t *testing.T) {
	c := testCatalog(t)
	file := secretsFile(t, "REMOTE_TOKEN=from-file\nAPI_KEYS=stolen-fleet-key\nNEO4J_PASSWORD=stolen\nZIMMER_WEB_PASSWORD=stolen\n", 0o600)
	lookup, err := SecretsLookup(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := request(t, RuntimeClaude, "remote")
	req.Lookup = lookup
	out, err := c.WriteRuntimeConfig(req)
	if err != nil {
		t.Fatal(err)
	}
	if got := catalogtest.MCPServers(t, out.Path)["remote"]["headers"].(map[string]any)["Authorization"]; got != "Bearer from-file" {
		t.Fatalf("a file value fills the placeholder: %v", got)
	}

	req = request(t, RuntimeClaude, "greedy")
	req.Lookup = lookup
	var ue *UnresolvedError
	if _, err := c.WriteRuntimeConfig(req); !errors.As(err, &ue) || len(ue.Refused) != 3 || strings.Contains(err.Error(), "stolen") {
		t.Fatalf("Zimmer's own names stay refused whatever the file says: %v", err)
	}

	req = request(t, RuntimeClaude, "remote")
	req.Lookup, req.Allowed = lookup, []string{"SOMETHING_ELSE"}
	if _, err := c.WriteRuntimeConfig(req); !errors.As(err, &ue) || len(ue.Refused) != 1 || ue.Refused[0] != "REMOTE_TOKEN" {
		t.Fatalf("a name outside ZIMMER_MCP_VARIABLES is refused even when the file has it: %v", err)
	}
}
