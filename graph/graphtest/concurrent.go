package graphtest

import (
	"sync"
	"testing"
)

// Concurrently runs every fn at once and fails the test with the first error once all are
// done: for tests of writers racing on the same records.
func Concurrently(t testing.TB, fns ...func() error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(fns))
	for _, fn := range fns {
		wg.Go(func() { errs <- fn() })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
