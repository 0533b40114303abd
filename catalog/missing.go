package catalog

import (
	"slices"
	"strings"
)

// SecretNames are the names (never the values) of the ${VAR}s the catalog's MCP servers require
// that cannot be had now: Missing resolve nowhere, Refused may not be read by MCP servers
// (ZIMMER_MCP_VARIABLES, Zimmer's own names). StoreErr is the secrets file's read error.
type SecretNames struct {
	Missing, Refused []string
	StoreErr         error
}

// SecretNames looks the ${VAR}s of the servers not declared unavailable up, from the same chain
// a prepare resolves them from (as Readiness does); both lists are sorted and unique.
func (c *Catalog) SecretNames(v Variables) SecretNames {
	lookup, storeErr := SecretsLookup(v.SecretsFile, v.Env)
	rules := placeholderRules("-", "-", v.Allowed, lookup)
	out := SecretNames{StoreErr: storeErr}
	for _, a := range c.MCPServers {
		if a.Unavailable != "" {
			continue
		}
		for _, name := range requiredVariables(a.Raw) {
			if _, ok, refused := rules(name); refused {
				out.Refused = append(out.Refused, name)
			} else if !ok {
				out.Missing = append(out.Missing, name)
			}
		}
		for _, name := range optionalVariables(a.Raw) {
			if _, _, refused := rules(name); refused { // a default does not make a forbidden name readable
				out.Refused = append(out.Refused, name)
			}
		}
	}
	slices.Sort(out.Missing)
	slices.Sort(out.Refused)
	out.Missing, out.Refused = slices.Compact(out.Missing), slices.Compact(out.Refused)
	return out
}

// SecretKey is one name Zimmer knows as a secret, with where it comes from; never its value.
type SecretKey struct {
	Name        string
	Description string
}

// SecretKeys lists every name the catalog's MCP servers read through a ${VAR} placeholder and
// every key of the secrets file, sorted by name. The file's values are read (the file has no
// other format) but never leave this function; fileErr is the file's read error, whose message
// names the file and the line, never a value.
func (c *Catalog) SecretKeys(v Variables) (keys []SecretKey, fileErr error) {
	users := map[string][]string{}
	for id, a := range c.MCPServers {
		for _, name := range slices.Concat(requiredVariables(a.Raw), optionalVariables(a.Raw)) {
			if !slices.Contains(users[name], id) {
				users[name] = append(users[name], id)
			}
		}
	}
	inFile := map[string]bool{}
	if v.SecretsFile != "" {
		file, err := readSecretsFile(v.SecretsFile)
		fileErr = err
		for name := range file {
			inFile[name] = true
			if _, ok := users[name]; !ok {
				users[name] = nil
			}
		}
	}
	for name, servers := range users {
		var parts []string
		if len(servers) > 0 {
			slices.Sort(servers)
			parts = append(parts, "Read by MCP servers: "+strings.Join(servers, ", "))
		}
		if inFile[name] {
			parts = append(parts, "Set in the secrets file")
		}
		keys = append(keys, SecretKey{Name: name, Description: strings.Join(parts, ". ")})
	}
	slices.SortFunc(keys, func(a, b SecretKey) int { return strings.Compare(a.Name, b.Name) })
	return keys, fileErr
}
