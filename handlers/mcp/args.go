package mcp

import (
	"encoding/json"
	"math"
	"strings"
)

// args are a call's arguments, already checked against the tool's schema, so the accessors
// only convert: a wrong type cannot reach them. Numbers are json.Number.
type args map[string]any

// has reports the key was sent (null included).
func (a args) has(k string) bool {
	_, ok := a[k]
	return ok
}

// str is a string argument; nil when absent or null.
func (a args) str(k string) *string {
	if s, ok := a[k].(string); ok {
		return &s
	}
	return nil
}

// text is a string or number argument as trimmed text ("" when absent or null): ids and slugs
// arrive either way.
func (a args) text(k string) string {
	switch v := a[k].(type) {
	case string:
		return strings.TrimSpace(v)
	case json.Number:
		return v.String()
	}
	return ""
}

// flag is a boolean argument, false when absent; strings are cast the way Rails casts them.
func (a args) flag(k string) bool {
	switch v := a[k].(type) {
	case bool:
		return v
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "1", "t":
			return true
		}
	}
	return false
}

// optFlag is a boolean argument, nil when absent or null.
func (a args) optFlag(k string) *bool {
	if _, ok := a[k].(bool); !ok {
		return nil
	}
	b := a.flag(k)
	return &b
}

// integer is an integral number argument.
func (a args) integer(k string) (int64, bool) { return intValue(a[k]) }

// intValue reads an integral JSON number.
func intValue(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

// optInt is an integral number argument, nil when absent or null.
func (a args) optInt(k string) *int64 {
	if n, ok := a.integer(k); ok {
		return &n
	}
	return nil
}

// list is a string-array argument: nil when absent, a pointer to an empty slice for [] — the
// difference between "take the defaults" and "none" everywhere a list is accepted.
func (a args) list(k string) *[]string {
	raw, ok := a[k].([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(raw))
	for _, v := range raw {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return &out
}

// object is an object argument, nil when absent or null.
func (a args) object(k string) map[string]any {
	m, _ := a[k].(map[string]any)
	return m
}
