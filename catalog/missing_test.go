package catalog

import (
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
