package catalog

import "slices"

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
