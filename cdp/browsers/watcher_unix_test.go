//go:build unix

package browsers

import (
	"fmt"
	"os"
	"testing"
)

// The watcher of a browser's process group (macOS's guard, which has no
// Pdeathsig) kills the whole group when the provider dies, however it
// dies: run here on Linux with Pdeathsig left out.
func TestWatcherKillsTheGroupOfAKilledProvider(t *testing.T) {
	provider, line := startFakeProvider(t, "watched")
	var browser, renderer int
	if _, err := fmt.Sscan(line, &browser, &renderer); err != nil {
		t.Fatalf("the fake provider said %q, want two pids", line)
	}
	t.Cleanup(func() {
		for _, pid := range []int{browser, renderer} {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	})
	if err := provider.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = provider.Wait()
	waitGone(t, browser)
	waitGone(t, renderer)
}
