package provider

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/cdp"
)

// What doctor says for each situation, the next step above all, and its
// outcome (errNothingToRead: exit status 1).
func TestDoctorReport(t *testing.T) {
	home := t.TempDir() // exists: listed as a directory with nothing in it
	chromium := cdp.UserDataDir{Browser: "Chromium", Path: home}
	live := func(status int) []cdp.Found {
		return []cdp.Found{{ActivePort: cdp.ActivePort{Dir: chromium, Port: 9222, Path: "/devtools/browser/x", Written: time.Now()}, Live: true, Discovery: status}}
	}
	for _, tc := range []struct {
		name string
		s    sight
		ok   bool
		want []string
	}{
		{"nothing installed or running", sight{dirs: []cdp.UserDataDir{chromium}, runningKnown: true}, false,
			[]string{"no Chromium-family browser found", "Running:\n  no Chromium-family browser", "Next step: install a Chromium-family browser"}},
		{"installed, not running", sight{dirs: []cdp.UserDataDir{chromium}, installed: []string{"/usr/bin/chromium"}, runningKnown: true}, false,
			[]string{"Next step: start chromium and open chrome://inspect/#remote-debugging"}},
		{"running without debugging", sight{dirs: []cdp.UserDataDir{chromium}, installed: []string{"/usr/bin/chromium"},
			running: []cdp.Running{{Pid: 7, Exe: "chromium"}}, runningKnown: true}, false,
			[]string{"chromium (pid 7) on its default profile", "Next step: in the running chromium open chrome://inspect/#remote-debugging"}},
		{"a debug-port browser", sight{dirs: []cdp.UserDataDir{chromium}, found: live(200), runningKnown: true}, true,
			[]string{"DevToolsActivePort: port 9222, live", "/json/version: answers", "Next step: none, it works now"}},
		{"the chrome://inspect setting", sight{dirs: []cdp.UserDataDir{chromium}, found: live(404), runningKnown: true}, true,
			[]string{"/json/version: 404", "click Allow"}},
		{"a stale file", sight{dirs: []cdp.UserDataDir{chromium}, runningKnown: true,
			found: []cdp.Found{{ActivePort: cdp.ActivePort{Dir: chromium, Port: 9333}, Why: "nothing listens on port 9333"}}}, false,
			[]string{"DevToolsActivePort: port 9333, stale: nothing listens on port 9333", "Next step: install"}},
	} {
		var out strings.Builder
		err := report(&out, tc.s)
		if ok := err == nil; ok != tc.ok || (err != nil && !errors.Is(err, errNothingToRead)) {
			t.Errorf("%s: report = %v, want readable %v", tc.name, err, tc.ok)
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: the report does not say %q:\n%s", tc.name, w, out.String())
			}
		}
	}
}
