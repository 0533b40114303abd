package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestTheBacklogPageHoldsTheHumansLevers(t *testing.T) {
	h := setupHumans(t, humansOpts{backlog: true})
	token := h.token(t)
	add := url.Values{"csrf_token": {token}, "issue_url": {"https://github.com/x/y/issues/7"}, "title": {"Seven"}, "band": {"high"}}
	if p := h.request(t, http.MethodPost, "/backlog", add, "Origin", h.srv.URL); p.status != http.StatusSeeOther {
		t.Fatalf("add: %d %s", p.status, p.body)
	}
	p := h.request(t, http.MethodGet, "/backlog", nil)
	if p.status != http.StatusOK || !strings.Contains(p.body, "1. Seven") || !strings.Contains(p.body, "by tadasant") {
		t.Fatalf("the page lists the item and who added it: %d %s", p.status, p.body)
	}
	id := strings.SplitN(strings.SplitN(p.body, `action="/backlog/`, 2)[1], "/", 2)[0]

	forged := url.Values{"reason": {"forged"}}
	if p := h.request(t, http.MethodPost, "/backlog/"+id+"/remove", forged); p.status != http.StatusForbidden {
		t.Fatalf("a post without the form token: %d", p.status)
	}
	blank := url.Values{"csrf_token": {token}, "reason": {""}}
	if p := h.request(t, http.MethodPost, "/backlog/"+id+"/remove", blank, "Origin", h.srv.URL); p.status != http.StatusUnprocessableEntity ||
		!strings.Contains(p.body, "reason can&#39;t be blank") {
		t.Fatalf("a removal needs a reason: %d %s", p.status, p.body)
	}
	if p := h.request(t, http.MethodGet, "/backlog", nil); !strings.Contains(p.body, "1. Seven") {
		t.Fatalf("refused posts removed the item: %s", p.body)
	}
	pin := url.Values{"csrf_token": {token}, "pinned": {"true"}}
	if p := h.request(t, http.MethodPost, "/backlog/"+id+"/pin", pin, "Origin", h.srv.URL); p.status != http.StatusSeeOther {
		t.Fatalf("pin: %d %s", p.status, p.body)
	}
	if p := h.request(t, http.MethodGet, "/backlog", nil); !strings.Contains(p.body, "high · pinned") || !strings.Contains(p.body, ">Unpin<") {
		t.Fatalf("pinned: %s", p.body)
	}
	start := url.Values{"csrf_token": {token}}
	if p := h.request(t, http.MethodPost, "/backlog/"+id+"/start", start, "Origin", h.srv.URL); p.status != http.StatusSeeOther {
		t.Fatalf("start: %d %s", p.status, p.body)
	}
	p = h.request(t, http.MethodGet, "/backlog", nil)
	row := "#" + id + ` <a href="https://github.com/x/y/issues/7" rel="noopener noreferrer">https://github.com/x/y/issues/7</a> — started`
	if !strings.Contains(p.body, "The backlog is empty.") || !strings.Contains(p.body, row) {
		t.Fatalf("started items leave the queue and are listed: %s", p.body)
	}
}
