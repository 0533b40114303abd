package deploy_test

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/zimmerhq/zimmer/config"
	"github.com/zimmerhq/zimmer/metrics"
)

// The files under test, relative to the repository root.
const (
	composeFile       = "docker-compose.yml"
	dockerfile        = "Dockerfile"
	prometheusFile    = "deploy/prometheus/prometheus.yml"
	alertsFile        = "deploy/prometheus/alerts.yml"
	datasourceFile    = "deploy/grafana/provisioning/datasources/datasource.yml"
	dashboardsFile    = "deploy/grafana/provisioning/dashboards/dashboards.yml"
	dashboardFile     = "deploy/grafana/dashboards/zimmer.json"
	provisioningDir   = "deploy/grafana/provisioning"
	dashboardsDir     = "deploy/grafana/dashboards"
	grafanaProvTarget = "/etc/grafana/provisioning" // where Grafana looks for provisioning files
)

// zimmerProcesses are the two compose services that run the zimmer image, with the variable
// holding the address each one listens on and the command each one runs.
var zimmerProcesses = []struct {
	service, command, addrVar string
}{
	{service: "zimmer", command: "serve", addrVar: "ZIMMER_HTTP_ADDR"},
	{service: "worker", command: "worker", addrVar: "ZIMMER_WORKER_METRICS_ADDR"},
}

// stores are the backing services the zimmer processes reach through a URL variable.
var stores = []struct {
	service, urlVar, port string
}{
	{service: "neo4j", urlVar: "NEO4J_URI", port: "7687"},
	{service: "redis", urlVar: "REDIS_URL", port: "6379"},
}

func TestComposeDefinesEveryService(t *testing.T) {
	c := loadCompose(t)
	for _, tc := range []struct {
		service string
		image   func(string) bool
		want    string
	}{
		{"neo4j", eq("neo4j:5.26-community"), "neo4j:5.26-community"},
		{"redis", hasPrefix("redis:7"), "redis:7*"},
		{"zimmer", anyImage, "built from the Dockerfile"},
		{"worker", anyImage, "built from the Dockerfile"},
		{"prometheus", hasPrefix("prom/prometheus"), "prom/prometheus*"},
		{"grafana", hasPrefix("grafana/grafana"), "grafana/grafana*"},
	} {
		t.Run(tc.service, func(t *testing.T) {
			s, ok := c.Services[tc.service]
			if !ok {
				t.Fatalf("%s has no service %q", composeFile, tc.service)
			}
			if !tc.image(s.Image) {
				t.Errorf("service %s: image %q, want %s", tc.service, s.Image, tc.want)
			}
		})
	}
}

func TestComposeBuildsZimmerProcessesFromTheDockerfile(t *testing.T) {
	c := loadCompose(t)
	for _, p := range zimmerProcesses {
		if c.service(t, p.service).Build == nil {
			t.Errorf("service %s has no build: it must be built from the repository's %s", p.service, dockerfile)
		}
	}
}

func TestComposeSetsOnlyVariablesTheConfigReads(t *testing.T) {
	c := loadCompose(t)
	for _, p := range zimmerProcesses {
		for name := range c.service(t, p.service).Environment {
			if !slices.Contains(config.Variables, name) {
				t.Errorf("service %s sets %s, which config.Variables does not list: the binary never reads it", p.service, name)
			}
		}
	}
}

func TestComposeSetsRequiredVariables(t *testing.T) {
	c := loadCompose(t)
	for _, tc := range []struct{ service, name string }{
		{"zimmer", "API_KEYS"},
		{"zimmer", "NEO4J_URI"},
		{"worker", "API_KEYS"},
		{"zimmer", "REDIS_URL"},
		{"zimmer", "ZIMMER_HTTP_ADDR"},
		{"worker", "NEO4J_URI"},
		{"worker", "REDIS_URL"},
		{"worker", "ZIMMER_WORKER_METRICS_ADDR"},
	} {
		t.Run(tc.service+"/"+tc.name, func(t *testing.T) {
			if _, ok := c.service(t, tc.service).Environment[tc.name]; !ok {
				t.Errorf("service %s does not set %s", tc.service, tc.name)
			}
		})
	}
}

// serve checks API_KEYS on every request (the agents' MCP entries carry their own session tokens;
// the worker is given the keys too, harmlessly, so one .env serves both).
func TestComposeGivesServeAndWorkerTheAPIKeys(t *testing.T) {
	c := loadCompose(t)
	for _, p := range zimmerProcesses {
		v := c.service(t, p.service).Environment["API_KEYS"]
		if !strings.HasPrefix(v, "${API_KEYS:?") {
			t.Errorf("%s API_KEYS=%q: want ${API_KEYS:?message} so compose fails clearly when it is unset", p.service, v)
		}
	}
}

func TestComposeStoresRequireTheirPasswords(t *testing.T) {
	c := loadCompose(t)
	if v := c.service(t, "neo4j").Environment["NEO4J_AUTH"]; !strings.HasPrefix(v, "neo4j/${NEO4J_PASSWORD:?") {
		t.Errorf("neo4j NEO4J_AUTH=%q: want neo4j/${NEO4J_PASSWORD:?message}: auth on, password from the environment", v)
	}
	redis := c.service(t, "redis")
	i := slices.Index(redis.Command, "--requirepass")
	if i < 0 || i+1 >= len(redis.Command) || !strings.HasPrefix(redis.Command[i+1], "${REDIS_PASSWORD:?") {
		t.Errorf("redis command %q: want --requirepass ${REDIS_PASSWORD:?message}", redis.Command)
	}
	if v := redis.Environment["REDISCLI_AUTH"]; !strings.HasPrefix(v, "${REDIS_PASSWORD:?") {
		t.Errorf("redis REDISCLI_AUTH=%q: the healthcheck's redis-cli needs ${REDIS_PASSWORD:?message}", v)
	}
	for _, p := range zimmerProcesses {
		env := c.service(t, p.service).Environment
		if env["NEO4J_USER"] != "neo4j" || !strings.HasPrefix(env["NEO4J_PASSWORD"], "${NEO4J_PASSWORD:?") {
			t.Errorf("%s: NEO4J_USER=%q NEO4J_PASSWORD=%q: want neo4j and ${NEO4J_PASSWORD:?message}", p.service, env["NEO4J_USER"], env["NEO4J_PASSWORD"])
		}
		if !strings.HasPrefix(env["REDIS_URL"], "redis://:${REDIS_PASSWORD:?") {
			t.Errorf("%s: REDIS_URL=%q does not carry ${REDIS_PASSWORD:?message}", p.service, env["REDIS_URL"])
		}
	}
}

var secretNameRE = regexp.MustCompile(`PASSWORD|SECRET|KEY|TOKEN|AUTH`)

// No secret has a default in the committed file: a deployment that forgets one must fail to
// start, not run with a value everyone can read here. An empty default (a feature left off) is fine.
func TestComposeCommitsNoDefaultSecret(t *testing.T) {
	for _, m := range interpolationRE.FindAllStringSubmatch(string(readFile(t, composeFile)), -1) {
		if secretNameRE.MatchString(m[1]) && strings.TrimPrefix(m[2], ":") == "-" && m[3] != "" {
			t.Errorf("%s gives %s the default %q: use ${%s:?message}", composeFile, m[1], m[3], m[1])
		}
	}
	for name, s := range loadCompose(t).Services {
		for k, v := range s.Environment {
			if secretNameRE.MatchString(k) && !strings.Contains(v, "${") {
				t.Errorf("service %s sets %s to a literal %q: take it from the environment", name, k, v)
			}
		}
	}
}

// A published port listens on the host's loopback unless the deployment says otherwise.
func TestComposePublishesPortsOnLoopbackByDefault(t *testing.T) {
	for name, s := range loadCompose(t).Services {
		for _, p := range s.Ports {
			if p.HostIP != "127.0.0.1" {
				t.Errorf("service %s publishes %q on %q: bind it to ${ZIMMER_PUBLISH_ADDR:-127.0.0.1}", name, p.Raw, cmp.Or(p.HostIP, "every interface"))
			}
		}
	}
}

func TestComposeProcessesListenOnAllInterfaces(t *testing.T) {
	c := loadCompose(t)
	for _, p := range zimmerProcesses {
		t.Run(p.service, func(t *testing.T) {
			host, _ := listenAddr(t, c, p.service, p.addrVar)
			if host != "0.0.0.0" && host != "" && host != "::" {
				t.Errorf("service %s: %s listens on %q, which other containers cannot reach; use 0.0.0.0", p.service, p.addrVar, host)
			}
		})
	}
}

func TestComposePublishesEachListenPort(t *testing.T) {
	c := loadCompose(t)
	for _, tc := range []struct {
		service, addrVar string
		exposeSuffices   bool // reachable on the compose network only
	}{
		{"zimmer", "ZIMMER_HTTP_ADDR", false},
		{"worker", "ZIMMER_WORKER_METRICS_ADDR", true},
	} {
		t.Run(tc.service, func(t *testing.T) {
			s := c.service(t, tc.service)
			_, port := listenAddr(t, c, tc.service, tc.addrVar)
			published := slices.ContainsFunc(s.Ports, func(p portMapping) bool { return p.Container == port })
			exposed := slices.Contains(s.Expose, port)
			if !published && !(tc.exposeSuffices && exposed) {
				t.Errorf("service %s listens on port %s (%s) but ports %v / expose %v do not name it", tc.service, port, tc.addrVar, s.Ports, s.Expose)
			}
		})
	}
}

func TestComposeStoreURLsNameTheStoreServices(t *testing.T) {
	c := loadCompose(t)
	for _, p := range zimmerProcesses {
		for _, st := range stores {
			t.Run(p.service+"/"+st.urlVar, func(t *testing.T) {
				if _, ok := c.Services[st.service]; !ok {
					t.Fatalf("%s has no service %q", composeFile, st.service)
				}
				raw := resolve(c.service(t, p.service).Environment[st.urlVar])
				u, err := url.Parse(raw)
				if err != nil {
					t.Fatalf("service %s: %s=%q: %v", p.service, st.urlVar, raw, err)
				}
				if u.Hostname() != st.service || u.Port() != st.port {
					t.Errorf("service %s: %s=%q, want host %s and port %s", p.service, st.urlVar, raw, st.service, st.port)
				}
			})
		}
	}
}

func TestComposeZimmerProcessesWaitForHealthyStores(t *testing.T) {
	c := loadCompose(t)
	for _, p := range zimmerProcesses {
		for _, st := range stores {
			t.Run(p.service+"/"+st.service, func(t *testing.T) {
				cond, ok := c.service(t, p.service).DependsOn[st.service]
				if !ok || cond != "service_healthy" {
					t.Errorf("service %s: depends_on %s is %q, want condition service_healthy", p.service, st.service, cond)
				}
				if c.service(t, st.service).Healthcheck == nil {
					t.Errorf("service %s has no healthcheck, so service_healthy never holds", st.service)
				}
			})
		}
	}
}

func TestComposeRunsServeAndWorkerCommands(t *testing.T) {
	c := loadCompose(t)
	final := parseDockerfile(t).finalStage()
	for _, p := range zimmerProcesses {
		t.Run(p.service, func(t *testing.T) {
			cmd := c.service(t, p.service).Command
			if len(cmd) == 0 {
				cmd = final.cmd
			}
			if !slices.Equal(cmd, []string{p.command}) {
				t.Errorf("service %s runs %q, want [%s]", p.service, cmd, p.command)
			}
		})
	}
}

func TestComposeHealthchecksProbeUpOnTheListenPort(t *testing.T) {
	c := loadCompose(t)
	for _, p := range zimmerProcesses {
		t.Run(p.service, func(t *testing.T) {
			hc := c.service(t, p.service).Healthcheck
			if hc == nil {
				t.Fatalf("service %s has no healthcheck", p.service)
			}
			_, port := listenAddr(t, c, p.service, p.addrVar)
			if probe := strings.Join(hc.Test, " "); !strings.Contains(probe, ":"+port+"/up") {
				t.Errorf("service %s: healthcheck %q does not probe /up on port %s", p.service, probe, port)
			}
		})
	}
}

func TestComposeBindMountsExist(t *testing.T) {
	c := loadCompose(t)
	for name, s := range c.Services {
		for _, m := range s.Volumes {
			if !m.isBind() {
				continue
			}
			if _, err := os.Stat(filepath.Join(repoRoot(t), filepath.FromSlash(m.Source))); err != nil {
				t.Errorf("service %s mounts %s, which does not exist: %v", name, m.Source, err)
			}
		}
	}
}

func TestPrometheusScrapesEachProcessOnItsListenPort(t *testing.T) {
	c := loadCompose(t)
	prom := loadPrometheus(t)
	for _, p := range zimmerProcesses {
		t.Run(p.service, func(t *testing.T) {
			_, port := listenAddr(t, c, p.service, p.addrVar)
			want := net.JoinHostPort(p.service, port)
			job, ok := prom.jobFor(want)
			if !ok {
				t.Fatalf("%s scrapes no target %s; targets: %v", prometheusFile, want, prom.targets())
			}
			if job.MetricsPath != "" && job.MetricsPath != "/metrics" {
				t.Errorf("job %s scrapes %s, want /metrics", job.JobName, job.MetricsPath)
			}
		})
	}
}

func TestComposeMountsThePrometheusConfigItReads(t *testing.T) {
	s := loadCompose(t).service(t, "prometheus")
	configPath := "/etc/prometheus/prometheus.yml" // the image's default --config.file
	for _, arg := range s.Command {
		if v, ok := strings.CutPrefix(arg, "--config.file="); ok {
			configPath = v
		}
	}
	if target, ok := mountTarget(s, prometheusFile); !ok || target != configPath {
		t.Errorf("prometheus reads %s but mounts %s at %q (mounted: %v)", configPath, prometheusFile, target, ok)
	}
}

func TestGrafanaDatasourcePointsAtThePrometheusService(t *testing.T) {
	c := loadCompose(t)
	var f struct {
		Datasources []grafanaDatasource `yaml:"datasources"`
	}
	readYAML(t, datasourceFile, &f)
	i := slices.IndexFunc(f.Datasources, func(d grafanaDatasource) bool { return d.UID == "prometheus" })
	if i < 0 {
		t.Fatalf("%s has no datasource with uid prometheus", datasourceFile)
	}
	ds := f.Datasources[i]
	u, err := url.Parse(ds.URL)
	if err != nil {
		t.Fatalf("datasource url %q: %v", ds.URL, err)
	}
	if _, ok := c.Services[u.Hostname()]; u.Hostname() != "prometheus" || !ok {
		t.Errorf("datasource url %q does not name the prometheus service", ds.URL)
	}
	if u.Port() != "9090" {
		t.Errorf("datasource url %q: want Prometheus's port 9090", ds.URL)
	}
	if ds.Type != "prometheus" {
		t.Errorf("datasource type %q, want prometheus", ds.Type)
	}
}

func TestGrafanaProvisionsTheZimmerDashboard(t *testing.T) {
	s := loadCompose(t).service(t, "grafana")
	if target, ok := mountTarget(s, provisioningDir); !ok || target != grafanaProvTarget {
		t.Errorf("grafana mounts %s at %q, want %s", provisioningDir, target, grafanaProvTarget)
	}
	dashDir, ok := mountTarget(s, dashboardsDir)
	if !ok {
		t.Fatalf("grafana does not mount %s", dashboardsDir)
	}
	var f struct {
		Providers []dashboardProvider `yaml:"providers"`
	}
	readYAML(t, dashboardsFile, &f)
	if !slices.ContainsFunc(f.Providers, func(p dashboardProvider) bool {
		return p.Type == "file" && path.Clean(p.Options.Path) == path.Clean(dashDir)
	}) {
		t.Errorf("%s has no file provider loading %s (where %s is mounted)", dashboardsFile, dashDir, dashboardsDir)
	}
	if home := s.Environment["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]; home != "" {
		if path.Clean(home) != path.Join(dashDir, path.Base(dashboardFile)) {
			t.Errorf("home dashboard %q is not %s as mounted at %s", home, dashboardFile, dashDir)
		}
	}
}

func TestDashboardPanelsQueryTheProvisionedDatasource(t *testing.T) {
	for _, p := range loadDashboard(t) {
		for _, tg := range p.Targets {
			uid := cmp.Or(tg.Datasource.UID, p.Datasource.UID)
			if uid != "prometheus" {
				t.Errorf("panel %q target %s uses datasource uid %q, want prometheus", p.Title, tg.RefID, uid)
			}
		}
	}
}

func TestDashboardQueriesOnlyRegisteredMetrics(t *testing.T) {
	registered := registeredMetrics(t)
	for _, p := range loadDashboard(t) {
		t.Run(p.Title, func(t *testing.T) {
			var found int
			for _, tg := range p.Targets {
				for _, name := range metricNameRE.FindAllString(tg.Expr, -1) {
					found++
					if !registered.has(name) {
						t.Errorf("query %q uses %s, which metrics.New() does not register", tg.Expr, name)
					}
				}
			}
			if found == 0 {
				t.Errorf("panel queries no zimmer_, go_ or process_ metric")
			}
		})
	}
}

// The alert rules are valid to Prometheus itself (promtool, from Debian's prometheus package,
// which make test installs), the compose Prometheus loads them, and they name only metrics
// Zimmer registers.
func TestAlertRulesPassPromtoolAndAreLoaded(t *testing.T) {
	root := filepath.Join("..")
	for _, args := range [][]string{{"check", "rules", alertsFile}, {"check", "config", prometheusFile}} {
		cmd := exec.Command("promtool", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("promtool %v: %v\n%s", args, err, out)
		}
	}
	var p struct {
		RuleFiles []string `yaml:"rule_files"`
	}
	readYAML(t, prometheusFile, &p)
	if !slices.Contains(p.RuleFiles, path.Base(alertsFile)) {
		t.Fatalf("%s loads rule files %v, not %s", prometheusFile, p.RuleFiles, path.Base(alertsFile))
	}
	s := loadCompose(t).service(t, "prometheus")
	if target, ok := mountTarget(s, alertsFile); !ok || target != "/etc/prometheus/"+path.Base(alertsFile) {
		t.Fatalf("compose mounts %s at %q (%v), beside the config that names it", alertsFile, target, ok)
	}
}

func TestAlertRulesNameOnlyRegisteredMetrics(t *testing.T) {
	registered := registeredMetrics(t)
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	readYAML(t, alertsFile, &rules)
	n := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			n++
			for _, name := range metricNameRE.FindAllString(r.Expr, -1) {
				if !registered.has(name) {
					t.Errorf("alert %s uses %s, which Zimmer does not register", r.Alert, name)
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s holds no rules", alertsFile)
	}
}

func TestDashboardJobSelectorsMatchScrapeJobs(t *testing.T) {
	jobs := loadPrometheus(t).ScrapeConfigs
	for _, p := range loadDashboard(t) {
		for _, tg := range p.Targets {
			for _, m := range jobSelectorRE.FindAllStringSubmatch(tg.Expr, -1) {
				pattern := m[2]
				if m[1] == "=" {
					pattern = regexp.QuoteMeta(pattern)
				}
				re, err := regexp.Compile("^(?:" + pattern + ")$")
				if err != nil {
					t.Fatalf("panel %q: job selector %q: %v", p.Title, m[0], err)
				}
				if !slices.ContainsFunc(jobs, func(j scrapeConfig) bool { return re.MatchString(j.JobName) }) {
					t.Errorf("panel %q: %s matches no job in %s", p.Title, m[0], prometheusFile)
				}
			}
		}
	}
}

func TestDockerfileIsMultiStageAndBuildsTheZimmerCommand(t *testing.T) {
	d := parseDockerfile(t)
	if len(d.stages) < 2 {
		t.Fatalf("%s has %d FROM lines, want a build stage and a runtime stage", dockerfile, len(d.stages))
	}
	if !slices.ContainsFunc(d.stages[:len(d.stages)-1], func(s stage) bool {
		return slices.ContainsFunc(s.run, func(r string) bool {
			return strings.Contains(r, "go build") && strings.Contains(r, "./cmd/zimmer")
		})
	}) {
		t.Errorf("no build stage of %s runs go build ./cmd/zimmer", dockerfile)
	}
	final := d.finalStage()
	if !final.copiesFromStage {
		t.Errorf("the runtime stage copies nothing from a build stage")
	}
	if len(final.entrypoint) == 0 || path.Base(final.entrypoint[0]) != "zimmer" {
		t.Errorf("ENTRYPOINT %q, want [\"zimmer\"]", final.entrypoint)
	}
	if final.user == "" || final.user == "root" || final.user == "0" || strings.HasPrefix(final.user, "root:") || strings.HasPrefix(final.user, "0:") {
		t.Errorf("the runtime stage runs as %q, want a non-root USER", cmp.Or(final.user, "root"))
	}
}

func TestDockerfileExposesTheListenPorts(t *testing.T) {
	c := loadCompose(t)
	final := parseDockerfile(t).finalStage()
	for _, p := range zimmerProcesses {
		_, port := listenAddr(t, c, p.service, p.addrVar)
		if !slices.Contains(final.expose, port) {
			t.Errorf("%s does not EXPOSE %s, the port of %s in service %s (EXPOSE %v)", dockerfile, port, p.addrVar, p.service, final.expose)
		}
	}
}

// ---- compose -----------------------------------------------------------------------------------

type compose struct {
	Services map[string]service `yaml:"services"`
}

type service struct {
	Image       string        `yaml:"image"`
	Build       any           `yaml:"build"`
	Command     stringList    `yaml:"command"`
	Environment environment   `yaml:"environment"`
	Ports       []portMapping `yaml:"ports"`
	Expose      []string      `yaml:"expose"`
	DependsOn   dependsOn     `yaml:"depends_on"`
	Healthcheck *healthcheck  `yaml:"healthcheck"`
	Volumes     []mount       `yaml:"volumes"`
}

type healthcheck struct {
	Test stringList `yaml:"test"`
}

func (c compose) service(t *testing.T, name string) service {
	t.Helper()
	s, ok := c.Services[name]
	if !ok {
		t.Fatalf("%s has no service %q", composeFile, name)
	}
	return s
}

// stringList is a compose command or healthcheck test: a list, or a string split on spaces.
type stringList []string

func (l *stringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = strings.Fields(n.Value)
		return nil
	}
	var s []string
	err := n.Decode(&s)
	*l = s
	return err
}

// environment is a compose environment: a mapping (merges included) or a list of NAME=value.
type environment map[string]string

func (e *environment) UnmarshalYAML(n *yaml.Node) error {
	m := map[string]string{}
	if n.Kind == yaml.SequenceNode {
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		for _, kv := range list {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
	} else if err := n.Decode(&m); err != nil {
		return err
	}
	*e = m
	return nil
}

// dependsOn maps each dependency to its condition; the list form means service_started.
type dependsOn map[string]string

func (d *dependsOn) UnmarshalYAML(n *yaml.Node) error {
	out := map[string]string{}
	if n.Kind == yaml.SequenceNode {
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		for _, s := range list {
			out[s] = "service_started"
		}
	} else {
		var m map[string]struct {
			Condition string `yaml:"condition"`
		}
		if err := n.Decode(&m); err != nil {
			return err
		}
		for s, v := range m {
			out[s] = cmp.Or(v.Condition, "service_started")
		}
	}
	*d = out
	return nil
}

// portMapping is one entry of a service's ports: the container port and, as compose resolves it
// with nothing set, the host address it is published on ("" is every interface).
type portMapping struct{ Raw, HostIP, Container string }

func (p *portMapping) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode { // [[ip:]host:]container[/proto]
		p.Raw = n.Value
		spec, _, _ := strings.Cut(resolve(n.Value), "/")
		parts := strings.Split(spec, ":")
		p.Container = parts[len(parts)-1]
		if len(parts) == 3 {
			p.HostIP = parts[0]
		}
		return nil
	}
	var long struct {
		Target string `yaml:"target"`
		HostIP string `yaml:"host_ip"`
	}
	err := n.Decode(&long)
	p.Raw, p.Container, p.HostIP = fmt.Sprint(long), long.Target, resolve(long.HostIP)
	return err
}

// mount is one entry of a service's volumes.
type mount struct{ Source, Target string }

func (m *mount) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode { // source:target[:mode]
		parts := strings.Split(n.Value, ":")
		if len(parts) == 1 {
			m.Target = parts[0]
			return nil
		}
		m.Source, m.Target = parts[0], parts[1]
		return nil
	}
	var long struct {
		Source string `yaml:"source"`
		Target string `yaml:"target"`
	}
	err := n.Decode(&long)
	m.Source, m.Target = long.Source, long.Target
	return err
}

// isBind reports whether the mount is a path in the repository rather than a named volume.
func (m mount) isBind() bool {
	return strings.HasPrefix(m.Source, ".") || strings.HasPrefix(m.Source, "/")
}

// mountTarget is where service s mounts the repository path rel.
func mountTarget(s service, rel string) (string, bool) {
	for _, m := range s.Volumes {
		if m.isBind() && path.Clean(m.Source) == path.Clean(rel) {
			return m.Target, true
		}
	}
	return "", false
}

func loadCompose(t *testing.T) compose {
	t.Helper()
	var c compose
	readYAML(t, composeFile, &c)
	return c
}

// listenAddr splits the listen address a zimmer service is given in addrVar.
func listenAddr(t *testing.T, c compose, svc, addrVar string) (host, port string) {
	t.Helper()
	raw, ok := c.service(t, svc).Environment[addrVar]
	if !ok {
		t.Fatalf("service %s does not set %s", svc, addrVar)
	}
	host, port, err := net.SplitHostPort(resolve(raw))
	if err != nil {
		t.Fatalf("service %s: %s=%q is not host:port: %v", svc, addrVar, raw, err)
	}
	return host, port
}

var interpolationRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}`)

// requiredValue stands for a variable compose requires (${NAME:?message}): any value will do.
const requiredValue = "required-value"

// resolve interpolates a compose value as compose would with nothing set: ${NAME:-default} is
// the default and ${NAME:?message}, which would refuse to start, is requiredValue.
func resolve(v string) string {
	return interpolationRE.ReplaceAllStringFunc(v, func(ref string) string {
		m := interpolationRE.FindStringSubmatch(ref)
		switch strings.TrimPrefix(m[2], ":") {
		case "-":
			return m[3]
		case "?":
			return requiredValue
		}
		return ""
	})
}

// ---- Prometheus and Grafana -------------------------------------------------------------------

type prometheusConfig struct {
	ScrapeConfigs []scrapeConfig `yaml:"scrape_configs"`
}

type scrapeConfig struct {
	JobName       string `yaml:"job_name"`
	MetricsPath   string `yaml:"metrics_path"`
	StaticConfigs []struct {
		Targets []string `yaml:"targets"`
	} `yaml:"static_configs"`
}

func (p prometheusConfig) jobFor(target string) (scrapeConfig, bool) {
	for _, j := range p.ScrapeConfigs {
		for _, sc := range j.StaticConfigs {
			if slices.Contains(sc.Targets, target) {
				return j, true
			}
		}
	}
	return scrapeConfig{}, false
}

func (p prometheusConfig) targets() []string {
	var out []string
	for _, j := range p.ScrapeConfigs {
		for _, sc := range j.StaticConfigs {
			out = append(out, sc.Targets...)
		}
	}
	return out
}

func loadPrometheus(t *testing.T) prometheusConfig {
	t.Helper()
	var p prometheusConfig
	readYAML(t, prometheusFile, &p)
	return p
}

type grafanaDatasource struct {
	Type string `yaml:"type"`
	URL  string `yaml:"url"`
	UID  string `yaml:"uid"`
}

type dashboardProvider struct {
	Type    string `yaml:"type"`
	Options struct {
		Path string `yaml:"path"`
	} `yaml:"options"`
}

type datasourceRef struct {
	UID string `json:"uid"`
}

type panel struct {
	Title      string        `json:"title"`
	Type       string        `json:"type"`
	Datasource datasourceRef `json:"datasource"`
	Targets    []struct {
		RefID      string        `json:"refId"`
		Expr       string        `json:"expr"`
		Datasource datasourceRef `json:"datasource"`
	} `json:"targets"`
	Panels []panel `json:"panels"` // a row's collapsed panels
}

// loadDashboard returns every non-row panel of the dashboard, rows flattened.
func loadDashboard(t *testing.T) []panel {
	t.Helper()
	var d struct {
		Panels []panel `json:"panels"`
	}
	if err := json.Unmarshal(readFile(t, dashboardFile), &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	var out []panel
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			if p.Type == "row" {
				walk(p.Panels)
				continue
			}
			out = append(out, p)
		}
	}
	walk(d.Panels)
	if len(out) == 0 {
		t.Fatalf("%s has no panels", dashboardFile)
	}
	return out
}

var (
	metricNameRE  = regexp.MustCompile(`\b(?:zimmer|go|process)_[a-zA-Z0-9_]+`)
	jobSelectorRE = regexp.MustCompile(`\bjob\s*(=~|=)\s*"([^"]*)"`)
)

// metricSet holds registered metric names; aggregates have _bucket, _count and _sum series.
type metricSet struct{ plain, aggregate map[string]bool }

func (s metricSet) has(name string) bool {
	if s.plain[name] || s.aggregate[name] {
		return true
	}
	for _, suffix := range []string{"_bucket", "_count", "_sum"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && s.aggregate[base] {
			return true
		}
	}
	return false
}

// registeredMetrics is what Zimmer exports: the Go and process collectors (via Gather) and
// metrics.Catalogue, which TestEveryCataloguedSeriesIsScrapedAfterRealTraffic holds to what a
// real serve and worker export.
func registeredMetrics(t *testing.T) metricSet {
	t.Helper()
	s := metricSet{plain: map[string]bool{}, aggregate: map[string]bool{}}
	families, err := metrics.New().Registry.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "zimmer_") {
			s.plain[f.GetName()] = true
		}
	}
	for _, series := range metrics.Catalogue {
		if series.Type == "histogram" {
			s.aggregate[series.Name] = true
		} else {
			s.plain[series.Name] = true
		}
	}
	return s
}

// ---- Dockerfile --------------------------------------------------------------------------------

type dockerfileStages struct{ stages []stage }

type stage struct {
	run             []string
	cmd, entrypoint []string
	expose          []string
	user            string
	copiesFromStage bool
}

func (d dockerfileStages) finalStage() stage {
	if len(d.stages) == 0 {
		return stage{}
	}
	return d.stages[len(d.stages)-1]
}

// parseDockerfile reads the instructions this test needs, stage by stage.
func parseDockerfile(t *testing.T) dockerfileStages {
	t.Helper()
	var d dockerfileStages
	for _, line := range dockerInstructions(t) {
		instr, args, _ := strings.Cut(line, " ")
		args = strings.TrimSpace(args)
		instr = strings.ToUpper(instr)
		if instr == "FROM" {
			d.stages = append(d.stages, stage{})
			continue
		}
		if len(d.stages) == 0 {
			continue
		}
		s := &d.stages[len(d.stages)-1]
		switch instr {
		case "RUN":
			s.run = append(s.run, args)
		case "CMD":
			s.cmd = execForm(t, args)
		case "ENTRYPOINT":
			s.entrypoint = execForm(t, args)
		case "EXPOSE":
			for _, p := range strings.Fields(args) {
				p, _, _ = strings.Cut(p, "/")
				s.expose = append(s.expose, p)
			}
		case "USER":
			s.user = args
		case "COPY":
			s.copiesFromStage = s.copiesFromStage || strings.Contains(args, "--from=")
		}
	}
	return d
}

// dockerInstructions returns the Dockerfile's instructions, continuation lines joined.
func dockerInstructions(t *testing.T) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(readFile(t, dockerfile))))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(cont + " ")
			continue
		}
		cur.WriteString(line)
		out = append(out, cur.String())
		cur.Reset()
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// execForm parses a JSON-array CMD or ENTRYPOINT; the shell form is split on spaces.
func execForm(t *testing.T, args string) []string {
	t.Helper()
	if !strings.HasPrefix(args, "[") {
		return strings.Fields(args)
	}
	var out []string
	if err := json.Unmarshal([]byte(args), &out); err != nil {
		t.Fatalf("%s: %q is not a JSON array: %v", dockerfile, args, err)
	}
	return out
}

// ---- files -------------------------------------------------------------------------------------

// repoRoot is the nearest directory above the test's working directory holding go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

func readFile(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readYAML(t *testing.T, rel string, v any) {
	t.Helper()
	if err := yaml.Unmarshal(readFile(t, rel), v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

// ---- small helpers -----------------------------------------------------------------------------

func eq(want string) func(string) bool { return func(s string) bool { return s == want } }

func hasPrefix(p string) func(string) bool {
	return func(s string) bool { return strings.HasPrefix(s, p) }
}

func anyImage(string) bool { return true }
