package web

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The sessions list and the Trash: one listing with filters, a title search and paging, kept
// live (live.go) by re-rendering its rows when the graph changes.

// listFilter is what the list's form sends, read back from the query string.
type listFilter struct {
	Query, Status, Root, Genesis, Class, Category string
	Favorites                                     bool
	Page                                          int
	Trash                                         bool // the Trash view: archived sessions only
}

func readFilter(c *gin.Context, trash bool) listFilter {
	page, _ := strconv.Atoi(c.Query("page"))
	return listFilter{Query: c.Query("q"), Status: c.Query("status"), Root: c.Query("root"), Genesis: c.Query("genesis"),
		Class: c.Query("class"), Category: c.Query("category"), Favorites: c.Query("favorites") == "1", Page: page, Trash: trash}
}

// values is the filter as a query string, without the page; pageURL adds one.
func (f listFilter) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"q": f.Query, "status": f.Status, "root": f.Root, "genesis": f.Genesis, "class": f.Class, "category": f.Category} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.Favorites {
		v.Set("favorites", "1")
	}
	return v
}

// Base is the listing's own path.
func (f listFilter) Base() string {
	if f.Trash {
		return "/trash"
	}
	return "/sessions"
}

func (f listFilter) pageURL(n int) string {
	v := f.values()
	v.Set("page", strconv.Itoa(n))
	return f.Base() + "?" + v.Encode()
}

type option struct{ Value, Label string }

type listPage struct {
	Filter     listFilter
	Sessions   []*session.Session
	Page       orchestrator.Page
	Prev, Next string // page links, "" when there is none
	LiveURL    string
	Notice     string
	Statuses   []option
	Roots      []option
	Geneses    []option
	Categories []option
}

func (h *Handler) loadList(ctx context.Context, f listFilter) (listPage, error) {
	p := orchestrator.SearchParams{Query: f.Query, AgentRoot: f.Root, Genesis: f.Genesis, PriorityClass: f.Class,
		Favorites: f.Favorites, Page: f.Page}
	switch {
	case f.Trash:
		p.Statuses = []string{string(session.StatusArchived)}
	case f.Status != "":
		p.Statuses = []string{f.Status}
	}
	if f.Category != "" {
		id, err := strconv.ParseInt(f.Category, 10, 64)
		if err != nil {
			return listPage{}, &orchestrator.ValidationError{Label: "Invalid category", Messages: []string{"Pick a category from the list."}}
		}
		p.CategoryID = &id
	}
	list, page, err := h.ops.Search(ctx, p)
	if err != nil {
		return listPage{}, err
	}
	out := listPage{Filter: f, Sessions: list, Page: page, LiveURL: "/live/sessions?" + f.values().Encode()}
	if f.Trash {
		out.LiveURL += "&trash=1"
	}
	if page.Page > 1 {
		out.Prev = f.pageURL(page.Page - 1)
	}
	if page.Page < page.TotalPages {
		out.Next = f.pageURL(page.Page + 1)
	}
	return out, nil
}

// options fills the filter form's choices.
func (h *Handler) options(ctx context.Context, p *listPage) error {
	for _, s := range session.Statuses {
		p.Statuses = append(p.Statuses, option{string(s), string(s)})
	}
	cat := h.ops.Catalog()
	for _, name := range slices.Sorted(maps.Keys(cat.Roots)) {
		p.Roots = append(p.Roots, option{name, cmpOr(cat.Roots[name].DisplayName, name)})
	}
	for _, g := range session.Geneses {
		p.Geneses = append(p.Geneses, option{string(g), string(g)})
	}
	cats, err := h.ops.Categories(ctx)
	if err != nil {
		return err
	}
	for _, c := range cats {
		p.Categories = append(p.Categories, option{strconv.FormatInt(c.ID, 10), c.Name})
	}
	return nil
}

var listNotices = map[string]string{"deleted": "Deleted for good."}

func (h *Handler) listSessions(c *gin.Context) { h.showList(c, false) }

func (h *Handler) trash(c *gin.Context) { h.showList(c, true) }

func (h *Handler) showList(c *gin.Context, trash bool) {
	f := readFilter(c, trash)
	p, err := h.loadList(c.Request.Context(), f)
	if err != nil {
		h.refuse(c, err, f.Base())
		return
	}
	p.LiveURL += "&shown=" + url.QueryEscape(h.shownPanels("sessions.html", listPanels, p))
	if err := h.options(c.Request.Context(), &p); err != nil {
		h.fail(c, err)
		return
	}
	p.Notice = listNotices[c.Query("notice")]
	title := "Sessions"
	if trash {
		title = "Trash"
	}
	h.render(c, http.StatusOK, "sessions.html", title, p)
}

// listPanels is the list page's one replaceable panel: event name → template.
var listPanels = [][2]string{{"list", "session-rows"}}

// liveList streams a list's rows (with the page's filters) whenever the graph changes.
func (h *Handler) liveList(c *gin.Context) {
	f := readFilter(c, c.Query("trash") == "1")
	s, changes, done, ok := h.open(c)
	if !ok {
		return
	}
	defer done()
	ctx := c.Request.Context()
	rows := func() bool {
		p, err := h.loadList(ctx, f)
		if err != nil {
			return true // a filter the page itself refused: nothing to follow
		}
		html, err := h.fragment("sessions.html", listPanels[0][1], view{Token: s.token, Data: p})
		if err != nil {
			h.log.Error("live list: rows failed", "err", err)
			return false
		}
		s.panel(listPanels[0][0], html)
		return false
	}
	if rows() {
		return
	}
	h.follow(ctx, s, changes, rows, nil)
}
