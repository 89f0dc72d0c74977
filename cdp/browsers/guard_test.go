package browsers

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// A launched browser dies with the provider even when the provider is
// killed, with no chance to close it (Linux: Pdeathsig; Windows: the job
// object; macOS: the watcher of its process group). The fake provider
// launches a fake browser (this test executable again) and is killed.
func TestLaunchedBrowserDiesWithAKilledProvider(t *testing.T) {
	provider, line := startFakeProvider(t, "provider")
	pidText, profile, _ := strings.Cut(line, " ")
	pid, err := strconv.Atoi(pidText)
	if err != nil {
		t.Fatalf("the fake provider said %q, want a pid and a profile", line)
	}
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	})
	if _, err := os.Stat(profile); err != nil {
		t.Errorf("the launched browser's profile: %v", err)
	}
	if err := provider.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = provider.Wait()
	waitGone(t, pid)
}
