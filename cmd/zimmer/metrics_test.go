package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/metrics"
)

// TestEveryCataloguedSeriesIsScrapedAfterRealTraffic runs a real serve and a real worker (the
// fake agent CLI as every runtime, a Redis of the test's own, the worker's sweeps scoped to this
// test's fleet), drives traffic through them — sessions over REST and the web form, a turn that
// calls an MCP tool, two that hit trouble (one retried, one failed), a follow-up, a trigger invoked, health actions, an
// archive — and then requires every series metrics.Catalogue names on each process it names,
// with its type, and no zimmer_ family the catalogue lacks.
func TestEveryCataloguedSeriesIsScrapedAfterRealTraffic(t *testing.T) {
	dir := t.TempDir()
	fake, catDir := agentFixtures(t, dir)
	o := graphtest.Neo4jOptions()
	redis := graphtest.StartRedis(t, graphtest.Unique(t, "pw"))
	serveAddr, workerAddr := freeAddr(t), freeAddr(t)
	scope := graphtest.Unique(t, "metrics-fleet")
	const key, webUser, webPassword = "metrics-e2e-test-key-0123456789", "ops", "metrics-web-password"
	env := map[string]string{"NEO4J_URI": o.URI, "NEO4J_USER": o.User, "NEO4J_PASSWORD": o.Password, "REDIS_URL": redis.URL,
		"API_KEYS": key, "ZIMMER_HTTP_ADDR": serveAddr, "ZIMMER_WORKER_METRICS_ADDR": workerAddr, "ZIMMER_PUBLIC_URL": "http://" + serveAddr,
		"ZIMMER_DATA_DIR": filepath.Join(dir, "data"), "ZIMMER_CATALOG_DIR": catDir, "ZIMMER_FLEET_SCOPE": scope,
		"ZIMMER_CLAUDE_BIN": fake, "ZIMMER_CODEX_BIN": fake, "ZIMMER_PI_BIN": fake, "ZIMMER_WEB_USER": webUser, "ZIMMER_WEB_PASSWORD": webPassword}
	serveLog, stopServe := startServe(t, env)
	stopWorker := startWorker(t, env)
	t.Cleanup(func() {
		if err := stopWorker(); err != nil {
			t.Errorf("worker: %v", err)
		}
		if err := stopServe(); err != nil {
			t.Errorf("serve: %v", err)
		}
		if t.Failed() {
			t.Logf("serve's log:\n%s", serveLog.String())
		}
	})
	api := &apiClient{t: t, base: "http://" + serveAddr + "/api/v1", key: key}
	fleet := map[string]any{"fleet": scope}

	wakeAt := time.Now().UTC().Add(time.Hour).Format("2006-01-02T15:04:05")
	sleeper := api.create(map[string]any{"prompt": fmt.Sprintf(`CALL wake_me_up_later {"wake_at":%q,"prompt":"wake up"}`, wakeAt), "custom_metadata": fleet})
	troubled := api.create(map[string]any{"prompt": "FAIL overloaded", "custom_metadata": fleet})
	failing := api.create(map[string]any{"prompt": "FAIL auth", "custom_metadata": fleet})
	talker := api.create(map[string]any{"prompt": "hello", "custom_metadata": fleet})
	api.waitStatus(talker, "needs_input")
	api.call(http.MethodPost, fmt.Sprintf("/sessions/%d/follow_up", talker), map[string]any{"prompt": "and again"}, http.StatusOK, http.StatusAccepted)
	api.call(http.MethodGet, fmt.Sprintf("/sessions/%d", talker), nil, http.StatusOK)
	trigger := api.call(http.MethodPost, "/triggers", map[string]any{"name": "metrics " + scope, "agent_root_name": "metrics-root",
		"prompt_template": "hello from " + scope, "trigger_conditions_attributes": []any{map[string]any{"condition_type": "schedule",
			"configuration": map[string]any{"unit": "days", "interval": 1, "time": "03:00"}}}}, http.StatusCreated)
	triggerID := int64(trigger["trigger"].(map[string]any)["id"].(float64))
	api.call(http.MethodPost, fmt.Sprintf("/triggers/%d/invoke", triggerID), nil, http.StatusCreated)
	api.call(http.MethodGet, "/health/queued_jobs?queue_name=default", nil, http.StatusOK)
	api.call(http.MethodPost, "/health/enter_queue_recovery_mode", map[string]any{"reason": "metrics test", "ttl_minutes": 5}, http.StatusOK)
	api.call(http.MethodPost, "/health/exit_queue_recovery_mode", nil, http.StatusOK)
	webCreate(t, "http://"+serveAddr, webUser, webPassword)

	// Wait for what the worker does on its own time before the session that slept is archived.
	api.waitStatus(troubled, "needs_input")
	api.waitStatus(failing, "failed")
	api.waitStatus(sleeper, "waiting")
	for _, id := range []int64{sleeper, troubled, failing, talker} {
		api.call(http.MethodPost, fmt.Sprintf("/sessions/%d/archive", id), map[string]any{"force": true}, http.StatusOK)
	}
	api.call(http.MethodDelete, fmt.Sprintf("/triggers/%d", triggerID), nil, http.StatusOK, http.StatusNoContent)

	scraped := map[metrics.Process]string{metrics.Serve: "http://" + serveAddr + "/metrics", metrics.Worker: "http://" + workerAddr + "/metrics"}
	var missing []string
	deadline := time.Now().Add(90 * time.Second)
	for {
		families := map[metrics.Process]map[string]string{}
		for p, u := range scraped {
			families[p] = scrapeTypes(t, u)
		}
		missing = missing[:0]
		for _, s := range metrics.Catalogue {
			for _, p := range s.On {
				switch typ, ok := families[p][s.Name]; {
				case !ok:
					missing = append(missing, fmt.Sprintf("%s on %s", s.Name, p))
				case typ != s.Type:
					t.Errorf("%s on %s is a %s; the catalogue says %s", s.Name, p, typ, s.Type)
				}
			}
		}
		catalogued := map[string]bool{}
		for _, s := range metrics.Catalogue {
			catalogued[s.Name] = true
		}
		for p, fams := range families {
			for _, name := range slices.Sorted(maps.Keys(fams)) {
				if strings.HasPrefix(name, "zimmer_") && !catalogued[name] {
					t.Errorf("%s exports %s, which metrics.Catalogue does not list", p, name)
				}
			}
		}
		if len(missing) == 0 || t.Failed() || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	if len(missing) > 0 {
		t.Fatalf("after the traffic, these catalogued series were never exported:\n%s", strings.Join(missing, "\n"))
	}
}

// agentFixtures builds the fake agent CLI and a catalog with one root on a local repository.
func agentFixtures(t *testing.T, dir string) (fake, catDir string) {
	t.Helper()
	fake = filepath.Join(dir, "fakeagent")
	if out, err := exec.Command("go", "build", "-o", fake, "../../jobs/runner/testdata/fakeagent").CombinedOutput(); err != nil {
		t.Fatalf("build the fake agent: %v\n%s", err, out)
	}
	repo := filepath.Join(dir, "repo")
	script := `set -e
git init -q -b main "$1"
cd "$1"
echo hello > README
git -c user.name=t -c user.email=t@example.invalid add -A
git -c user.name=t -c user.email=t@example.invalid commit -q -m init`
	if out, err := exec.Command("bash", "-c", script, "bash", repo).CombinedOutput(); err != nil {
		t.Fatalf("make the test repository: %v\n%s", err, out)
	}
	catDir = filepath.Join(dir, "catalog")
	files := map[string]string{"roots.json": fmt.Sprintf(`{"metrics-root": {"url": %q, "default_branch": "main"}}`, "file://"+repo), "mcp.json": `{}`}
	if err := os.MkdirAll(catDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(catDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fake, catDir
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startWorker runs `zimmer worker` with env until it logs that it runs; stop ends it.
func startWorker(t *testing.T, env map[string]string) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := &lockedBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, "worker", func(k string) string { return env[k] }, log) }()
	stop = func() error { cancel(); return <-done }
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(log.String(), "msg=\"worker running\"") {
		if time.Now().After(deadline) {
			_ = stop()
			t.Fatalf("the worker did not start: %s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return stop
}

// apiClient calls serve's REST API with the fleet key.
type apiClient struct {
	t         *testing.T
	base, key string
}

func (a *apiClient) call(method, path string, body any, want ...int) map[string]any {
	a.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			a.t.Fatal(err)
		}
		r = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, a.base+path, r)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("X-API-Key", a.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if !slices.Contains(want, resp.StatusCode) {
		a.t.Fatalf("%s %s: %d %s; want %v", method, path, resp.StatusCode, raw, want)
	}
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	return out
}

func (a *apiClient) create(body map[string]any) int64 {
	a.t.Helper()
	body["agent_root"] = "metrics-root"
	out := a.call(http.MethodPost, "/sessions", body, http.StatusCreated)
	return int64(out["session"].(map[string]any)["id"].(float64))
}

func (a *apiClient) waitStatus(id int64, status string) {
	a.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		s := a.call(http.MethodGet, fmt.Sprintf("/sessions/%d", id), nil, http.StatusOK)["session"].(map[string]any)
		if s["status"] == status {
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("session %d is %v, not %s, after 90 s: %v", id, s["status"], status, s["metadata"])
		}
		time.Sleep(200 * time.Millisecond)
	}
}

var csrfInput = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// webCreate submits the web UI's new-session form, as the admin typing a prompt would.
func webCreate(t *testing.T, base, user, password string) {
	t.Helper()
	get, _ := http.NewRequest(http.MethodGet, base+"/sessions/new", nil)
	get.SetBasicAuth(user, password)
	resp, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfInput.FindSubmatch(page)
	if m == nil {
		t.Fatalf("GET /sessions/new: %d, no form token in %.500s", resp.StatusCode, page)
	}
	form := url.Values{"csrf_token": {string(m[1])}, "agent_root": {"metrics-root"}, "title": {"metrics web"}, "prompt": {"hello from the web"}}
	post, _ := http.NewRequest(http.MethodPost, base+"/sessions", strings.NewReader(form.Encode()))
	post.SetBasicAuth(user, password)
	post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = client.Do(post)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusFound {
		t.Fatalf("POST /sessions (web form): %d; want a redirect to the new session", resp.StatusCode)
	}
}

var typeLine = regexp.MustCompile(`(?m)^# TYPE (\S+) (\S+)$`)

// scrapeTypes reads a /metrics page: each family that has a series, with its type.
func scrapeTypes(t *testing.T, u string) map[string]string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := map[string]string{}
	for _, m := range typeLine.FindAllStringSubmatch(string(raw), -1) {
		out[m[1]] = m[2]
	}
	return out
}
