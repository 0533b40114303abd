package roster

import "testing"

func TestAdminResolution(t *testing.T) {
	users := []User{{Key: "tadasant"}, {Key: "juliehazz", SlackUserIDs: []string{"U1"}}}
	tests := []struct {
		name, key string
		users     []User
		want      string
		ok        bool
	}{
		{"the configured key names a row", "juliehazz", users, "juliehazz", true},
		{"blank falls back to tadasant", "  ", users, "tadasant", true},
		{"the key is trimmed", " tadasant\n", users, "tadasant", true},
		{"a key naming no row resolves to nobody", "tadasnat", users, "", false},
		{"an empty roster resolves to nobody", "tadasant", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, ok := Admin(tt.users, tt.key)
			if ok != tt.ok || u.Key != tt.want {
				t.Fatalf("got %q %v, want %q %v", u.Key, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestAnySlackMapping(t *testing.T) {
	if AnySlackMapping([]User{{Key: "a"}, {Key: "b", SlackUserIDs: []string{}}}) {
		t.Fatal("no row maps a Slack id")
	}
	if !AnySlackMapping([]User{{Key: "a"}, {Key: "b", SlackUserIDs: []string{"U1"}}}) {
		t.Fatal("one mapped row configures Slack")
	}
}
