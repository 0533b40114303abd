package catalog

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The health report names the secrets servers lack, never a value, and leaves out servers the
// catalog already declares unavailable.
func TestSecretNamesListsMissingAndRefusedNamesOnly(t *testing.T) {
	c := readinessCatalog(t)
	env := map[string]string{"SET_TOKEN": "secret-value-1", "OTHER_TOKEN": "secret-value-2", "API_KEYS": "fleet-key"}
	got := c.SecretNames(Variables{Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Allowed: []string{"SET_TOKEN", "UNSET_A", "UNSET_B", "UNSET_OPT"}})
	if want := []string{"UNSET_A", "UNSET_B"}; !slices.Equal(got.Missing, want) {
		t.Errorf("missing = %v; want %v", got.Missing, want)
	}
	if want := []string{"API_KEYS", "OTHER_TOKEN"}; !slices.Equal(got.Refused, want) {
		t.Errorf("refused = %v; want %v", got.Refused, want)
	}
	if got.StoreErr != nil {
		t.Errorf("store error %v with no secrets file", got.StoreErr)
	}
	all := strings.Join(append(got.Missing, got.Refused...), " ")
	for _, v := range env {
		if strings.Contains(all, v) {
			t.Errorf("a value leaked: %q in %q", v, all)
		}
	}
}

// The secret keys are the catalog's placeholders and the secrets file's keys, each once, with
// where it is used; no value from the file or the environment appears anywhere in the answer.
func TestSecretKeysNameThePlaceholdersAndTheFileKeysNeverAValue(t *testing.T) {
	c := readinessCatalog(t)
	file := secretsFile(t, "SET_TOKEN=file-secret-1\nONLY_IN_FILE=file-secret-2\n", 0o600)
	env := map[string]string{"SET_TOKEN": "env-secret-1", "UNSET_A": "env-secret-2"}
	keys, err := c.SecretKeys(Variables{SecretsFile: file, Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var names []string
	for _, k := range keys {
		got[k.Name] = k.Description
		names = append(names, k.Name)
	}
	want := []string{"API_KEYS", "ONLY_IN_FILE", "OTHER_TOKEN", "SET_TOKEN", "UNSET_A", "UNSET_B", "UNSET_OPT", "ZIMMER_API_KEY", "ZIMMER_PUBLIC_URL"}
	if !slices.Equal(names, want) {
		t.Errorf("names = %v; want %v", names, want)
	}
	if d := got["SET_TOKEN"]; d != "Read by MCP servers: keyed. Set in the secrets file" {
		t.Errorf("SET_TOKEN description = %q", d)
	}
	if d := got["ONLY_IN_FILE"]; d != "Set in the secrets file" {
		t.Errorf("ONLY_IN_FILE description = %q", d)
	}
	if d := got["UNSET_A"]; d != "Read by MCP servers: declared, unset" {
		t.Errorf("UNSET_A description = %q", d)
	}
	all := fmt.Sprint(keys)
	for _, v := range []string{"file-secret-1", "file-secret-2", "env-secret-1", "env-secret-2"} {
		if strings.Contains(all, v) {
			t.Errorf("a value leaked: %q in %s", v, all)
		}
	}
}

// An unusable secrets file still leaves the catalog's names listed, and says why the file's are not.
func TestSecretKeysReportAnUnusableFileAndStillListTheCatalogNames(t *testing.T) {
	c := readinessCatalog(t)
	file := secretsFile(t, "SET_TOKEN=file-secret-1\n", 0o644)
	keys, err := c.SecretKeys(Variables{SecretsFile: file})
	if !errors.Is(err, ErrSecretsFile) || strings.Contains(err.Error(), "file-secret-1") {
		t.Fatalf("err = %v; want ErrSecretsFile naming no value", err)
	}
	if len(keys) == 0 || keys[0].Name != "API_KEYS" {
		t.Errorf("keys = %v; want the catalog's names", keys)
	}
}
