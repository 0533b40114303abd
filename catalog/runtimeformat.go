package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/BurntSushi/toml"
)

// configFormat reads and writes one runtime's native MCP config file. The document's other
// keys (a repo's own settings) survive a rewrite untouched.
type configFormat interface {
	rel() string // the file's path under the working directory
	decode(data []byte) (doc map[string]any, servers map[string]*Server, err error)
	encode(doc map[string]any, servers map[string]*Server) ([]byte, error)
}

// jsonFormat is Claude Code's and Pi's <workdir>/.mcp.json: {"mcpServers": {name: entry}}.
type jsonFormat struct{}

func (jsonFormat) rel() string { return ".mcp.json" }

func (jsonFormat) decode(data []byte) (map[string]any, map[string]*Server, error) {
	doc := map[string]any{}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, nil, err
	}
	servers, err := decodeServers(doc["mcpServers"], "headers")
	return doc, servers, err
}

func (jsonFormat) encode(doc map[string]any, servers map[string]*Server) ([]byte, error) {
	out := maps.Clone(doc)
	table := map[string]any{}
	for name, s := range servers {
		table[name] = s.toMap("headers", true)
	}
	out["mcpServers"] = table
	data, err := json.MarshalIndent(out, "", "  ")
	return append(data, '\n'), err
}

// tomlFormat is Codex's <workdir>/.codex/config.toml: one [mcp_servers.<name>] table each,
// remote headers under http_headers and no type key (Codex infers it).
type tomlFormat struct{}

func (tomlFormat) rel() string { return filepath.Join(".codex", "config.toml") }

func (tomlFormat) decode(data []byte) (map[string]any, map[string]*Server, error) {
	doc := map[string]any{}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, nil, err
	}
	servers, err := decodeServers(doc["mcp_servers"], "http_headers")
	return doc, servers, err
}

func (tomlFormat) encode(doc map[string]any, servers map[string]*Server) ([]byte, error) {
	out := maps.Clone(doc)
	table := map[string]any{}
	for name, s := range servers {
		table[name] = s.toMap("http_headers", false)
	}
	out["mcp_servers"] = table
	var buf bytes.Buffer
	err := toml.NewEncoder(&buf).Encode(out)
	return buf.Bytes(), err
}

func decodeServers(raw any, headersKey string) (map[string]*Server, error) {
	servers := map[string]*Server{}
	if raw == nil {
		return servers, nil
	}
	table, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the MCP server table is a %T, not a table", raw)
	}
	for name, v := range table {
		entry, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("MCP server %q is a %T, not a table", name, v)
		}
		renamed := maps.Clone(entry)
		if h, ok := renamed[headersKey]; ok && headersKey != "headers" {
			delete(renamed, headersKey)
			renamed["headers"] = h
		}
		servers[name] = serverFromMap(renamed, nil)
	}
	return servers, nil
}

// serverFromMap normalises one entry (catalog or file); keys in drop are discarded, keys the
// pipeline does not interpret are kept in Extra.
func serverFromMap(m map[string]any, drop []string) *Server {
	s := &Server{Extra: map[string]any{}}
	for k, v := range m {
		switch k {
		case "type":
			s.Type, _ = v.(string)
		case "command":
			s.Command, _ = v.(string)
		case "url":
			s.URL, _ = v.(string)
		case "args":
			s.Args = stringSlice(v)
		case "env":
			s.Env = stringMap(v)
		case "headers":
			s.Headers = stringMap(v)
		default:
			if !slices.Contains(drop, k) {
				s.Extra[k] = v
			}
		}
	}
	switch s.Type {
	case "streamable-http", "streamable_http":
		s.Type = "http"
	case "":
		s.Type = "stdio"
		if s.URL != "" && s.Command == "" {
			s.Type = "http"
		}
	}
	return s
}

// toMap is the entry as the file writes it; withType is false for Codex, which has no type key.
func (s *Server) toMap(headersKey string, withType bool) map[string]any {
	m := maps.Clone(s.Extra)
	if m == nil {
		m = map[string]any{}
	}
	if withType {
		m["type"] = s.Type
	}
	if s.remote() {
		m["url"] = s.URL
		if len(s.Headers) > 0 {
			m[headersKey] = s.Headers
		}
		return m
	}
	m["command"] = s.Command
	if len(s.Args) > 0 {
		m["args"] = s.Args
	}
	if len(s.Env) > 0 {
		m["env"] = s.Env
	}
	return m
}

func stringSlice(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, item := range list {
		out = append(out, fmt.Sprint(item))
	}
	return out
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, item := range m {
		out[k] = fmt.Sprint(item)
	}
	return out
}
