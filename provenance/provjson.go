package provenance

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/roster"
)

// Edge is one recorded lineage edge as the provenance export shows it: a spawn edge, a live
// uncle edge, or a removed one (RemovedAt set).
type Edge struct {
	Kind                  string // lineage.KindSpawn, lineage.KindUncle, or KindFormerUncle
	From, To              int64  // senior, junior
	Source                string
	CreatedAt             time.Time // a spawn edge's is its junior's creation
	RemovedAt             *time.Time
	RemovedBy, RemovedVia string
}

// KindFormerUncle is a removed uncle edge, kept for the lineage's history.
const KindFormerUncle = "FORMER_UNCLE_OF"

// EdgesAsOf is the edges as they stood at t: those recorded by then, a removal after t undone.
func EdgesAsOf(edges []Edge, t time.Time) []Edge {
	var out []Edge
	for _, e := range edges {
		if e.CreatedAt.After(t) {
			continue
		}
		if e.RemovedAt != nil && e.RemovedAt.After(t) {
			e.Kind, e.RemovedAt, e.RemovedBy, e.RemovedVia = lineage.KindUncle, nil, "", ""
		}
		out = append(out, e)
	}
	return out
}

// Export is what a PROV-JSON document of one session's provenance is built from.
type Export struct {
	BaseURL string // this instance's origin: sessions are named by their REST URLs
	Nodes   []lineage.Node
	Edges   []Edge
	Records []roster.Sealed
	Users   []roster.User
}

// provQName is a typed literal naming a PROV type.
func provQName(name string) map[string]any { return map[string]any{"$": name, "type": "xsd:QName"} }

func dateTime(t time.Time) map[string]any {
	return map[string]any{"$": t.UTC().Format(time.RFC3339Nano), "type": "xsd:dateTime"}
}

// ProvJSON renders an export as a W3C PROV-JSON document: each session in the hierarchy and
// each named human is an agent; a spawn or uncle edge is a delegation (the junior acts on behalf
// of the senior) with its source and times, a removed uncle edge carrying when, by whom and how
// it was removed; each human-message record is an entity attributed to its author, with its
// place in its session's hash chain, influencing the session it was said to.
func ProvJSON(x Export) map[string]any {
	agents, entities := map[string]any{}, map[string]any{}
	attributions, influences, delegations := map[string]any{}, map[string]any{}, map[string]any{}
	for _, n := range x.Nodes {
		a := map[string]any{"prov:type": provQName("prov:SoftwareAgent"), "prov:label": n.Title,
			"zimmer:status": n.Status, "zimmer:genesis": n.Genesis, "zimmer:scheduling_class": n.Class}
		if n.AgentRoot != "" {
			a["zimmer:agent_root"] = n.AgentRoot
		}
		if n.Current {
			a["zimmer:exported"] = true
		}
		agents[sessionID(n.ID)] = a
	}
	for _, u := range x.Users {
		agents[humanID(u.Key)] = map[string]any{"prov:type": provQName("prov:Person"), "prov:label": u.DisplayName}
	}
	for i, e := range x.Edges {
		for _, end := range []int64{e.From, e.To} { // a removed edge's other end may be outside the hierarchy
			if _, known := agents[sessionID(end)]; !known {
				agents[sessionID(end)] = map[string]any{"prov:type": provQName("prov:SoftwareAgent"), "zimmer:in_hierarchy": false}
			}
		}
		d := map[string]any{"prov:delegate": sessionID(e.To), "prov:responsible": sessionID(e.From),
			"zimmer:edge": edgeName(e.Kind), "zimmer:recorded_at": dateTime(e.CreatedAt)}
		if e.Source != "" {
			d["zimmer:source"] = e.Source
		}
		if e.RemovedAt != nil {
			d["zimmer:removed_at"] = dateTime(*e.RemovedAt)
			d["zimmer:removed_by"] = e.RemovedBy
			d["zimmer:removed_via"] = e.RemovedVia
		}
		delegations[fmt.Sprintf("_:edge%d", i+1)] = d
	}
	for _, r := range x.Records {
		id := recordID(r.ID)
		entities[id] = map[string]any{"prov:type": "zimmer:HumanMessage", "prov:value": r.Content,
			"zimmer:channel": r.Channel, "zimmer:entry_point": r.EntryPoint, "zimmer:said_to": sessionID(r.SessionID),
			"zimmer:occurred_at": dateTime(r.OccurredAt), "zimmer:recorded_at": dateTime(r.RecordedAt),
			"zimmer:chain_position": r.Seq, "zimmer:content_digest": r.ContentDigest,
			"zimmer:previous_digest": r.PrevDigest, "zimmer:digest": r.Digest}
		attributions[fmt.Sprintf("_:said%d", r.ID)] = map[string]any{"prov:entity": id, "prov:agent": humanID(r.Author)}
		influences[fmt.Sprintf("_:heard%d", r.ID)] = map[string]any{"prov:influencee": sessionID(r.SessionID), "prov:influencer": id}
		if _, known := agents[humanID(r.Author)]; !known { // an author since taken off the roster is still the author
			agents[humanID(r.Author)] = map[string]any{"prov:type": provQName("prov:Person"), "prov:label": r.Author}
		}
	}
	doc := map[string]any{
		"prefix": map[string]any{
			"xsd":     "http://www.w3.org/2001/XMLSchema#",
			"zimmer":  "urn:zimmer:ns:",
			"session": strings.TrimRight(x.BaseURL, "/") + "/api/v1/sessions/",
			"human":   "urn:zimmer:human:",
			"record":  "urn:zimmer:human-message:",
		},
		"agent": agents,
	}
	for key, m := range map[string]map[string]any{"entity": entities, "wasAttributedTo": attributions,
		"wasInfluencedBy": influences, "actedOnBehalfOf": delegations} {
		if len(m) > 0 {
			doc[key] = m
		}
	}
	return doc
}

func sessionID(id int64) string { return fmt.Sprintf("session:%d", id) }
func recordID(id int64) string  { return fmt.Sprintf("record:%d", id) }
func humanID(key string) string { return "human:" + url.PathEscape(key) }
func edgeName(kind string) string {
	switch kind {
	case lineage.KindSpawn:
		return "spawn"
	case KindFormerUncle:
		return "uncle (removed)"
	}
	return "uncle"
}
