package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Argument validation runs before any tool code, in the original SDK's order: required keys
// first (presence only: null counts as present), then every property against its schema. Both
// failures are isError results the model can read and correct, so the messages name the
// argument and the rule in plain words ("per_page must be at most 100") rather than a
// validator's internals.

// supportedKeywords are the JSON-Schema keywords the validator enforces or may ignore.
var supportedKeywords = map[string]bool{
	"type": true, "description": true, "enum": true, "minimum": true, "maximum": true,
	"minLength": true, "maxLength": true, "items": true, "properties": true, "required": true,
}

// missingRequired lists the required keys absent from args, in schema order.
func missingRequired(s schema, args map[string]any) []string {
	var missing []string
	for _, k := range s.required {
		if _, ok := args[k]; !ok {
			missing = append(missing, k)
		}
	}
	return missing
}

// checkArgs validates args against s and returns the isError text, or "" when they pass.
func checkArgs(s schema, args map[string]any) string {
	if missing := missingRequired(s, args); len(missing) > 0 {
		return "Missing required arguments: " + strings.Join(missing, ", ")
	}
	var problems []string
	for _, name := range sortedKeys(s.props) {
		if v, ok := args[name]; ok {
			problems = append(problems, checkValue(name, s.props[name], v)...)
		}
	}
	if len(problems) > 0 {
		return "Invalid arguments: " + strings.Join(problems, ", ")
	}
	return ""
}

// checkValue validates one value at path against p; a value of the wrong type reports only
// that, since its other rules would not mean anything.
func checkValue(path string, p prop, v any) []string {
	if types := typesOf(p); len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return isType(v, t) }) {
		return []string{fmt.Sprintf("%s must be %s", path, typePhrase(types))}
	}
	var out []string
	if e, ok := p["enum"].([]any); ok && !inEnum(v, e) {
		out = append(out, fmt.Sprintf("%s must be one of: %s", path, enumPhrase(e)))
	}
	out = append(out, checkBounds(path, p, v)...)
	switch x := v.(type) {
	case []any:
		if item, ok := p["items"].(prop); ok {
			for i, el := range x {
				out = append(out, checkValue(fmt.Sprintf("%s[%d]", path, i), item, el)...)
			}
		}
	case map[string]any:
		out = append(out, checkObject(path, p, x)...)
	}
	return out
}

func checkObject(path string, p prop, obj map[string]any) []string {
	var out []string
	if req, ok := p["required"].([]string); ok {
		for _, k := range req {
			if _, present := obj[k]; !present {
				out = append(out, fmt.Sprintf("%s.%s is required", path, k))
			}
		}
	}
	props, _ := p["properties"].(map[string]prop)
	for _, k := range sortedKeys(props) {
		if v, ok := obj[k]; ok {
			out = append(out, checkValue(path+"."+k, props[k], v)...)
		}
	}
	return out
}

func checkBounds(path string, p prop, v any) []string {
	var out []string
	if n, ok := numberOf(v); ok {
		if lo, ok := p["minimum"].(float64); ok && n < lo {
			out = append(out, fmt.Sprintf("%s must be at least %s", path, fmtNum(lo)))
		}
		if hi, ok := p["maximum"].(float64); ok && n > hi {
			out = append(out, fmt.Sprintf("%s must be at most %s", path, fmtNum(hi)))
		}
	}
	if s, ok := v.(string); ok {
		n := len([]rune(s))
		if lo, ok := p["minLength"].(int); ok && n < lo {
			out = append(out, fmt.Sprintf("%s must be at least %d characters", path, lo))
		}
		if hi, ok := p["maxLength"].(int); ok && n > hi {
			out = append(out, fmt.Sprintf("%s must be at most %d characters (got %d)", path, hi, n))
		}
	}
	return out
}

func typesOf(p prop) []string {
	switch t := p["type"].(type) {
	case string:
		return []string{t}
	case []string:
		return t
	}
	return nil
}

// isType follows JSON Schema: an integer is any number with no fractional part (5.0 included).
func isType(v any, t string) bool {
	switch t {
	case "null":
		return v == nil
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "number":
		_, ok := numberOf(v)
		return ok
	case "integer":
		n, ok := numberOf(v)
		return ok && n == math.Trunc(n) && !math.IsInf(n, 0)
	}
	return false
}

func numberOf(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

func inEnum(v any, values []any) bool {
	for _, e := range values {
		if e == nil && v == nil {
			return true
		}
		if s, ok := v.(string); ok && s == e {
			return true
		}
	}
	return false
}

var typeNames = map[string]string{
	"string": "a string", "integer": "an integer", "number": "a number", "boolean": "a boolean",
	"object": "an object", "array": "an array", "null": "null",
}

func typePhrase(types []string) string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = typeNames[t]
	}
	return strings.Join(names, " or ")
}

func enumPhrase(values []any) string {
	names := make([]string, len(values))
	for i, v := range values {
		if v == nil {
			names[i] = "null"
		} else {
			names[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(names, ", ")
}

func fmtNum(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprint(f)
}
