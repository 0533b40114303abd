package catalog

import (
	"regexp"
	"slices"
	"strings"
)

// placeholder is ${NAME} or ${NAME:-default} (reference §4.3).
var placeholder = regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*)(:-([^}]*))?\}`)

// variableLookup resolves one placeholder name; refused means the name may not be read at all.
type variableLookup func(name string) (value string, ok, refused bool)

// resolvePlaceholders replaces every ${VAR} in env and header values, args and url. A variable
// with no value and no default, or one that may not be read, is collected and fails the whole
// config: one unresolvable server fails the prepare rather than handing the agent a server
// that 401s on every call. An env or header value that resolves to empty is removed (unless it
// was written as "").
func resolvePlaceholders(servers map[string]*Server, lookup variableLookup) error {
	var missing, refused []string
	expand := func(s string) string { return expandString(s, lookup, &missing, &refused) }
	for _, s := range servers {
		s.URL = expand(s.URL)
		for i, a := range s.Args {
			s.Args[i] = expand(a)
		}
		expandValues(s.Env, expand)
		expandValues(s.Headers, expand)
	}
	if len(missing) == 0 && len(refused) == 0 {
		return nil
	}
	slices.Sort(missing)
	slices.Sort(refused)
	return &UnresolvedError{Variables: slices.Compact(missing), Refused: slices.Compact(refused)}
}

func expandValues(m map[string]string, expand func(string) string) {
	for k, v := range m {
		resolved := expand(v)
		if resolved == "" && v != "" {
			delete(m, k)
			continue
		}
		m[k] = resolved
	}
}

func expandString(s string, lookup variableLookup, missing, refused *[]string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		parts := placeholder.FindStringSubmatch(m)
		v, ok, no := lookup(parts[1])
		if no { // a default does not make a forbidden name acceptable
			*refused = append(*refused, parts[1])
			return m
		}
		if ok {
			return v
		}
		if parts[2] != "" {
			return parts[3]
		}
		*missing = append(*missing, parts[1])
		return m
	})
}
