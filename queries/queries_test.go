package queries_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/queries"
)

// embedded maps each //go:embed'ed file of the package's Go files (tests aside) to the variables
// it is bound to.
func embedded(t *testing.T) map[string][]string {
	t.Helper()
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	bound := map[string][]string{}
	for _, src := range sources {
		if !strings.HasSuffix(src, "_test.go") {
			bindEmbeds(t, src, bound)
		}
	}
	return bound
}

func bindEmbeds(t *testing.T, src string, bound map[string][]string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), src, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Doc == nil {
			continue
		}
		for _, c := range gd.Doc.List {
			file, ok := strings.CutPrefix(c.Text, "//go:embed ")
			if !ok || strings.Contains(file, "*") {
				continue
			}
			name := gd.Specs[0].(*ast.ValueSpec).Names[0].Name
			bound[file] = append(bound[file], name)
		}
	}
}

func TestEveryStatementFileIsBoundExactlyOnce(t *testing.T) {
	bound := embedded(t)
	files, err := fs.Glob(queries.Files, "*.cypher")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		if names := bound[file]; len(names) != 1 {
			t.Errorf("%s is bound to %v; want exactly one variable", file, names)
		}
	}
	if len(bound) != len(files) {
		t.Errorf("%d bindings for %d files", len(bound), len(files))
	}
}

func TestEveryStatementHasAHeaderNamingItsParameters(t *testing.T) {
	files, _ := fs.Glob(queries.Files, "*.cypher")
	for _, file := range files {
		text, _ := fs.ReadFile(queries.Files, file)
		if !strings.HasPrefix(string(text), "// ") || !strings.Contains(string(text), "Params:") {
			t.Errorf("%s must open with a // header that names its parameters (\"Params: …\")", file)
		}
	}
}

// TestEveryStatementCompilesOnNeo4j EXPLAINs each statement on the real database, so a typo
// or a reserved word fails here rather than in production.
func TestEveryStatementCompilesOnNeo4j(t *testing.T) {
	o := graphtest.Neo4jOptions()
	// A deadline per statement, not one for all: the list grows, and planning is slow on a
	// loaded machine.
	ctx := context.Background()
	driver, err := neo4j.NewDriverWithContext(o.URI, neo4j.BasicAuth(o.User, o.Password, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer driver.Close(ctx)
	connect, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := driver.VerifyConnectivity(connect); err != nil {
		t.Fatalf("test Neo4j at %s: %v (run the tests with `make test`, which starts it)", o.URI, err)
	}
	files, _ := fs.Glob(queries.Files, "*.cypher")
	for _, file := range files {
		if file == "schema.cypher" {
			continue // schema commands cannot be EXPLAINed; migrations run them for real
		}
		t.Run(file, func(t *testing.T) {
			text, _ := fs.ReadFile(queries.Files, file)
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			_, err := neo4j.ExecuteQuery(ctx, driver, "EXPLAIN "+queries.StripComments(string(text)), nil,
				neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithReadersRouting())
			if err != nil {
				t.Fatalf("EXPLAIN %s: %v", file, err)
			}
		})
	}
}

func TestSchemaStatementsAreSplitOnePerConstraintOrIndex(t *testing.T) {
	for _, stmt := range queries.SchemaStatements() {
		if !strings.HasPrefix(stmt, "CREATE CONSTRAINT ") && !strings.HasPrefix(stmt, "CREATE INDEX ") {
			t.Errorf("unexpected schema statement %q", stmt)
		}
		if !strings.Contains(stmt, "IF NOT EXISTS") {
			t.Errorf("schema statement must be idempotent: %q", stmt)
		}
	}
}
