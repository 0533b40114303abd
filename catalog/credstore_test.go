package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/catalog/catalogtest"
)

// An OAuth server's token goes into the runtime's own credential store, in its format, next to
// what the store already holds (the operator's own logins): the file is 0600 and the config
// carries no Authorization header. A runtime without a store (Pi), or a prepare that was not told
// the agent's environment, gets the header instead.
func TestOAuthTokensGoIntoTheRuntimesOwnCredentialStore(t *testing.T) {
	expires := time.Date(2031, 6, 1, 12, 0, 0, 0, time.UTC)
	tok := OAuthToken{AccessToken: "at-store-0123456789", ExpiresAt: expires, ClientID: "client-9", Scope: "notes.read"}
	tests := []struct {
		runtime, store, existing string
		want                     func(t *testing.T, doc map[string]any)
	}{
		{RuntimeClaude, ".claude/.credentials.json", `{"claudeAiOauth": {"accessToken": "operator-login"}, "mcpOAuth": {"other|0123456789abcdef": {"accessToken": "kept"}}}`,
			func(t *testing.T, doc map[string]any) {
				if login, _ := doc["claudeAiOauth"].(map[string]any); login["accessToken"] != "operator-login" {
					t.Errorf("the operator's login is kept: %v", doc)
				}
				entries, _ := doc["mcpOAuth"].(map[string]any)
				if other, _ := entries["other|0123456789abcdef"].(map[string]any); other["accessToken"] != "kept" {
					t.Errorf("another server's entry is kept: %v", entries)
				}
				// The key Claude Code 2.1.332 computes for {"type":"http","url":…,"headers":{}}.
				key, _ := storeKey("remote-fast", claudeKeyPayload{Type: "http", URL: "https://fast.example/mcp", Headers: map[string]string{}})
				want := map[string]any{"serverName": "remote-fast", "serverUrl": "https://fast.example/mcp", "accessToken": "at-store-0123456789",
					"expiresAt": float64(expires.UnixMilli()), "scope": "notes.read"}
				if got, _ := entries[key].(map[string]any); !jsonEqual(got, want) {
					t.Errorf("entry %s: %v, want %v", key, got, want)
				}
			}},
		{RuntimeCodex, ".codex/.credentials.json", `{"other|0123456789abcdef": {"server_name": "other", "access_token": "kept"}}`,
			func(t *testing.T, doc map[string]any) {
				if other, _ := doc["other|0123456789abcdef"].(map[string]any); other["access_token"] != "kept" {
					t.Errorf("another server's entry is kept: %v", doc)
				}
				key, _ := storeKey("remote-fast", map[string]any{"type": "http", "url": "https://fast.example/mcp", "headers": map[string]string{}})
				want := map[string]any{"server_name": "remote-fast", "server_url": "https://fast.example/mcp", "client_id": "client-9",
					"access_token": "at-store-0123456789", "expires_at": float64(expires.UnixMilli()), "refresh_token": nil, "scopes": []any{}}
				if got, _ := doc[key].(map[string]any); !jsonEqual(got, want) {
					t.Errorf("entry %s: %v, want %v", key, got, want)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.runtime, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, tt.store)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.existing), 0o644); err != nil {
				t.Fatal(err)
			}
			req := request(t, tt.runtime, "remote-fast")
			req.OAuthTokens = map[string]OAuthToken{"remote-fast": tok}
			req.AgentEnv = func(k string) string { return map[string]string{"HOME": home}[k] }
			out, err := testCatalog(t).WriteRuntimeConfig(req)
			if err != nil {
				t.Fatal(err)
			}
			if cfg, _ := os.ReadFile(out.Path); strings.Contains(string(cfg), tok.AccessToken) {
				t.Errorf("the config carries the token:\n%s", cfg)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != 0o600 {
				t.Errorf("the store is %v, want 0600", info.Mode().Perm())
			}
			data, _ := os.ReadFile(path)
			var doc map[string]any
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			tt.want(t, doc)

			// The same token again leaves the file as it is.
			before := info.ModTime()
			time.Sleep(10 * time.Millisecond)
			if _, err := testCatalog(t).WriteRuntimeConfig(req); err != nil {
				t.Fatal(err)
			}
			if again, _ := os.Stat(path); !again.ModTime().Equal(before) {
				t.Error("an unchanged token rewrote the store")
			}
		})
	}

	for name, req := range map[string]RuntimeConfigRequest{
		"Pi has no store":           request(t, RuntimePi, "remote-fast"),
		"no environment to find it": request(t, RuntimeClaude, "remote-fast"),
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			req.OAuthTokens = map[string]OAuthToken{"remote-fast": tok}
			if req.Runtime == RuntimePi {
				req.AgentEnv = func(k string) string { return map[string]string{"HOME": home}[k] }
			}
			out, err := testCatalog(t).WriteRuntimeConfig(req)
			if err != nil {
				t.Fatal(err)
			}
			h, _ := catalogtest.MCPServers(t, out.Path)["remote-fast"]["headers"].(map[string]any)
			if h["Authorization"] != "Bearer "+tok.AccessToken {
				t.Errorf("the header carries the token: %v", h)
			}
			if entries, _ := os.ReadDir(home); len(entries) != 0 {
				t.Errorf("nothing is written into the home: %v", entries)
			}
		})
	}
}

func jsonEqual(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
