package mcp

import (
	"encoding/json"
	"fmt"
)

// prop is one JSON-Schema property. Its builder methods return it, so a schema reads as one
// expression per argument. Only the keywords validate.go understands may appear (a test walks
// every schema to hold that).
type prop map[string]any

// jsonSchemaDialect is what every inputSchema declares, as the original's SDK does.
const jsonSchemaDialect = "https://json-schema.org/draft/2020-12/schema"

func typed(t any, desc string) prop {
	p := prop{"type": t}
	if desc != "" {
		p["description"] = desc
	}
	return p
}

func str(desc string) prop     { return typed("string", desc) }
func integer(desc string) prop { return typed("integer", desc) }
func number(desc string) prop  { return typed("number", desc) }
func boolean(desc string) prop { return typed("boolean", desc) }
func object(desc string) prop  { return typed("object", desc) }

// anyOf is a property of several JSON types, e.g. a session id given as a number or a slug.
func anyOf(desc string, types ...string) prop { return typed(types, desc) }

// list is an array whose items follow item.
func list(desc string, item prop) prop {
	p := typed("array", desc)
	p["items"] = item
	return p
}

func strList(desc string) prop { return list(desc, str("")) }

// sessionRef is the id-or-slug every session argument takes.
func sessionRef(desc string) prop { return anyOf(desc, "string", "number") }

func (p prop) enum(values ...string) prop {
	vals := make([]any, len(values))
	for i, v := range values {
		vals[i] = v
	}
	p["enum"] = vals
	return p
}

// nullable widens the property's type (and enum, if any) to admit null.
func (p prop) nullable() prop {
	switch t := p["type"].(type) {
	case string:
		p["type"] = []string{t, "null"}
	case []string:
		p["type"] = append(t, "null")
	}
	if e, ok := p["enum"].([]any); ok {
		p["enum"] = append(e, nil)
	}
	return p
}

func (p prop) min(n float64) prop   { p["minimum"] = n; return p }
func (p prop) max(n float64) prop   { p["maximum"] = n; return p }
func (p prop) maxLen(n int) prop    { p["maxLength"] = n; return p }
func (p prop) fields(f fields) prop { p["properties"] = map[string]prop(f); return p }

// fields are a schema's properties by name.
type fields map[string]prop

// schema is a tool's input schema: an object with named properties, some required. There is
// deliberately no additionalProperties: false anywhere, as in the original: unknown arguments
// are ignored rather than refused.
type schema struct {
	props    fields
	required []string
}

func newSchema(props fields, required ...string) schema {
	for _, r := range required {
		if _, ok := props[r]; !ok {
			panic(fmt.Sprintf("mcp: required argument %q has no property", r))
		}
	}
	return schema{props: props, required: required}
}

// only is a copy of s with just the named properties: the narrowed variants of a tool
// advertise only what they accept.
func (s schema) only(names ...string) schema {
	out := schema{props: fields{}}
	for _, n := range names {
		p, ok := s.props[n]
		if !ok {
			panic(fmt.Sprintf("mcp: narrowed schema names unknown property %q", n))
		}
		out.props[n] = p
	}
	return out
}

// with sets property name to p (replacing it when present).
func (s schema) with(name string, p prop) schema {
	props := fields{}
	for k, v := range s.props {
		props[k] = v
	}
	props[name] = p
	return schema{props: props, required: s.required}
}

// requiring replaces the required list.
func (s schema) requiring(names ...string) schema { return newSchema(s.props, names...) }

// asProp is the schema as the root property the validator walks.
func (s schema) asProp() prop {
	p := prop{"type": "object", "properties": map[string]prop(s.props)}
	if len(s.required) > 0 {
		p["required"] = s.required
	}
	return p
}

// JSON is the inputSchema tools/list advertises.
func (s schema) JSON() json.RawMessage {
	root := s.asProp()
	root["$schema"] = jsonSchemaDialect
	b, err := json.Marshal(root)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema does not encode: %v", err)) // static data: a bug, found by the tests
	}
	return b
}
