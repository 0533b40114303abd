package tasks_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
)

// The test Redis runs with a password, like every Redis `make up`, `make test` and compose start.
func TestRedisRefusesAClientWithoutThePassword(t *testing.T) {
	withPassword := graphtest.RedisURL(redisDB)
	u, err := url.Parse(withPassword)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := u.User.Password(); !ok {
		t.Fatalf("ZIMMER_TEST_REDIS_URL carries no password: run the tests with `make test` (or load .zimmer/test/test.env)")
	}
	u.User = nil
	for _, tc := range []struct {
		name, url string
		answers   bool
	}{
		{"without the password", u.String(), false},
		{"with the password", withPassword, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := tasks.OpenQueue(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			err = q.Ping(context.Background())
			if tc.answers && err != nil {
				t.Fatalf("ping with the password: %v", err)
			}
			if !tc.answers && (err == nil || !strings.Contains(err.Error(), "NOAUTH")) {
				t.Fatalf("want Redis to refuse a client without the password (NOAUTH), got %v", err)
			}
		})
	}
}

func TestOpenQueueNeverEchoesThePassword(t *testing.T) {
	const secret = "s3cret-redis-pw"
	for _, raw := range []string{
		"redis://:" + secret + "@ho st:6379/0",       // unparsable host
		"redis://:" + secret + "@127.0.0.1:6379/x",   // database is not a number
		"redis+x://:" + secret + "@127.0.0.1:6379/0", // unsupported scheme
	} {
		_, err := tasks.OpenQueue(raw)
		if err == nil {
			t.Fatalf("OpenQueue(%q) accepted a malformed URL", strings.ReplaceAll(raw, secret, "…"))
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error echoes the password: %v", err)
		}
	}
}
