package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
)

// runDoctor runs `cdpprovider doctor args...` with HOME set to home and
// returns its output and exit status. Its output is for a person: short
// lines, no stack traces.
func runDoctor(t testing.TB, home string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(env.bin, append([]string{"doctor"}, args...)...)
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=")
	}), "HOME="+home)
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("cdpprovider doctor: %v", err)
	}
	s := string(out)
	for _, l := range strings.Split(s, "\n") {
		if len(l) > 260 {
			t.Errorf("doctor: a line of %d characters, want short lines: %q", len(l), l)
		}
	}
	for _, bad := range []string{"goroutine ", "panic", ".go:"} {
		if strings.Contains(s, bad) {
			t.Errorf("doctor printed %q, want no stack trace:\n%s", bad, s)
		}
	}
	t.Logf("cdpprovider doctor %s (exit %d):\n%s", strings.Join(args, " "), code, s)
	return s, code
}

// wantLines fails unless every want is in out.
func wantLines(t testing.TB, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("doctor does not say %q:\n%s", w, out)
		}
	}
}

// Nothing to read in the directory looked in. (The package's own browsers
// run meanwhile, each with a directory of its own, so doctor is pointed at
// one directory; what it says with nothing running at all is in the
// provider package's TestDoctorReport.)
func TestDoctorNothingToRead(t *testing.T) {
	needEnv(t)
	empty := t.TempDir()
	out, code := runDoctor(t, t.TempDir(), "--user-data-dir", empty)
	if code != 1 {
		t.Errorf("exit status %d with no browser to read, want 1", code)
	}
	wantLines(t, out, "Installed:", env.chromePath, "Running:", "User-data directories:", "DevToolsActivePort: none",
		"Next step: ", "chrome://inspect/#remote-debugging")
}

func TestDoctorStaleFile(t *testing.T) {
	needEnv(t)
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "chromium")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	if err := os.WriteFile(filepath.Join(dir, "DevToolsActivePort"), fmt.Appendf(nil, "%d\n/devtools/browser/gone", port), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := runDoctor(t, home, "--user-data-dir", dir) // the package's browsers run meanwhile
	if code != 1 {
		t.Errorf("exit status %d with only a stale file, want 1", code)
	}
	wantLines(t, out, "Chromium: "+dir, fmt.Sprintf("DevToolsActivePort: port %d, stale", port), "chrome://inspect setting: unknown", "Next step: ")
}

// A browser a person started with a debugging port and a directory of its
// own: doctor finds it there, and so does --connect auto.
func TestDoctorDebugPortBrowser(t *testing.T) {
	needEnv(t)
	br := chromeFor(t, 0)
	out, code := runDoctor(t, t.TempDir(), "--user-data-dir", br.profile)
	if code != 0 {
		t.Errorf("exit status %d with a browser started with a debugging port, want 0", code)
	}
	wantLines(t, out, fmt.Sprintf("DevToolsActivePort: port %d, live", br.port), "/json/version: answers", "it works now")

	cmd := exec.Command(env.bin, "current", "--connect", "auto", "--user-data-dir", br.profile)
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	outline, err := cmd.Output()
	if err != nil {
		t.Fatalf("current --connect auto --user-data-dir: %v\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(string(outline), `Application Chromium`) || !strings.Contains(string(outline), "Document") {
		t.Errorf("current --connect auto --user-data-dir printed:\n%s", outline)
	}
}
