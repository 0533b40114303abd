package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
)

func TestDeepHealthIs503NamingRedisWhenRedisStops(t *testing.T) {
	t.Parallel()
	const password = "deep-health-redis-pw"
	redis := graphtest.StartRedis(t, password)
	e := setupWithRedis(t, redis.URL)
	if r := e.do(t, "GET", "/up/deep", nil); r.status != http.StatusOK || r.body["status"] != "ok" {
		t.Fatalf("with Redis up: %d %s", r.status, r.raw)
	}
	redis.Stop()
	r := e.do(t, "GET", "/up/deep", nil)
	if r.status != http.StatusServiceUnavailable || fmt.Sprint(r.body["failed"]) != "[redis]" {
		t.Fatalf("with Redis stopped: want 503 failed=[redis], got %d %s", r.status, r.raw)
	}
	if checks := r.body["checks"].(map[string]any); checks["neo4j"] != "ok" {
		t.Fatalf("neo4j still answers: %v", checks)
	}
	if strings.Contains(r.raw, password) {
		t.Fatalf("/up/deep echoes the Redis password: %s", r.raw)
	}
	if r := e.do(t, "GET", "/up", nil); r.status != http.StatusOK {
		t.Fatalf("liveness does not depend on Redis: %d", r.status)
	}
}
