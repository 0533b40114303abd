package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The bounds of a declared startup_timeout_sec: Claude Code's own startupTimeoutSec bounds.
const (
	minStartupTimeoutSec = 5
	maxStartupTimeoutSec = 600
)

// maxUnavailable caps a declared reason: it lands in a markdown list an agent reads.
const maxUnavailable = 200

// serverTypes are the transports an mcp.json entry may name (http is streamable-http's alias).
var serverTypes = []string{"stdio", "sse", "streamable-http", "http"}

// checkServer validates an mcp.json entry's shape, naming the file, entry and field of the first
// problem, and normalises the two fields only Zimmer reads: unavailable and startup_timeout_sec.
func (c *Catalog) checkServer(a *Artifact) error {
	bad := func(field, want string) error {
		return fmt.Errorf("%w: mcp.json entry %q: field %q %s", ErrInvalid, a.Name, field, want)
	}
	raw := a.Raw
	if t, ok := raw["type"]; ok {
		if s, isString := t.(string); !isString || !slices.Contains(serverTypes, s) {
			return bad("type", "must be one of "+strings.Join(serverTypes, ", "))
		}
	}
	for _, f := range []string{"title", "description", "command", "url"} {
		if v, ok := raw[f]; ok && v != nil {
			if _, isString := v.(string); !isString {
				return bad(f, "must be a string")
			}
		}
	}
	if v, ok := raw["args"]; ok && !isStringList(v) {
		return bad("args", "must be an array of strings")
	}
	if v, ok := raw["default_in_roots"]; ok && !isStringList(v) {
		return bad("default_in_roots", "must be an array of strings")
	}
	for _, f := range []string{"env", "headers"} {
		if v, ok := raw[f]; ok && !isStringMap(v) {
			return bad(f, "must be an object whose values are strings")
		}
	}
	if v, ok := raw["oauth"]; ok && v != nil {
		if _, isObject := v.(map[string]any); !isObject {
			return bad("oauth", "must be an object")
		}
	}
	a.Unavailable = normaliseUnavailable(raw["unavailable"])
	if v, ok := raw["startup_timeout_sec"]; ok && v != nil { // null is absent
		if n, accepted := startupTimeout(v); accepted {
			a.StartupTimeoutSec = &n
		} else {
			c.Warnings = append(c.Warnings, fmt.Sprintf("mcp.json entry %q: startup_timeout_sec %s is not an integer from %d to %d; "+
				"ignored, the server gets the default %d seconds", a.Name, compactJSON(v), minStartupTimeoutSec, maxStartupTimeoutSec,
				DefaultStartupTimeoutSec))
		}
	}
	return nil
}

// normaliseUnavailable: only a string declares anything; whitespace collapses to single spaces
// and the reason is cut at 200 characters. Absent, null, blank or any other type declares nothing.
func normaliseUnavailable(v any) string {
	s, _ := v.(string)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxUnavailable {
		s = strings.TrimSpace(string(r[:maxUnavailable]))
	}
	return s
}

// startupTimeout accepts a JSON integer in 5..600; a string, a fraction or out of range is refused.
func startupTimeout(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || f != float64(int(f)) || f < minStartupTimeoutSec || f > maxStartupTimeoutSec {
		return 0, false
	}
	return int(f), true
}

func isStringList(v any) bool {
	list, ok := v.([]any)
	if !ok {
		return v == nil
	}
	for _, e := range list {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

func isStringMap(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return v == nil
	}
	for _, e := range m {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// fieldProblem turns a decoding error into the field and the type it needed.
func fieldProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	if errors.As(err, &te) {
		return "is not a JSON object"
	}
	return err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	case "string":
		return "a string"
	}
	return goKind
}
