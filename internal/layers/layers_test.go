package layers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/zimmerhq/zimmer/"

// order is every package of the module, bottom layer first; an import may point to its own
// layer or one below, never above. ARCHITECTURE.md "Layers as built" describes the same order.
var order = [][]string{
	// Pure: no store, no network. Domain types live here.
	{"session", "trigger", "settings", "lineage", "provenance", "roster", "transcript", "catalog", "mcpauth", "mcpauth/mcpauthtest", "catalog/catalogtest", "config", "metrics", "queries", "agentproc", "pricing"},
	// Adapters: the store and the queue client with its task types.
	{"graph", "graph/graphtest", "jobs/tasks", "githubapi"},
	// The operations.
	{"orchestrator", "orchestrator/orchestratortest"},
	// Surfaces and workers, the API's description and its generated client.
	{"handlers", "handlers/handlerstest", "handlers/rest", "handlers/rest/openapi", "handlers/rest/openapi/openapitest", "client", "handlers/mcp", "handlers/web", "handlers/slack", "jobs", "jobs/runner", "jobs/notify"},
	// Wiring, and the packages that hold only tests of the repository's tooling.
	{"cmd/zimmer", "cmd/zimmer-bench", "devtools", "deploy", "internal/layers"},
}

// driver is the Neo4j driver; only graph may import it, and graphtest, whose Cypher helper
// reaches the database behind the store's back as an attacker with direct access would.
const driver = "github.com/neo4j/neo4j-go-driver/"

// driverImporters may import the driver.
var driverImporters = []string{"graph", "graph/graphtest"}

// graphImporters may import graph besides orchestrator: the wiring and the test helpers.
var graphImporters = []string{"orchestrator", "cmd/zimmer", "cmd/zimmer-bench", "graph/graphtest", "orchestrator/orchestratortest"}

// pkg is what go list says of one package: its path inside the module and its non-test imports.
type pkg struct {
	ImportPath string
	Imports    []string
}

// violations lists every import that breaks the rules, one line each.
func violations(pkgs []pkg) []string {
	layer := map[string]int{}
	for i, names := range order {
		for _, n := range names {
			layer[n] = i
		}
	}
	var out []string
	for _, p := range pkgs {
		from, ok := layer[p.ImportPath]
		if !ok {
			out = append(out, fmt.Sprintf("%s has no layer: add it to order", p.ImportPath))
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, driver) && !slices.Contains(driverImporters, p.ImportPath) {
				out = append(out, fmt.Sprintf("%s imports the Neo4j driver: only graph may", p.ImportPath))
			}
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			if dep == "graph" && !slices.Contains(graphImporters, p.ImportPath) {
				out = append(out, fmt.Sprintf("%s imports graph: only orchestrator may (and the wiring and test helpers)", p.ImportPath))
			}
			if to, ok := layer[dep]; ok && to > from {
				out = append(out, fmt.Sprintf("%s (layer %d) imports %s (layer %d): imports point down", p.ImportPath, from+1, dep, to+1))
			}
		}
	}
	return out
}

// modulePackages is the module's packages as go list -deps reports them, paths made relative.
func modulePackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Module", module+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list: %v", err)
		}
		if rel, ok := strings.CutPrefix(p.ImportPath, module); ok {
			p.ImportPath = rel
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d packages of the module", len(pkgs))
	}
	return pkgs
}

func TestImportsPointDownTheLayers(t *testing.T) {
	t.Parallel()
	for _, v := range violations(modulePackages(t)) {
		t.Error(v)
	}
}

func TestTheRulesCatchEachKindOfViolation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		pkg  pkg
		want string
	}{
		{"the driver outside graph", pkg{"orchestrator", []string{driver + "v5/neo4j"}}, "orchestrator imports the Neo4j driver"},
		{"the driver in a surface's test helper", pkg{"handlers/handlerstest", []string{driver + "v5/neo4j"}}, "handlers/handlerstest imports the Neo4j driver"},
		{"graph from a surface", pkg{"handlers/mcp", []string{module + "graph"}}, "handlers/mcp imports graph"},
		{"an import pointing up", pkg{"session", []string{module + "orchestrator"}}, "session (layer 1) imports orchestrator (layer 3)"},
		{"the queue client reaching the runner", pkg{"jobs/tasks", []string{module + "jobs/runner"}}, "jobs/tasks (layer 2) imports jobs/runner (layer 4)"},
		{"a package with no layer", pkg{"newthing", nil}, "newthing has no layer"},
	}
	for _, tc := range cases {
		got := violations([]pkg{tc.pkg})
		if !slices.ContainsFunc(got, func(v string) bool { return strings.HasPrefix(v, tc.want) }) {
			t.Errorf("%s: want a violation starting %q, got %v", tc.name, tc.want, got)
		}
	}
	if got := violations([]pkg{{"orchestrator", []string{module + "graph", module + "session"}}}); len(got) != 0 {
		t.Errorf("orchestrator importing graph and session is the design, got %v", got)
	}
}
