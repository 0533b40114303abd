// Package openapi is Zimmer's OpenAPI 3.1 document and its viewer. The document is authored as
// YAML fragments embedded in the binary, one per handlers/rest Go file (sessions.yaml describes
// the routes of sessions.go), so each area edits its own file; Document merges them with the
// head, openapi.yaml, and refuses a path, operation or component that two files both name.
package openapi

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

//go:embed *.yaml
var fragments embed.FS

// Head is the fragment holding the document's info, security and shared components.
const Head = "openapi.yaml"

// Dir is where the fragments live in the repository, for messages that tell a developer
// which file to edit.
const Dir = "handlers/rest/openapi"

// methods are the operation keys of a path item, in the order a path item lists them.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Assembled is the merged document and, for each operation ("GET /api/v1/sessions"), the
// fragment that describes it.
type Assembled struct {
	JSON    []byte
	Origins map[string]string
}

// Document merges the fragments once per process.
var Document = sync.OnceValues(assemble)

func assemble() (Assembled, error) {
	doc, err := readFragment(Head)
	if err != nil {
		return Assembled{}, err
	}
	out := Assembled{Origins: map[string]string{}}
	paths := mapAt(doc, "paths")
	components := mapAt(doc, "components")
	record := func(file string, frag map[string]any) error {
		for path, item := range mapAt(frag, "paths") {
			ops, ok := item.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: path %s is not a mapping", file, path)
			}
			if file != Head {
				if _, dup := paths[path]; dup {
					return fmt.Errorf("%s: path %s is also in %s; describe each path in one file", file, path, out.Origins["path "+path])
				}
				paths[path] = ops
			}
			out.Origins["path "+path] = file
			for _, m := range methods {
				if _, ok := ops[m]; ok {
					out.Origins[strings.ToUpper(m)+" "+path] = file
				}
			}
		}
		return nil
	}
	if err := record(Head, doc); err != nil {
		return Assembled{}, err
	}
	names, err := fs.Glob(fragments, "*.yaml")
	if err != nil {
		return Assembled{}, err
	}
	owner := map[string]string{}
	for section, entries := range components {
		for name := range asMap(entries) {
			owner[section+"/"+name] = Head
		}
	}
	for _, name := range names {
		if name == Head {
			continue
		}
		frag, err := readFragment(name)
		if err != nil {
			return Assembled{}, err
		}
		for key := range frag {
			if key != "paths" && key != "components" {
				return Assembled{}, fmt.Errorf("%s: top-level key %q belongs in %s; a fragment holds only paths and components", name, key, Head)
			}
		}
		if err := record(name, frag); err != nil {
			return Assembled{}, err
		}
		for section, entries := range mapAt(frag, "components") {
			into := mapAt(components, section)
			for cname, v := range asMap(entries) {
				if prev, dup := owner[section+"/"+cname]; dup {
					return Assembled{}, fmt.Errorf("%s: component %s/%s is also defined in %s", name, section, cname, prev)
				}
				owner[section+"/"+cname] = name
				into[cname] = v
			}
		}
	}
	addCommonResponses(paths)
	out.JSON, err = json.Marshal(doc)
	if err != nil {
		return Assembled{}, fmt.Errorf("encode the OpenAPI document: %w", err)
	}
	return out, nil
}

func readFragment(name string) (map[string]any, error) {
	raw, err := fragments.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read OpenAPI fragment %s: %w", name, err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("parse OpenAPI fragment %s/%s: %w", Dir, name, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// addCommonResponses gives every operation the answers any route can give, so the fragments
// need not repeat them: 500 when the server fails, and 401 unless the operation is public
// (security: []).
func addCommonResponses(paths map[string]any) {
	for _, item := range paths {
		for _, m := range methods {
			op := asMap(asMap(item)[m])
			if op == nil {
				continue
			}
			responses := mapAt(op, "responses")
			if _, ok := responses["500"]; !ok {
				responses["500"] = map[string]any{"$ref": "#/components/responses/ServerError"}
			}
			if sec, ok := op["security"].([]any); ok && len(sec) == 0 {
				continue
			}
			if _, ok := responses["401"]; !ok {
				responses["401"] = map[string]any{"$ref": "#/components/responses/Unauthorized"}
			}
		}
	}
}

// mapAt returns m[key] as a mapping, creating it when absent.
func mapAt(m map[string]any, key string) map[string]any {
	if v, ok := m[key].(map[string]any); ok {
		return v
	}
	v := map[string]any{}
	m[key] = v
	return v
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
