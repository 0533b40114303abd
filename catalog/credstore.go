package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// OAuthToken is an OAuth MCP server's current access token as a prepare hands it to the
// runtime. The refresh token stays Zimmer's: it renews the access token before every turn, and
// a runtime refreshing on its own would rotate the refresh token out from under Zimmer's store.
type OAuthToken struct {
	AccessToken string
	ExpiresAt   time.Time // zero: the server named no lifetime
	ClientID    string    // the OAuth client the token was issued to
	Scope       string
}

// A runtime that keeps MCP OAuth tokens in a store of its own gets the token there, in its own
// format, keyed the way it looks the server up; it then sends it (and knows when it expires)
// natively. Both formats were read off the pinned CLIs and checked against them by giving each
// a token only in its store and watching it reach a local MCP server:
//
//   - Claude Code: <config dir>/.credentials.json (CLAUDE_SECURESTORAGE_CONFIG_DIR, else
//     CLAUDE_CONFIG_DIR, else ~/.claude), object "mcpOAuth", keyed
//     "<name>|<first 16 hex of sha256 of {"type","url","headers"} as the entry is written>".
//   - Codex: <CODEX_HOME or ~/.codex>/.credentials.json (its file store, which it also reads when
//     its keyring has nothing), a map of entries it matches by server_name and server_url.
//
// Pi's MCP adapter has an OAuth store too, but Pi is not among the CLIs the tests install, so
// its format cannot be checked here: Pi keeps the Authorization header.
type credentialStore struct {
	path func(env func(string) string) string
	put  func(doc map[string]json.RawMessage, name string, s *Server, tok OAuthToken) error
}

var credentialStores = map[string]credentialStore{
	RuntimeClaude: {path: claudeStorePath, put: putClaudeToken},
	RuntimeCodex:  {path: codexStorePath, put: putCodexToken},
}

const credentialsFile = ".credentials.json"

func claudeStorePath(env func(string) string) string {
	for _, k := range []string{"CLAUDE_SECURESTORAGE_CONFIG_DIR", "CLAUDE_CONFIG_DIR"} {
		if d := env(k); d != "" {
			return filepath.Join(d, credentialsFile)
		}
	}
	return homeFile(env, ".claude")
}

func codexStorePath(env func(string) string) string {
	if d := env("CODEX_HOME"); d != "" {
		return filepath.Join(d, credentialsFile)
	}
	return homeFile(env, ".codex")
}

func homeFile(env func(string) string, dir string) string {
	if h := env("HOME"); h != "" {
		return filepath.Join(h, dir, credentialsFile)
	}
	return ""
}

// storeKey is "<name>|<16 hex of sha256(payload)>", the key both runtimes file a server under.
func storeKey(name string, payload any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as JSON.stringify and serde_json write it
	if err := enc.Encode(payload); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return name + "|" + hex.EncodeToString(sum[:])[:16], nil
}

// claudeKeyPayload is what Claude hashes: the entry as it reads it from the file Zimmer wrote,
// whose headers are sorted by name (as json.Marshal writes a map, here too).
type claudeKeyPayload struct {
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

func putClaudeToken(doc map[string]json.RawMessage, name string, s *Server, tok OAuthToken) error {
	headers := s.Headers
	if headers == nil {
		headers = map[string]string{}
	}
	key, err := storeKey(name, claudeKeyPayload{Type: s.Type, URL: s.URL, Headers: headers})
	if err != nil {
		return err
	}
	var entries map[string]json.RawMessage
	if raw, ok := doc["mcpOAuth"]; ok {
		if err := json.Unmarshal(raw, &entries); err != nil {
			return fmt.Errorf("its mcpOAuth is not an object: %w", err)
		}
	}
	if entries == nil {
		entries = map[string]json.RawMessage{}
	}
	entry := map[string]any{"serverName": name, "serverUrl": s.URL, "accessToken": tok.AccessToken, "scope": tok.Scope}
	if !tok.ExpiresAt.IsZero() {
		entry["expiresAt"] = tok.ExpiresAt.UnixMilli()
	}
	if entries[key], err = json.Marshal(entry); err != nil {
		return err
	}
	doc["mcpOAuth"], err = json.Marshal(entries)
	return err
}

func putCodexToken(doc map[string]json.RawMessage, name string, s *Server, tok OAuthToken) error {
	// Codex's own key: its server type is always "http" and its headers always empty.
	key, err := storeKey(name, map[string]any{"type": "http", "url": s.URL, "headers": map[string]string{}})
	if err != nil {
		return err
	}
	entry := map[string]any{"server_name": name, "server_url": s.URL, "client_id": tok.ClientID, "access_token": tok.AccessToken,
		"refresh_token": nil, "scopes": []string{}}
	if !tok.ExpiresAt.IsZero() {
		entry["expires_at"] = tok.ExpiresAt.UnixMilli()
	}
	doc[key], err = json.Marshal(entry)
	return err
}

// storeMu serializes this process's rewrites of a store; a runtime writing the same file (a
// Claude Code refreshing its own login) is guarded against by the check before the rename.
var storeMu sync.Mutex

// writeCredentialStore puts the tokens into the runtime's store at path, keeping every other
// entry and key (the operator's own logins live in the same file). The file is replaced
// atomically and is 0600. It is rewritten only when an entry changed, and never when the file
// changed under the read (tried again, a few times).
func writeCredentialStore(store credentialStore, path string, servers map[string]*Server, tokens map[string]OAuthToken) error {
	storeMu.Lock()
	defer storeMu.Unlock()
	for range 3 {
		before, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		doc := map[string]json.RawMessage{}
		if len(bytes.TrimSpace(before)) > 0 {
			if err := json.Unmarshal(before, &doc); err != nil {
				return errors.New("it is not a JSON object") // never quote the file: it holds credentials
			}
		}
		for name, tok := range tokens {
			if err := store.put(doc, name, servers[name], tok); err != nil {
				return err
			}
		}
		after, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		if bytes.Equal(bytes.TrimSpace(before), after) {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(path), credentialsFile+".zimmer-*")
		if err != nil {
			return err
		}
		_, werr := tmp.Write(after)
		cerr := tmp.Close()
		if werr != nil || cerr != nil {
			os.Remove(tmp.Name())
			return errors.Join(werr, cerr)
		}
		if now, _ := os.ReadFile(path); !bytes.Equal(now, before) {
			os.Remove(tmp.Name())
			continue // the runtime wrote it meanwhile: start again from what it wrote
		}
		// CreateTemp made it 0600; the rename keeps that whatever mode the old file had.
		if err := os.Rename(tmp.Name(), path); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		return nil
	}
	return errors.New("it kept changing while Zimmer wrote it")
}
