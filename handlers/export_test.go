package handlers_test

import (
	"bytes"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// provJSONSchema is the W3C PROV-JSON member submission's schema (testdata/prov-json.schema.json,
// vendored unmodified), compiled with format assertions on, so a qualified name that is no URI or
// a time that is no date-time fails too.
func provJSONSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile("testdata/prov-json.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const loc = "http://provenance.ecs.soton.ac.uk/prov-json/schema"
	if err := c.AddResource(loc, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		t.Fatal(err)
	}
	// The validator must be able to say no: a delegation without its delegate, a name that is no URI.
	for _, bad := range []map[string]any{
		{"actedOnBehalfOf": map[string]any{"_:e": map[string]any{"prov:responsible": "session:1"}}},
		{"actedOnBehalfOf": map[string]any{"_:e": map[string]any{"prov:responsible": "session:1", "prov:delegate": "no uri"}}},
	} {
		if s.Validate(bad) == nil {
			t.Fatalf("the schema accepts an invalid document: %v", bad)
		}
	}
	return s
}

// export fetches a session's PROV-JSON and validates it against the schema.
func (e *env) export(t *testing.T, s map[string]any, asOf time.Time, schema *jsonschema.Schema) map[string]any {
	t.Helper()
	path := "/api/v1/sessions/" + id(s) + "/provenance.prov.json"
	if !asOf.IsZero() {
		path += "?as_of=" + url.QueryEscape(asOf.Format(time.RFC3339Nano))
	}
	r := e.do(t, "GET", path, nil)
	if r.status != http.StatusOK {
		t.Fatalf("export: %d %s", r.status, r.raw)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(r.raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("the export is not valid PROV-JSON: %v\n%s", err, r.raw)
	}
	return r.body
}

// delegations renders the export's edges as "senior→junior kind[ removed]", sorted by key order.
func delegations(doc map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	d, _ := doc["actedOnBehalfOf"].(map[string]any)
	for _, v := range d {
		m := v.(map[string]any)
		out[m["prov:responsible"].(string)+"→"+m["prov:delegate"].(string)+" "+m["zimmer:edge"].(string)] = m
	}
	return out
}

// TestTheProvenanceExportIsValidPROVJSON: a hierarchy with a spawn edge, a live uncle edge, a
// removed one and human messages exports as PROV-JSON the W3C schema accepts, carrying the
// edges with their sources and times, the removal, and each record with its chain digests; as
// of a time before the removal the removed edge is shown as it stood then.
func TestTheProvenanceExportIsValidPROVJSON(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := provJSONSchema(t)
	router := e.create(t, map[string]any{"title": "Route it"})
	worker := e.create(t, map[string]any{"title": "Do it", "parent_session_id": router["id"]})
	other, gone := e.create(t, map[string]any{"title": "Directs it"}), e.create(t, map[string]any{"title": "Mistaken"})
	e.uncleEdge(t, other, worker)
	e.uncleEdge(t, gone, worker)
	e.say(t, router, "Split the work in two.", time.Now())
	e.say(t, worker, "Ship it on Tuesday.", time.Now())
	time.Sleep(5 * time.Millisecond)
	before := time.Now()
	time.Sleep(5 * time.Millisecond)
	if r := e.do(t, "DELETE", "/api/v1/sessions/"+id(worker)+"/uncle_links/"+id(gone)+"?acting_session_id="+id(worker), nil); r.status != http.StatusNoContent {
		t.Fatalf("remove: %d %s", r.status, r.raw)
	}

	doc := e.export(t, worker, time.Time{}, schema)
	edges := delegations(doc)
	spawn := edges["session:"+id(router)+"→session:"+id(worker)+" spawn"]
	live := edges["session:"+id(other)+"→session:"+id(worker)+" uncle"]
	removed := edges["session:"+id(gone)+"→session:"+id(worker)+" uncle (removed)"]
	if spawn == nil || live == nil || live["zimmer:source"] == nil || live["zimmer:recorded_at"] == nil {
		t.Fatalf("the spawn and the live uncle edge with their source and time: %v", edges)
	}
	if removed == nil || removed["zimmer:removed_at"] == nil ||
		removed["zimmer:removed_by"] != "session #"+id(worker)+" via the REST API" || removed["zimmer:removed_via"] != "api_v1:sessions.uncle_links.destroy" {
		t.Fatalf("the removed edge with when, by whom and how: %v", edges)
	}
	entities := doc["entity"].(map[string]any)
	if len(entities) != 2 {
		t.Fatalf("the two human-message records: %v", entities)
	}
	verify := e.do(t, "GET", "/api/v1/sessions/"+id(worker)+"/human_messages/verify", nil)
	found := false
	for _, raw := range entities {
		m := raw.(map[string]any)
		if m["prov:value"] == "Ship it on Tuesday." {
			found = m["zimmer:digest"] == verify.body["head_digest"] && m["zimmer:said_to"] == "session:"+id(worker) &&
				m["zimmer:content_digest"] != "" && m["zimmer:chain_position"] == float64(1)
		}
	}
	if !found {
		t.Fatalf("the worker's record with its chain digest (%v): %v", verify.body["head_digest"], entities)
	}
	if doc["agent"].(map[string]any)["human:tadasant"] == nil || len(doc["wasAttributedTo"].(map[string]any)) != 2 {
		t.Fatalf("the records attributed to their author: %v %v", doc["agent"], doc["wasAttributedTo"])
	}

	then := delegations(e.export(t, worker, before, schema))
	if then["session:"+id(gone)+"→session:"+id(worker)+" uncle"] == nil || then["session:"+id(gone)+"→session:"+id(worker)+" uncle (removed)"] != nil {
		t.Fatalf("as of before the removal the edge stood: %v", then)
	}
}
