package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
)

// setupSecrets serves the readiness catalog with a secrets file of the given mode, and a value in
// the environment for the catalog's set placeholder.
func setupSecrets(t *testing.T, mode os.FileMode) *env {
	t.Helper()
	file := filepath.Join(t.TempDir(), "secrets.env")
	if err := os.WriteFile(file, []byte("CATALOG_TEST_TOKEN=file-secret-1\nONLY_IN_FILE=file-secret-2\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, mode); err != nil {
		t.Fatal(err)
	}
	o := orchestratortest.New(t, orchestratortest.Options{RedisURL: graphtest.RedisURL(redisDB), CatalogDir: readinessCatalog(t),
		Variables: catalog.Variables{SecretsFile: file, Env: func(k string) (string, bool) { return "env-secret-3", k == "CATALOG_TEST_SET" }}})
	srv := httptest.NewServer(handlers.New(handlers.Deps{Ops: o.Ops, Metrics: metrics.New(), Log: graphtest.Logger(), APIKeys: []string{apiKey}}))
	t.Cleanup(srv.Close)
	return &env{srv: srv, store: o.Store, queue: o.Queue, ops: o.Ops}
}

var secretValues = []string{"file-secret-1", "file-secret-2", "env-secret-3"}

func TestSecretKeysListNamesAndWhereEachIsUsedNeverAValue(t *testing.T) {
	e := setupSecrets(t, 0o600)
	r := e.do(t, "GET", "/api/secrets/keys", nil)
	if r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	got := map[string]string{}
	for _, s := range r.body["secrets"].([]any) {
		got[s.(map[string]any)["name"].(string)] = s.(map[string]any)["description"].(string)
	}
	want := map[string]string{
		"CATALOG_TEST_TOKEN": "Read by MCP servers: needs-token. Set in the secrets file",
		"CATALOG_TEST_SET":   "Read by MCP servers: has-token",
		"ONLY_IN_FILE":       "Set in the secrets file",
	}
	for name, d := range want {
		if got[name] != d {
			t.Errorf("%s: description %q; want %q", name, got[name], d)
		}
	}
	if _, ok := r.body["secrets_file_error"]; ok {
		t.Errorf("a usable secrets file reported an error: %s", r.raw)
	}
	for _, v := range secretValues {
		if strings.Contains(r.raw, v) {
			t.Errorf("a value leaked: %q in %s", v, r.raw)
		}
	}
}

func TestSecretKeysSayWhyAnUnusableSecretsFileIsLeftOut(t *testing.T) {
	e := setupSecrets(t, 0o644)
	r := e.do(t, "GET", "/api/secrets/keys", nil)
	msg, _ := r.body["secrets_file_error"].(string)
	if r.status != http.StatusOK || !strings.Contains(msg, "it must be 0600") || strings.Contains(r.raw, "ONLY_IN_FILE") ||
		!strings.Contains(r.raw, "CATALOG_TEST_TOKEN") {
		t.Fatalf("want the catalog's names and the file's error: %d %s", r.status, r.raw)
	}
	for _, v := range secretValues {
		if strings.Contains(r.raw, v) {
			t.Errorf("a value leaked: %q in %s", v, r.raw)
		}
	}
}

func TestSecretKeysNeedAKey(t *testing.T) {
	e := setupSecrets(t, 0o600)
	if r := e.do(t, "GET", "/api/secrets/keys", nil, "X-Nothing", ""); r.status != http.StatusUnauthorized {
		t.Fatalf("without a key: %d %s", r.status, r.raw)
	}
}
