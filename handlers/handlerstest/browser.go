package handlerstest

import (
	"context"
	"encoding/base64"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The web UI's browser tests drive a real headless Chromium (Debian's; `make test` installs it
// when missing) through the real server on the real Neo4j and Redis.

// ChromiumPath is where the tests expect Chromium.
const ChromiumPath = "/usr/bin/chromium"

// Browser starts a headless Chromium that sends the web UI's Basic credential on every
// request, as a browser that has logged in to the realm does. It is closed when the test ends.
func Browser(t testing.TB, user, password string) context.Context {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		t.Fatalf("%s is missing: run the tests with `make test`, which installs Debian's chromium", ChromiumPath)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(ChromiumPath), chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("renderer-process-limit", "1"),
	}
	// The browser lives as long as the context of its first Run, so no timeout goes on it;
	// each step gets its own (see Step).
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Authorization": basic}}); err != nil {
		t.Fatalf("set the Basic credential: %v", err)
	}
	return ctx
}

// Dark makes the browser prefer a dark colour scheme (or light again).
func Dark(t testing.TB, ctx context.Context, dark bool) {
	t.Helper()
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	feature := &emulation.MediaFeature{Name: "prefers-color-scheme", Value: scheme}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{feature}}); err != nil {
		t.Fatalf("emulate %s mode: %v", scheme, err)
	}
}

// Step runs one group of browser actions, bounded in time.
func Step(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Value runs one browser action that yields a value, bounded in time.
func Value[T any](t testing.TB, ctx context.Context, what string, action chromedp.Action[T]) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := chromedp.Run(tctx, action)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return out
}

// Text is the trimmed text of the first element css selects.
func Text(t testing.TB, ctx context.Context, css string) string {
	t.Helper()
	return strings.TrimSpace(Value(t, ctx, "read "+css, chromedp.Text(chromedp.CSS(css))))
}
