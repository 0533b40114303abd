package graphtest

import (
	"context"
	"crypto/rand"
	"flag"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// lockDB is the test Redis database that holds the cross-package locks; no package's queue
// uses it, so nothing flushes it.
const lockDB = 2

// Exclusive gives the calling test sole use of one deployment-wide record (the work backlog is
// one queue for the whole test database) until it ends, across every test binary running at
// once: packages run in parallel, so a process-local mutex is not enough. A lock left by a
// killed test expires after holdFor.
func Exclusive(t testing.TB, name string) {
	t.Helper()
	// A fuzz worker process runs inside its coordinator's fuzz test, which already holds the
	// lock on the worker's behalf; waiting for it would only stall until the lock lapsed.
	if w := flag.Lookup("test.fuzzworker"); w != nil && w.Value.String() == "true" {
		return
	}
	const holdFor, waitFor = 2 * time.Minute, 3 * time.Minute
	opt, err := redis.ParseURL(RedisURL(lockDB))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	key, token := "zimmer-test-lock:"+name, rand.Text()
	ctx := context.Background()
	for deadline := time.Now().Add(waitFor); ; {
		ok, err := c.SetNX(ctx, key, token, holdFor).Result()
		if err != nil {
			c.Close()
			t.Fatalf("take the test lock %q: %v", name, err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			c.Close()
			t.Fatalf("the test lock %q was held by another test for over %s", name, waitFor)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() {
		defer c.Close()
		if v, _ := c.Get(ctx, key).Result(); v == token {
			c.Del(ctx, key)
		}
	})
}
