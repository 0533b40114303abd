package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestLoadDefaults(t *testing.T) {
	c, err := Load(envOf(map[string]string{"API_KEYS": " key-aaaaaaaaaaaaaaaa , key-bbbbbbbbbbbbbbbb ,"}), true)
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string][2]string{
		"http addr":  {c.HTTPAddr, "127.0.0.1:8080"},
		"neo4j":      {c.Neo4jURI, "bolt://127.0.0.1:7687"},
		"redis":      {c.RedisURL, "redis://127.0.0.1:6379/0"},
		"data dir":   {c.DataDir, "./.zimmer"},
		"public url": {c.PublicURL, "http://127.0.0.1:8080"},
		"admin":      {c.AdminUser, "tadasant"},
		"claude":     {c.ClaudeBin, "claude"},
		"keys":       {strings.Join(c.APIKeys, "|"), "key-aaaaaaaaaaaaaaaa|key-bbbbbbbbbbbbbbbb"},
	}
	for name, v := range checks {
		if v[0] != v[1] {
			t.Errorf("%s: got %q, want %q", name, v[0], v[1])
		}
	}
}

func TestLoadNamesTheBadVariable(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"missing API keys", map[string]string{}, "API_KEYS is empty"},
		{"short API key", map[string]string{"API_KEYS": "short"}, "API_KEYS holds a key of 5 characters"},
		{"bad HTTP address", map[string]string{"ZIMMER_HTTP_ADDR": "8080"}, `ZIMMER_HTTP_ADDR="8080" is not host:port`},
		{"Slack workspace over http", map[string]string{"ZIMMER_SLACK_WORKSPACE_URL": "http://acme.slack.com"}, `ZIMMER_SLACK_WORKSPACE_URL="http://acme.slack.com" is not a workspace address`},
		{"Slack workspace with a path", map[string]string{"ZIMMER_SLACK_WORKSPACE_URL": "https://acme.slack.com/archives"}, `ZIMMER_SLACK_WORKSPACE_URL="https://acme.slack.com/archives" is not`},
		{"Neo4j URI with a wrong scheme", map[string]string{"NEO4J_URI": "http://x:7474"}, `NEO4J_URI="http://x:7474" must use one of the schemes`},
		{"Redis URL without a host", map[string]string{"REDIS_URL": "redis://"}, `REDIS_URL="redis://" is not a URL with a host`},
		{"user without password", map[string]string{"NEO4J_USER": "neo4j"}, "NEO4J_USER and NEO4J_PASSWORD must be set together"},
		{"unknown log level", map[string]string{"ZIMMER_LOG_LEVEL": "loud"}, `ZIMMER_LOG_LEVEL="loud" must be one of`},
		{"public URL not http", map[string]string{"ZIMMER_PUBLIC_URL": "ftp://x"}, "ZIMMER_PUBLIC_URL"},
		{"web user without password", map[string]string{"ZIMMER_WEB_USER": "tadas"}, "ZIMMER_WEB_USER and ZIMMER_WEB_PASSWORD must be set together"},
		{"web password without user", map[string]string{"ZIMMER_WEB_PASSWORD": "pw"}, "ZIMMER_WEB_USER and ZIMMER_WEB_PASSWORD must be set together"},
		{"web user with a colon", map[string]string{"ZIMMER_WEB_USER": "a:b", "ZIMMER_WEB_PASSWORD": "pw"}, "must not contain a colon"},
		{"Slack mapped-only not a switch", map[string]string{"ZIMMER_SLACK_MAPPED_ONLY": "yes"}, `ZIMMER_SLACK_MAPPED_ONLY="yes" must be 1 or 0`},
		{"workspace budget not a number", map[string]string{"ZIMMER_WORKSPACE_BUDGET_GB": "lots"}, `ZIMMER_WORKSPACE_BUDGET_GB="lots" must be a number of gigabytes`},
		{"workspace budget negative", map[string]string{"ZIMMER_WORKSPACE_BUDGET_GB": "-1"}, `ZIMMER_WORKSPACE_BUDGET_GB="-1" must be a number of gigabytes`},
		{"spot utilization over 100", map[string]string{"ZIMMER_SPOT_UTILIZATION": "claude_code=120/10"}, `ZIMMER_SPOT_UTILIZATION="claude_code=120/10" must be runtime=5-hour/weekly pairs`},
		{"spot budgets without a weekly", map[string]string{"ZIMMER_SPOT_TOKEN_BUDGETS": "claude_code=100"}, `ZIMMER_SPOT_TOKEN_BUDGETS="claude_code=100" must be`},
		{"both spot quota sources", map[string]string{"ZIMMER_SPOT_UTILIZATION": "codex=1/2", "ZIMMER_SPOT_TOKEN_BUDGETS": "codex=1/2"}, "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(envOf(tt.env), true)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want an ErrInvalid naming %q, got %v", tt.want, err)
			}
		})
	}
}

func TestKeysAreOptionalForCommandsWithoutAnAPI(t *testing.T) {
	if _, err := Load(envOf(nil), false); err != nil {
		t.Fatalf("migrate and worker need no API key: %v", err)
	}
}

func TestWebUIAndSlackAreOffUntilConfigured(t *testing.T) {
	off, err := Load(envOf(nil), false)
	if err != nil {
		t.Fatal(err)
	}
	if off.WebEnabled() || off.SlackSigningSecret != "" || off.SlackMappedOnly {
		t.Fatalf("web UI and Slack must be off by default: %+v", off)
	}
	on, err := Load(envOf(map[string]string{"ZIMMER_WEB_USER": "tadas", "ZIMMER_WEB_PASSWORD": " pass word ",
		"SLACK_SIGNING_SECRET": " secret\n", "ZIMMER_SLACK_MAPPED_ONLY": "1"}), false)
	if err != nil {
		t.Fatal(err)
	}
	if !on.WebEnabled() || on.WebPassword != " pass word " || on.SlackSigningSecret != "secret" || !on.SlackMappedOnly {
		t.Fatalf("web credentials are verbatim, the signing secret trimmed: %+v", on)
	}
}

func TestThePushWebhookIsOffUntilConfigured(t *testing.T) {
	off, err := Load(envOf(nil), false)
	if err != nil || off.PushWebhookURL != "" {
		t.Fatalf("no webhook by default: %q %v", off.PushWebhookURL, err)
	}
	on, err := Load(envOf(map[string]string{"ZIMMER_PUSH_WEBHOOK_URL": " https://ntfy.example/zimmer-topic \n"}), false)
	if err != nil || on.PushWebhookURL != "https://ntfy.example/zimmer-topic" {
		t.Fatalf("the webhook is read trimmed: %q %v", on.PushWebhookURL, err)
	}
}

func TestConfigErrorsNeverEchoAPassword(t *testing.T) {
	const secret = "s3cret-pw"
	for _, tc := range []struct{ name, variable, value string }{
		{"Redis URL without a host", "REDIS_URL", "redis://:" + secret + "@"},
		{"Redis URL that does not parse", "REDIS_URL", "redis://:" + secret + "@ho st:6379/0"},
		{"Redis URL without a scheme", "REDIS_URL", ":" + secret + "@127.0.0.1:6379/0"},
		{"Redis URL with a wrong scheme", "REDIS_URL", "http://:" + secret + "@127.0.0.1:6379/0"},
		{"Neo4j URI with credentials and a wrong scheme", "NEO4J_URI", "http://neo4j:" + secret + "@127.0.0.1:7474"},
		{"push webhook with a token and a wrong scheme", "ZIMMER_PUSH_WEBHOOK_URL", "ftp://hooks.example/services/" + secret},
		{"push webhook with a token and no host", "ZIMMER_PUSH_WEBHOOK_URL", "https:///services/" + secret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(envOf(map[string]string{tc.variable: tc.value}), false)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.variable) {
				t.Fatalf("want an ErrInvalid naming %s, got %v", tc.variable, err)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error echoes the password: %v", err)
			}
		})
	}
}

func TestRedactURLMasksOnlyThePassword(t *testing.T) {
	for in, want := range map[string]string{
		"redis://:pw@127.0.0.1:6379/0":     "redis://:xxxxx@127.0.0.1:6379/0",
		"bolt://neo4j:pw@neo4j:7687":       "bolt://neo4j:xxxxx@neo4j:7687",
		"redis://127.0.0.1:6379/0":         "redis://127.0.0.1:6379/0",
		"redis://:p@w@ho st:6379":          "redis://xxxxx@ho st:6379",
		":pw@127.0.0.1:6379":               "xxxxx@127.0.0.1:6379",
		"not a url at all, with no secret": "not a url at all, with no secret",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSecretsFileMustBeReadableByItsOwnerAlone(t *testing.T) {
	dir := t.TempDir()
	private, shared := filepath.Join(dir, "private"), filepath.Join(dir, "shared")
	for path, mode := range map[string]os.FileMode{private: 0o600, shared: 0o644} {
		if err := os.WriteFile(path, []byte("TOKEN=x\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ path, want string }{
		{private, ""},
		{shared, `ZIMMER_SECRETS_FILE="` + shared + `" has mode 0644; it must be 0600`},
		{filepath.Join(dir, "absent"), "is not a readable file"},
		{dir, "is not a readable file"},
	}
	for _, tt := range tests {
		c, err := Load(envOf(map[string]string{"ZIMMER_SECRETS_FILE": tt.path}), false)
		switch {
		case tt.want == "" && (err != nil || c.SecretsFile != tt.path):
			t.Errorf("%s: accepted: %v", tt.path, err)
		case tt.want != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: want %q, got %v", tt.path, tt.want, err)
		}
	}
}

func TestTheWorkspaceBudgetIsReadInGigabytesAndUnsetMeansNone(t *testing.T) {
	for raw, want := range map[string]int64{"": 0, "0": 0, "1.5": 3 << 29, " 50 ": 50 << 30} {
		c, err := Load(envOf(map[string]string{"ZIMMER_WORKSPACE_BUDGET_GB": raw}), false)
		if err != nil || c.WorkspaceBudget != want {
			t.Errorf("%q: budget %d, %v; want %d", raw, c.WorkspaceBudget, err, want)
		}
	}
}

func TestTheSpotQuotaSourcesParse(t *testing.T) {
	c, err := Load(envOf(map[string]string{"API_KEYS": strings.Repeat("k", 32), "ZIMMER_SPOT_UTILIZATION": "claude_code=35/60, codex=0/12.5"}), true)
	if err != nil || c.SpotUtilization["claude_code"] != [2]float64{35, 60} || c.SpotUtilization["codex"] != [2]float64{0, 12.5} || c.SpotTokenBudgets != nil {
		t.Fatalf("%+v %v", c.SpotUtilization, err)
	}
	c, err = Load(envOf(map[string]string{"API_KEYS": strings.Repeat("k", 32), "ZIMMER_SPOT_TOKEN_BUDGETS": "claude_code=40000000/400000000"}), true)
	if err != nil || c.SpotTokenBudgets["claude_code"] != [2]int64{40_000_000, 400_000_000} || c.SpotUtilization != nil {
		t.Fatalf("%+v %v", c.SpotTokenBudgets, err)
	}
}
