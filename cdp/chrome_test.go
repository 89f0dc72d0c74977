package cdp

import (
	"log/slog"
	"os"
	"testing"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
)

// testChrome returns the browser for the tests that read a real one.
// Without one, a local run skips naming $CHROME; under CI=true it fails,
// since .ci/run installs chromium and a skip there would hide a broken
// install.
func testChrome(t testing.TB) string {
	t.Helper()
	path, err := browsers.FindChrome("")
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and no browser: %v", err)
	}
	t.Skipf("no browser (set $CHROME to a Chromium-based browser to run this test): %v", err)
	return ""
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// watchTold starts a watch of p whose changes come on told, one kept
// while none is taken; stop ends it.
func watchTold(p *Provider) (told <-chan struct{}, stop func()) {
	ch := make(chan struct{}, 1)
	stop = p.Watch(func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	})
	return ch, stop
}
