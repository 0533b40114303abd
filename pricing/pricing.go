// Package pricing prices the token ledger at list price. Volumes are stored and prices applied
// on read, so a changed price list reprices all of history. The list is prices.json: built in,
// or the catalog folder's own (ZIMMER_CATALOG_DIR/prices.json), which replaces it whole.
package pricing

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zimmerhq/zimmer/session"
)

// FileName is the price list's name in a catalog folder.
const FileName = "prices.json"

//go:embed prices.json
var builtIn []byte

// Rates are one model family's list prices in dollars per million tokens, by kind of token.
type Rates struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheRead    float64 `json:"cache_read"`
	CacheWrite5m float64 `json:"cache_write_5m"`
	CacheWrite1h float64 `json:"cache_write_1h"`
}

// Multipliers derive a family's cache prices from its input price when it does not set them.
type Multipliers struct {
	CacheRead    float64 `json:"cache_read"`
	CacheWrite5m float64 `json:"cache_write_5m"`
	CacheWrite1h float64 `json:"cache_write_1h"`
}

// Table is a loaded price list.
type Table struct {
	// Models maps a family name (matched as a substring of a model id, longest first) to its
	// rates, every kind filled in.
	Models               map[string]Rates `json:"models"`
	Multipliers          Multipliers      `json:"multipliers"`
	WebSearchPerThousand float64          `json:"web_search_per_thousand"`
	WebFetchPerThousand  float64          `json:"web_fetch_per_thousand"`
	// Source is where the list came from: "built in" or the file's path.
	Source string `json:"source"`
}

// Cost is what one set of volumes costs at list price, by kind of token, in dollars.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
	WebSearch  float64 `json:"web_search"`
	WebFetch   float64 `json:"web_fetch"`
	Total      float64 `json:"total"`
}

// Add sums two costs.
func (c Cost) Add(o Cost) Cost {
	return Cost{Input: c.Input + o.Input, Output: c.Output + o.Output, CacheRead: c.CacheRead + o.CacheRead,
		CacheWrite: c.CacheWrite + o.CacheWrite, WebSearch: c.WebSearch + o.WebSearch, WebFetch: c.WebFetch + o.WebFetch,
		Total: c.Total + o.Total}
}

// EstimateTokens estimates the tokens of text Zimmer itself writes into a prompt: a quarter of
// its bytes, rounded up. A runtime reports usage per model request, never per block within one,
// and no tokenizer for the priced models ships offline; about four characters a token is the
// vendors' own rule of thumb for English, and the blocks are English prose in ASCII markup,
// where it holds best. The bytes are kept beside the estimate, so a better one can reprice
// history.
func EstimateTokens(bytes int) int64 { return int64((bytes + 3) / 4) }

// Dollars formats a list price for people: cents, or four places below a cent so a small
// spend does not read as nothing.
func Dollars(v float64) string {
	if v > 0 && v < 0.01 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// Default is the built-in price list.
func Default() *Table {
	t, err := parse(builtIn, "built in")
	if err != nil {
		panic("the built-in price list does not load: " + err.Error())
	}
	return t
}

// Load reads the catalog folder's price list, or the built-in one when dir is "" or holds none.
func Load(dir string) (*Table, error) {
	if dir == "" {
		return Default(), nil
	}
	path := filepath.Join(dir, FileName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the price list: %w", err)
	}
	t, err := parse(b, path)
	if err != nil {
		return nil, fmt.Errorf("the price list %s: %w", path, err)
	}
	return t, nil
}

func parse(b []byte, source string) (*Table, error) {
	var t Table
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if len(t.Models) == 0 {
		return nil, errors.New(`"models" names no model family`)
	}
	m := t.Multipliers
	if m.CacheRead < 0 || m.CacheWrite5m < 0 || m.CacheWrite1h < 0 || t.WebSearchPerThousand < 0 || t.WebFetchPerThousand < 0 {
		return nil, errors.New("a price or multiplier is negative")
	}
	for name, r := range t.Models {
		if strings.TrimSpace(name) == "" {
			return nil, errors.New("a model family has an empty name")
		}
		if r.Input < 0 || r.Output < 0 || r.CacheRead < 0 || r.CacheWrite5m < 0 || r.CacheWrite1h < 0 {
			return nil, fmt.Errorf("model family %q has a negative price", name)
		}
		if r.CacheRead == 0 {
			r.CacheRead = r.Input * m.CacheRead
		}
		if r.CacheWrite5m == 0 {
			r.CacheWrite5m = r.Input * m.CacheWrite5m
		}
		if r.CacheWrite1h == 0 {
			r.CacheWrite1h = r.Input * m.CacheWrite1h
		}
		t.Models[name] = r
	}
	t.Source = source
	return &t, nil
}

// Family finds the family a model id belongs to: the longest family name it contains (case
// insensitive). ok is false for a model without a rate.
func (t *Table) Family(model string) (string, bool) {
	model = strings.ToLower(model)
	best := ""
	for name := range t.Models {
		n := strings.ToLower(name)
		if strings.Contains(model, n) && (len(n) > len(best) || len(n) == len(best) && name < best) {
			best = name
		}
	}
	return best, best != ""
}

// RatesFor finds a model's rates, its family's. ok is false for a model without a rate.
func (t *Table) RatesFor(model string) (Rates, bool) {
	family, ok := t.Family(model)
	return t.Models[family], ok
}

// Price costs one model's volumes. A model without a rate costs nothing and reports
// priced=false, so the caller can name it rather than fold it silently into a total. Web
// searches and fetches are priced for any model. Cache-creation tokens the runtime did not
// split into 5-minute and 1-hour writes are priced as 1-hour writes.
func (t *Table) Price(model string, v session.TokenCounts) (c Cost, priced bool) {
	r, priced := t.RatesFor(model)
	return t.cost(r, priced, v), priced
}

// For is Price for many rows of one model (a report's): its family is found once.
func (t *Table) For(model string) (price func(session.TokenCounts) Cost, priced bool) {
	r, priced := t.RatesFor(model)
	return func(v session.TokenCounts) Cost { return t.cost(r, priced, v) }, priced
}

func (t *Table) cost(r Rates, priced bool, v session.TokenCounts) (c Cost) {
	c.WebSearch = float64(v.WebSearchRequests) * t.WebSearchPerThousand / 1000
	c.WebFetch = float64(v.WebFetchRequests) * t.WebFetchPerThousand / 1000
	if priced {
		const mtok = 1e6
		unsplit := max(0, v.CacheCreationTokens-v.CacheCreation5mTokens-v.CacheCreation1hTokens)
		c.Input = float64(v.InputTokens) * r.Input / mtok
		c.Output = float64(v.OutputTokens) * r.Output / mtok
		c.CacheRead = float64(v.CacheReadTokens) * r.CacheRead / mtok
		c.CacheWrite = (float64(v.CacheCreation5mTokens)*r.CacheWrite5m + float64(v.CacheCreation1hTokens+unsplit)*r.CacheWrite1h) / mtok
	}
	c.Total = c.Input + c.Output + c.CacheRead + c.CacheWrite + c.WebSearch + c.WebFetch
	return c
}

// Families lists the priced families, sorted.
func (t *Table) Families() []string {
	out := make([]string, 0, len(t.Models))
	for n := range t.Models {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
