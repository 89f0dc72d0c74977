package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
)

// What doctor says for each situation, the next step above all, and its
// outcome (errNothingToRead: exit status 1).
func TestDoctorReport(t *testing.T) {
	home := t.TempDir() // exists: listed as a directory with nothing in it
	chromium := browsers.UserDataDir{Browser: "Chromium", Path: home}
	live := func(status int) []browsers.Found {
		return []browsers.Found{{ActivePort: browsers.ActivePort{Dir: chromium, Port: 9222, Path: "/devtools/browser/x", Written: time.Now()}, Live: true, Discovery: status}}
	}
	for _, tc := range []struct {
		name string
		s    sight
		ok   bool
		want []string
	}{
		{"nothing installed or running", sight{dirs: []browsers.UserDataDir{chromium}, runningKnown: true}, false,
			[]string{"no Chromium-family browser found", "Running:\n  no Chromium-family browser",
				"Next step: install a Chromium-family browser (" + browsers.InstallAdvice() + "), or let cdpprovider start one with --launch"}},
		{"installed, not running", sight{dirs: []browsers.UserDataDir{chromium}, installed: []string{"/usr/bin/chromium"}, runningKnown: true}, false,
			[]string{"Next step: start chromium and open chrome://inspect/#remote-debugging"}},
		{"running without debugging", sight{dirs: []browsers.UserDataDir{chromium}, installed: []string{"/usr/bin/chromium"},
			running: []browsers.Running{{Pid: 7, Exe: "chromium"}}, runningKnown: true}, false,
			[]string{"chromium (pid 7) on its default profile", "Next step: in the running chromium open chrome://inspect/#remote-debugging"}},
		{"a debug-port browser", sight{dirs: []browsers.UserDataDir{chromium}, found: live(200), auto: &live(200)[0], runningKnown: true}, true,
			[]string{"DevToolsActivePort: port 9222, live", "/json/version: answers", "Next step: none, it works now: `cdpprovider serve` (or"}},
		{"the chrome://inspect setting", sight{dirs: []browsers.UserDataDir{chromium}, found: live(404), runningKnown: true}, true,
			[]string{"/json/version: 404", "click Allow"}},
		{"a stale file", sight{dirs: []browsers.UserDataDir{chromium}, runningKnown: true,
			found: []browsers.Found{{ActivePort: browsers.ActivePort{Dir: chromium, Port: 9333}, Why: "nothing listens on port 9333"}}}, false,
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

// A browser started with --remote-debugging-port=N writes no
// DevToolsActivePort: doctor asks its port, says it works when the port
// answers, and never advises the flag the browser already has.
func TestDoctorDebugPortOnTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	person := browsers.Running{Pid: 7, Exe: "chromium", UserDataDir: dir, DebugPort: "9222"}
	onPort := func(live bool, why string) []browsers.Found {
		return []browsers.Found{{ActivePort: browsers.ActivePort{Dir: browsers.UserDataDir{Browser: "Chromium", Path: dir}, Port: 9222, Path: "/devtools/browser/x"},
			Live: live, Discovery: 200, Why: why, Pid: 7, Cmdline: true}}
	}
	answering := onPort(true, "")
	launchedDir := filepath.Join(os.TempDir(), "cdpprovider-profile-1")
	for _, tc := range []struct {
		name     string
		s        sight
		ok       bool
		want     []string
		dontWant []string
	}{
		{"the port answers", sight{dirs: []browsers.UserDataDir{{Browser: "Chromium", Path: dir}}, installed: []string{"/usr/bin/chromium"},
			running: []browsers.Running{person}, runningKnown: true, found: answering, auto: &answering[0]}, true,
			[]string{"chromium (pid 7) on " + dir + ", --remote-debugging-port=9222\n    port 9222: answers",
				"DevToolsActivePort: none (a browser started with --remote-debugging-port=9222 writes none",
				"Next step: none, it works now: `cdpprovider serve` (or `cdpprovider current`) reads Chromium on port 9222"},
			[]string{"restart it", "--user-data-dir " + dir}},
		{"the port does not answer", sight{dirs: []browsers.UserDataDir{{Browser: "Chromium", Path: dir}}, installed: []string{"/usr/bin/chromium"},
			running: []browsers.Running{person}, runningKnown: true, found: onPort(false, "nothing listens on port 9222: it may have been taken")}, false,
			[]string{"port 9222: does not answer: nothing listens on port 9222",
				"Next step: Chromium (pid 7) was started with --remote-debugging-port=9222, but nothing listens on port 9222"},
			[]string{"restart it with --remote-debugging-port=9222", "open chrome://inspect"}},
		{"named, auto reads another browser", sight{dirs: []browsers.UserDataDir{{Browser: "Chromium", Path: dir}}, running: []browsers.Running{person}, runningKnown: true,
			found: answering, auto: &browsers.Found{ActivePort: browsers.ActivePort{Dir: browsers.UserDataDir{Path: other}, Port: 9333}, Live: true}}, true,
			[]string{"Next step: none, it works now: `cdpprovider serve --user-data-dir " + dir + "` reads Chromium on port 9222"}, nil},
		{"only browsers cdpprovider launched", sight{dirs: []browsers.UserDataDir{{Browser: "Chromium", Path: other}}, installed: []string{"/usr/bin/chromium"},
			running: []browsers.Running{{Pid: 9, Exe: "chromium", UserDataDir: launchedDir, DebugPort: "0", Launched: true}}, runningKnown: true}, false,
			[]string{"chromium (pid 9) on " + launchedDir + ", --remote-debugging-port=0 (launched by cdpprovider for itself: not read)",
				"Next step: start chromium and open chrome://inspect/#remote-debugging"},
			[]string{"in the running chromium", "was started with"}},
		{"port 0 and no file yet", sight{dirs: []browsers.UserDataDir{{Browser: "Chromium", Path: dir}}, installed: []string{"/usr/bin/chromium"},
			running: []browsers.Running{{Pid: 8, Exe: "chromium", UserDataDir: dir, DebugPort: "0"}}, runningKnown: true}, false,
			[]string{"Next step: chromium (pid 8) was started with --remote-debugging-port=0, but its directory " + dir + " has no live DevToolsActivePort"},
			[]string{"restart it"}},
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
		for _, w := range tc.dontWant {
			if strings.Contains(out.String(), w) {
				t.Errorf("%s: the report says %q:\n%s", tc.name, w, out.String())
			}
		}
	}
}

// answering is a browser's debugging port on loopback: /json/version
// answers with a websocket at path.
func answering(t *testing.T, path string) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/json/version" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `{"Browser":"Chrome/156.0","webSocketDebuggerUrl":"ws://%s%s"}`, r.Host, path)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

// A test runner's headless browser started after the person's headed one:
// doctor names both, reads the person's and says why; with the person's
// gone, it reads the automation browser and says that nothing else
// answered.
func TestDoctorNamesWhichBrowserItReads(t *testing.T) {
	// No default profile to read, on any system.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("LOCALAPPDATA", t.TempDir())
	robotDir := t.TempDir()
	// The person's directory, not under the temporary directory.
	personDir := filepath.Join(filepath.VolumeName(os.TempDir())+string(filepath.Separator), "home", "me", "chromium-debug")
	person := browsers.Running{Pid: 7, Exe: "chromium", UserDataDir: personDir,
		DebugPort: fmt.Sprint(answering(t, "/devtools/browser/person")), Started: time.Now().Add(-time.Hour)}
	robot := browsers.Running{Pid: 8, Exe: "chromium", UserDataDir: robotDir, Headless: true, Automation: true,
		DebugPort: fmt.Sprint(answering(t, "/devtools/browser/robot")), Started: time.Now()}
	doctorOn := func(running ...browsers.Running) (string, error) {
		var out strings.Builder
		err := report(&out, look(context.Background(), Config{}, func() ([]browsers.Running, bool) { return running, true }))
		return out.String(), err
	}

	out, err := doctorOn(person, robot)
	if err != nil {
		t.Errorf("report = %v, want a browser to read", err)
	}
	for _, w := range []string{
		fmt.Sprintf("chromium (pid 7) on %s, --remote-debugging-port=%s\n    port %[2]s: answers (a headed browser)", personDir, person.DebugPort),
		fmt.Sprintf("chromium (pid 8) on %s, --remote-debugging-port=%s\n    port %[2]s: answers (an automation browser (--enable-automation))", robotDir, robot.DebugPort),
		fmt.Sprintf("Reads: Chromium %s (pid 7), port %s: a headed browser\n", personDir, person.DebugPort),
		fmt.Sprintf("  passes by: Chromium %s (pid 8), port %s: an automation browser (--enable-automation)\n", robotDir, robot.DebugPort),
		fmt.Sprintf("Next step: none, it works now: `cdpprovider serve` (or `cdpprovider current`) reads Chromium on port %s", person.DebugPort),
	} {
		if !strings.Contains(out, w) {
			t.Errorf("doctor does not say %q:\n%s", w, out)
		}
	}

	// The person's browser no longer listens on its port.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	person.DebugPort = fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	out, err = doctorOn(person, robot)
	if err != nil {
		t.Errorf("report = %v, want the automation browser to read", err)
	}
	if w := fmt.Sprintf("Reads: Chromium %s (pid 8), port %s: an automation browser (--enable-automation): nothing else answered\n", robotDir, robot.DebugPort); !strings.Contains(out, w) {
		t.Errorf("doctor does not say %q:\n%s", w, out)
	}
	if strings.Contains(out, "passes by") {
		t.Errorf("doctor passes by a browser that does not answer:\n%s", out)
	}
}

// A DevToolsActivePort doctor does not read is told, and why: another
// user's (only root can make one), or not a DevToolsActivePort.
func TestDoctorSaysWhyAFileIsNotRead(t *testing.T) {
	bad, theirs := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "DevToolsActivePort"), []byte("port\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(theirs, "DevToolsActivePort"), []byte("9222\n/devtools/browser/x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := []string{"DevToolsActivePort: not read: " + filepath.Join(bad, "DevToolsActivePort") + ": want two lines"}
	if os.Getuid() == 0 {
		if err := os.Chown(filepath.Join(theirs, "DevToolsActivePort"), 1, 1); err != nil {
			t.Fatal(err)
		}
		want = append(want, "DevToolsActivePort: not read: "+filepath.Join(theirs, "DevToolsActivePort")+" is another user's (uid 1)")
	}
	var out strings.Builder
	_ = report(&out, sight{dirs: []browsers.UserDataDir{{Browser: "Chromium", Path: bad}, {Browser: "Chromium", Path: theirs}}, runningKnown: true})
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("doctor does not say %q:\n%s", w, out.String())
		}
	}
}

// With no browser installed, the failure of --launch and doctor's next
// step name what to install on this system (browsers.InstallAdvice), not
// Debian's package on every system.
func TestDoctorAndLaunchNameWhatToInstallHere(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CHROME", "")
	if p, err := browsers.FindChrome(""); err == nil {
		t.Skipf("a browser is installed outside PATH here (%s): the failure of a launch with none cannot be made", p)
	}
	f := launchFailed(Config{Launch: true}, errors.New("find chrome: none"))
	if w := "install one (" + browsers.InstallAdvice() + ")"; !strings.Contains(f.Error(), w) {
		t.Errorf("launchFailed = %q, want it to say %q", f.Error(), w)
	}
	var out strings.Builder
	_ = report(&out, sight{dirs: []browsers.UserDataDir{{Browser: "Chromium", Path: t.TempDir()}}, runningKnown: true})
	if w := "Next step: install a Chromium-family browser (" + browsers.InstallAdvice() + ")"; !strings.Contains(out.String(), w) {
		t.Errorf("doctor does not say %q:\n%s", w, out.String())
	}
}
