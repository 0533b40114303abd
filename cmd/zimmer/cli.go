package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/zimmerhq/zimmer/client"
)

// The client commands talk to a running `zimmer serve` through the client generated from the
// OpenAPI document; they need no store of their own.
var clientCommands = map[string]bool{"sessions": true, "tree": true, "health": true}

const clientUsage = `client commands (URL from ZIMMER_URL, else http:// + ZIMMER_HTTP_ADDR; key from ZIMMER_API_KEY,
else the first of API_KEYS; either also read from .zimmer/dev.env under ZIMMER_DATA_DIR):
  sessions [list]                      the newest sessions (--status, --per-page, --page)
  sessions show ID                     one session
  sessions new [--prompt P] [--agent-root R] [--title T] [--git-root URL] [--parent ID]
  sessions follow-up ID PROMPT         send a follow-up (queued while it runs)
  sessions archive ID [--force]        move a session to the trash
  tree ID                              the session's hierarchy, indented
  health                               the fleet health report
  --json                               print the API's JSON instead of a table`

// cli runs one client command and returns the process's exit code.
func cli(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if err := runClient(ctx, args, getenv, stdout); err != nil {
		fmt.Fprintln(stderr, "zimmer:", err)
		return 1
	}
	return 0
}

func runClient(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	cmd, rest := args[0], args[1:]
	sub := ""
	if cmd == "sessions" {
		sub = "list"
		if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
			sub, rest = rest[0], rest[1:]
		}
	}
	fs := flag.NewFlagSet("zimmer "+strings.TrimSpace(cmd+" "+sub), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print JSON")
	status := fs.String("status", "", "")
	perPage := fs.Int("per-page", 25, "")
	page := fs.Int("page", 1, "")
	prompt := fs.String("prompt", "", "")
	agentRoot := fs.String("agent-root", "", "")
	title := fs.String("title", "", "")
	gitRoot := fs.String("git-root", "", "")
	force := fs.Bool("force", false, "")
	parent := fs.Int64("parent", 0, "")
	if err := fs.Parse(interleave(rest)); err != nil {
		return fmt.Errorf("%v\n%s", err, clientUsage)
	}
	pos := fs.Args()
	need := func(n int, what string) error {
		if len(pos) != n {
			return fmt.Errorf("%s %s needs %s\n%s", cmd, sub, what, clientUsage)
		}
		return nil
	}
	c, err := newAPIClient(getenv)
	if err != nil {
		return err
	}
	p := printer{out: out, json: *asJSON}
	switch cmd + " " + sub {
	case "sessions list":
		params := &client.ListSessionsParams{PerPage: perPage, Page: page}
		if *status != "" {
			params.Status = status
		}
		r, err := c.ListSessionsWithResponse(ctx, params)
		if err := answered(r, err); err != nil {
			return err
		}
		return p.print(r.Body, func(w *tabwriter.Writer) {
			fmt.Fprintln(w, "ID\tSTATUS\tCLASS\tRUNTIME\tTITLE")
			for _, s := range r.JSON200.Sessions {
				fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\n", s.Id, s.Status, s.PriorityClass, s.AgentRuntime, oneLine(s.Title))
			}
			fmt.Fprintf(w, "\npage %d of %d, %d sessions\n", r.JSON200.Pagination.Page, r.JSON200.Pagination.TotalPages, r.JSON200.Pagination.TotalCount)
		})
	case "sessions show":
		if err := need(1, "a session id or slug"); err != nil {
			return err
		}
		r, err := c.ShowSessionWithResponse(ctx, pos[0], nil)
		if err := answered(r, err); err != nil {
			return err
		}
		return p.print(r.Body, func(w *tabwriter.Writer) { sessionTable(w, r.JSON200.Session) })
	case "sessions new":
		if err := need(0, "no arguments besides its flags"); err != nil {
			return err
		}
		body := client.CreateSession{Prompt: nonEmpty(*prompt), AgentRoot: nonEmpty(*agentRoot), Title: nonEmpty(*title), GitRoot: nonEmpty(*gitRoot)}
		if *parent != 0 {
			var id client.BodyInteger
			if err := id.FromBodyInteger0(int(*parent)); err != nil {
				return err
			}
			body.ParentSessionId = &id
		}
		r, err := c.CreateSessionWithResponse(ctx, body)
		if err := answered(r, err); err != nil {
			return err
		}
		created := r.JSON201
		if created == nil {
			created = r.JSON200 // an idempotency key matched
		}
		return p.print(r.Body, func(w *tabwriter.Writer) { sessionTable(w, created.Session) })
	case "sessions follow-up":
		if err := need(2, "a session id and the prompt"); err != nil {
			return err
		}
		r, err := c.FollowUpSessionWithResponse(ctx, pos[0], client.FollowUpSessionJSONRequestBody{Prompt: &pos[1]})
		if err := answered(r, err); err != nil {
			return err
		}
		return p.print(r.Body, func(w *tabwriter.Writer) {
			if r.JSON202 != nil {
				fmt.Fprintf(w, "%s\nqueued at position %d\n", r.JSON202.Message, r.JSON202.EnqueuedMessage.Position)
				return
			}
			fmt.Fprintln(w, r.JSON200.Message)
		})
	case "sessions archive":
		if err := need(1, "a session id or slug"); err != nil {
			return err
		}
		var f client.BodyBoolean
		if err := f.FromBodyBoolean0(*force); err != nil {
			return err
		}
		r, err := c.ArchiveSessionWithResponse(ctx, pos[0], client.ArchiveSessionJSONRequestBody{Force: &f})
		if err := answered(r, err); err != nil {
			return err
		}
		return p.print(r.Body, func(w *tabwriter.Writer) { fmt.Fprintf(w, "%s: #%d\n", r.JSON200.Message, r.JSON200.Session.Id) })
	case "tree ":
		if err := need(1, "a session id or slug"); err != nil {
			return err
		}
		r, err := c.ShowSessionWithResponse(ctx, pos[0], nil)
		if err := answered(r, err); err != nil {
			return err
		}
		return p.print(r.Body, func(w *tabwriter.Writer) { treeLines(w, r.JSON200.SessionHierarchy) })
	case "health ":
		r, err := c.ShowHealthWithResponse(ctx)
		if err := answered(r, err); err != nil {
			return err
		}
		return p.print(r.Body, func(w *tabwriter.Writer) { healthTable(w, r.JSON200.HealthReport) })
	}
	return fmt.Errorf("unknown command %q\n%s", strings.TrimSpace(cmd+" "+sub), clientUsage)
}

// interleave moves flags ahead of positional arguments, so `sessions show 12 --json` works
// as the flag package alone would not.
func interleave(args []string) []string {
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && !boolFlags[name] && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
		default:
			positional = append(positional, a)
		}
	}
	return append(append(flags, "--"), positional...)
}

var boolFlags = map[string]bool{"json": true, "force": true}

// apiResponse is what every generated response has.
type apiResponse interface{ StatusCode() int }

// answered turns a transport failure or an error status into an error carrying the API's message.
func answered(r apiResponse, err error) error {
	if err != nil {
		return err
	}
	if code := r.StatusCode(); code >= 300 {
		// Every generated response carries the raw answer in its Body field.
		var body struct{ Message string }
		if raw := reflect.ValueOf(r).Elem().FieldByName("Body"); raw.IsValid() {
			_ = json.Unmarshal(raw.Bytes(), &body)
		}
		return fmt.Errorf("the API answered %d: %s", code, cmpOr(body.Message, http.StatusText(code)))
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

type printer struct {
	out  io.Writer
	json bool
}

// print writes the API's own JSON with --json, otherwise the table.
func (p printer) print(raw []byte, table func(*tabwriter.Writer)) error {
	if p.json {
		_, err := fmt.Fprintln(p.out, strings.TrimSpace(string(raw)))
		return err
	}
	w := tabwriter.NewWriter(p.out, 0, 4, 2, ' ', 0)
	table(w)
	return w.Flush()
}

func sessionTable(w io.Writer, s client.Session) {
	row := func(k, v string) { fmt.Fprintf(w, "%s\t%s\n", k, v) }
	row("id", fmt.Sprint(s.Id))
	row("title", oneLine(s.Title))
	row("status", string(s.Status))
	row("runtime", s.AgentRuntime)
	row("class", string(s.PriorityClass))
	row("genesis", s.Genesis)
	if s.ParentSessionId != nil {
		row("parent", fmt.Sprint(*s.ParentSessionId))
	}
	if s.Category != nil {
		row("category", s.Category.Name)
	}
	row("git root", s.GitRoot)
	row("created", s.CreatedAt.Local().Format("2006-01-02 15:04"))
}

// treeLines draws the hierarchy, each session under its spawn parent, the one asked about marked.
func treeLines(w io.Writer, h client.Hierarchy) {
	children := map[int64][]int{}
	var roots []int
	present := map[int64]bool{}
	for _, n := range h.Nodes {
		present[n.Id] = true
	}
	for i, n := range h.Nodes {
		if n.ParentSessionId != nil && present[*n.ParentSessionId] {
			children[*n.ParentSessionId] = append(children[*n.ParentSessionId], i)
		} else {
			roots = append(roots, i)
		}
	}
	var walk func(i int, depth int)
	walk = func(i int, depth int) {
		n := h.Nodes[i]
		mark := ""
		if n.Current {
			mark = "  ←"
		}
		fmt.Fprintf(w, "%s#%d %s [%s]%s\n", strings.Repeat("  ", depth), n.Id, oneLine(n.Title), n.Status, mark)
		for _, c := range children[n.Id] {
			walk(c, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	if h.Truncated && h.TruncationReason != nil {
		fmt.Fprintln(w, "("+*h.TruncationReason+")")
	}
}

func healthTable(w io.Writer, report map[string]any) {
	if deps, ok := report["dependencies"].(map[string]any); ok {
		fmt.Fprintln(w, "DEPENDENCY\tSTATUS")
		for _, name := range sortedKeys(deps) {
			d, _ := deps[name].(map[string]any)
			fmt.Fprintf(w, "%s\t%v\n", name, d["status"])
		}
		fmt.Fprintln(w)
	}
	if by, ok := report["sessions_by_status"].(map[string]any); ok {
		fmt.Fprintln(w, "STATUS\tSESSIONS")
		for _, st := range sortedKeys(by) {
			fmt.Fprintf(w, "%s\t%v\n", st, by[st])
		}
		fmt.Fprintln(w)
	}
	if qr, ok := report["queue_recovery_mode"].(map[string]any); ok {
		fmt.Fprintf(w, "queue recovery mode\t%v\n", map[bool]string{true: "on", false: "off"}[qr["active"] == true])
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// newAPIClient reads where the API is and its key: the environment first, then .zimmer/dev.env.
func newAPIClient(getenv func(string) string) (*client.ClientWithResponses, error) {
	file := devEnv(getenv)
	get := func(name string) string { return cmpOr(getenv(name), file[name]) }
	url := get("ZIMMER_URL")
	if url == "" {
		url = "http://" + cmpOr(get("ZIMMER_HTTP_ADDR"), "127.0.0.1:8080")
	}
	key := get("ZIMMER_API_KEY")
	if key == "" {
		key, _, _ = strings.Cut(get("API_KEYS"), ",")
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return nil, errors.New("no API key: set ZIMMER_API_KEY (or API_KEYS), or run `make up`, which writes .zimmer/dev.env")
	}
	return client.NewClientWithResponses(strings.TrimRight(url, "/"), client.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("X-API-Key", key)
		return nil
	}))
}

// devEnv reads the KEY=value lines of dev.env under the data directory; none when it is absent.
func devEnv(getenv func(string) string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(filepath.Join(cmpOr(getenv("ZIMMER_DATA_DIR"), ".zimmer"), "dev.env"))
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "export "))
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(k, "#") {
			out[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return out
}
