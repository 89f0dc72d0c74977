package browsers

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A browser on the fake machine of these tests: its main process's
// command line, and when it started.
type fakeProc struct {
	pid     int
	args    []string
	started time.Time
}

// fakeBoot is when the fake machine booted.
var fakeBoot = time.Unix(1_700_000_000, 0)

// fakeProcs are the processes and the listening sockets of a fake
// machine: what the tests fill the processes interface with, in place of
// the OS's.
type fakeProcs struct {
	procs []process
	// socks are the listening sockets; nil: not known.
	socks []socket
}

func (f *fakeProcs) list(keep func(args []string) bool) []process {
	var out []process
	for _, p := range f.procs {
		if keep(p.args) {
			out = append(out, p)
		}
	}
	return out
}

func (f *fakeProcs) listeners() map[int]UserID { return listenerOwners(f.socks) }

// proc is the process pid of f.
func (f *fakeProcs) proc(t *testing.T, pid int) *process {
	t.Helper()
	for i := range f.procs {
		if f.procs[i].pid == pid {
			return &f.procs[i]
		}
	}
	t.Fatalf("no process %d", pid)
	return nil
}

// writeProc makes a fake machine running the processes (and a renderer
// helper of the first, which must not count), each the provider's
// user's, and returns it.
func writeProc(t *testing.T, procs ...fakeProc) *fakeProcs {
	t.Helper()
	f := &fakeProcs{}
	for _, p := range procs {
		f.procs = append(f.procs, process{pid: p.pid, args: p.args, users: []UserID{currentUser(), currentUser()}, started: p.started})
	}
	if len(procs) > 0 {
		helper := append([]string{procs[0].args[0], "--type=renderer"}, procs[0].args[1:]...)
		f.procs = append(f.procs, process{pid: procs[len(procs)-1].pid + 1000, args: helper, users: []UserID{currentUser(), currentUser()}, started: procs[0].started})
	}
	return f
}

// someoneElse is another user than the provider's.
var someoneElse = func() UserID {
	if currentUser() == "uid 4242" {
		return "uid 4243"
	}
	return "uid 4242"
}()

// setOwner makes the user u run process pid of a fake machine, as the
// OS tells it (on Unix its real and effective user ids).
func setOwner(t *testing.T, proc *fakeProcs, pid int, u UserID) {
	t.Helper()
	proc.proc(t, pid).users = []UserID{u, u}
}

// listen adds to a fake machine a socket of the user u listening on port
// at addr.
func listen(t *testing.T, proc *fakeProcs, addr string, port int, u UserID) {
	t.Helper()
	if proc.socks == nil {
		proc.socks = []socket{}
	}
	proc.socks = append(proc.socks, socket{addr: netip.MustParseAddr(addr), port: port, owner: u})
}

// debugBrowser is a fake browser on loopback that counts every request
// that tries to open a websocket: discovery must never make one.
type debugBrowser struct {
	port     int
	upgrades *atomic.Int32
	// asked counts the GETs of /json/version.
	asked *atomic.Int32
}

// newDebugBrowser answers /json/version with status (200: a browser
// started with a debugging port, whose websocket is at wsPath; 404: one
// that allows debugging from chrome://inspect).
func newDebugBrowser(t *testing.T, status int, wsPath string) debugBrowser {
	t.Helper()
	return newDebugBrowserAgent(t, status, wsPath, "")
}

// newDebugBrowserAgent is newDebugBrowser whose /json/version names a
// user agent too.
func newDebugBrowserAgent(t *testing.T, status int, wsPath, userAgent string) debugBrowser {
	t.Helper()
	b := debugBrowser{upgrades: new(atomic.Int32), asked: new(atomic.Int32)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") || strings.HasPrefix(r.URL.Path, "/devtools/") {
			b.upgrades.Add(1)
			http.Error(w, "no websockets in discovery", http.StatusForbidden)
			return
		}
		if r.URL.Path == "/json/version" {
			b.asked.Add(1)
		}
		if r.URL.Path != "/json/version" || status != http.StatusOK {
			http.Error(w, "not found", status)
			return
		}
		fmt.Fprintf(w, `{"Browser":"Chrome/156.0","User-Agent":%q,"webSocketDebuggerUrl":"ws://%s%s"}`, userAgent, r.Host, wsPath)
	}))
	t.Cleanup(func() {
		srv.Close()
		if n := b.upgrades.Load(); n > 0 {
			t.Errorf("discovery tried %d websocket connections on port %d, want none", n, b.port)
		}
	})
	b.port = srv.Listener.Addr().(*net.TCPAddr).Port
	return b
}

// rooted is a path from the root of this system's file system (/ on
// Unix, the temporary directory's drive on Windows): the directory of a
// fake process that is not under the temporary directory.
func rooted(parts ...string) string {
	root := filepath.VolumeName(os.TempDir()) + string(filepath.Separator)
	return filepath.Join(append([]string{root}, parts...)...)
}

// inTemp is a path under the temporary directory, where programs make
// their browsers' profiles.
func inTemp(name string) string { return filepath.Join(os.TempDir(), name) }

// chromiumArgs is a person's Chromium command line with extra flags.
func chromiumArgs(flags ...string) []string {
	return append([]string{"/usr/lib/chromium/chromium"}, append(flags, "about:blank")...)
}

// autoOn is the auto endpoint of a machine whose processes are in proc
// and whose default user-data directory is home (named: the person gave
// it with --user-data-dir).
func autoOn(proc *fakeProcs, home UserDataDir, named bool) Endpoint {
	return Endpoint{addr: Auto, auto: true, dirs: []UserDataDir{home}, named: named,
		running:   func() ([]Running, bool) { return runningFrom(proc, currentUser()), true },
		listeners: proc.listeners}
}

// resolveLogged resolves ep and returns what it logged too.
func resolveLogged(t *testing.T, ep Endpoint) (Resolved, string, error) {
	t.Helper()
	var buf bytes.Buffer
	tg, err := ep.Resolve(context.Background(), slog.New(slog.NewTextHandler(&buf, nil)))
	return tg, buf.String(), err
}

func TestRunningFromProc(t *testing.T) {
	person, launched := t.TempDir(), t.TempDir()
	if err := MarkLaunched(launched); err != nil {
		t.Fatal(err)
	}
	at := fakeBoot.Add(time.Hour)
	proc := writeProc(t,
		fakeProc{10, chromiumArgs("--remote-debugging-port=9333", "--remote-debugging-address=::1", "--user-data-dir="+person+string(filepath.Separator)), at},
		fakeProc{11, chromiumArgs("--remote-debugging-port=0", "--user-data-dir="+launched), at},
		fakeProc{12, chromiumArgs("--user-data-dir=rel"), at},
	)
	proc.proc(t, 12).cwd = rooted("home", "ann")
	got := map[int]Running{}
	for _, r := range runningFrom(proc, currentUser()) {
		got[r.Pid] = r
	}
	if len(got) != 3 {
		t.Fatalf("runningFrom = %+v, want the three main processes, not the renderer", got)
	}
	if r := got[10]; r.Port() != 9333 || r.DebugAddress != "::1" || r.UserDataDir != person || r.Launched || !r.Started.Equal(at) {
		t.Errorf("pid 10 = %+v, want port 9333, address ::1, dir %s (cleaned), not launched, started %v", r, person, at)
	}
	if r := got[11]; r.Port() != 0 || !r.Launched {
		t.Errorf("pid 11 = %+v, want port 0, launched by cdpprovider", r)
	}
	if r := got[12]; r.UserDataDir != rooted("home", "ann", "rel") || r.Port() != 0 {
		t.Errorf("pid 12 = %+v, want the relative directory under its working directory", r)
	}
}

// A browser started as the README says, --remote-debugging-port=N and a
// directory of its own, writes no DevToolsActivePort: auto finds it by its
// command line, at 127.0.0.1:N.
func TestDiscoverPortOnCommandLine(t *testing.T) {
	home := UserDataDir{Browser: "Chromium", Path: t.TempDir()} // no file
	br := newDebugBrowser(t, http.StatusOK, "/devtools/browser/p1")
	dir := t.TempDir()
	proc := writeProc(t, fakeProc{20, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", br.port), "--user-data-dir="+dir, "--headless=new"), fakeBoot.Add(time.Minute)})
	tg, logged, err := resolveLogged(t, autoOn(proc, home, false))
	if err != nil {
		t.Fatalf("auto with a browser on port %d: %v", br.port, err)
	}
	if want := fmt.Sprintf("ws://127.0.0.1:%d/devtools/browser/p1", br.port); tg.WS != want || tg.Asks || tg.http == "" || tg.Name != "Chromium" {
		t.Errorf("auto resolved %+v, want %s, not asking, with /json, named Chromium", tg, want)
	}
	if !strings.Contains(logged, "pid=20") {
		t.Errorf("the log does not name the process: %s", logged)
	}
	// The same browser for --user-data-dir DIR: its process is on DIR.
	tg, _, err = resolveLogged(t, autoOn(proc, NamedUserDataDir(dir+"/."), true))
	if err != nil || !strings.HasSuffix(tg.WS, "/devtools/browser/p1") {
		t.Errorf("auto --user-data-dir %s: %+v, %v; want the browser running on it", dir, tg, err)
	}
	// Another directory named: that browser is not on it.
	if tg, _, err = resolveLogged(t, autoOn(proc, NamedUserDataDir(t.TempDir()), true)); err == nil {
		t.Errorf("auto --user-data-dir of another directory resolved %+v, want no browser", tg)
	}
}

// Only the provider's user's browsers are read: another user's browser,
// started with a debugging port anyone on the machine can reach, is
// passed by, started last or alone; its port is never asked, nor the
// DevToolsActivePort in its user-data directory read. A process whose
// owner cannot be read is nobody's.
func TestDiscoverPassesOtherUsersBrowsers(t *testing.T) {
	home := UserDataDir{Browser: "Chromium", Path: t.TempDir()}
	mine := newDebugBrowser(t, http.StatusOK, "/devtools/browser/mine")
	theirs := newDebugBrowser(t, http.StatusOK, "/devtools/browser/theirs")
	theirFile := newDebugBrowser(t, http.StatusOK, "/devtools/browser/their-file")
	unowned := newDebugBrowser(t, http.StatusOK, "/devtools/browser/unowned")
	theirDir := writeActivePort(t, "Chromium", theirFile.port, "/devtools/browser/their-file", time.Now())
	proc := writeProc(t,
		fakeProc{60, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", mine.port), "--user-data-dir="+rooted("home", "me", "debug")), fakeBoot},
		fakeProc{61, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", theirs.port), "--user-data-dir="+rooted("home", "them", "debug")), fakeBoot.Add(time.Hour)},
		fakeProc{62, chromiumArgs("--remote-debugging-port=0", "--user-data-dir="+theirDir.Path), fakeBoot.Add(2 * time.Hour)},
		fakeProc{63, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", unowned.port), "--user-data-dir="+rooted("home", "who", "debug")), fakeBoot.Add(3 * time.Hour)},
	)
	setOwner(t, proc, 61, someoneElse)
	setOwner(t, proc, 62, someoneElse)
	proc.proc(t, 63).users = nil // not told
	// Real and effective user both the provider's, not one alone.
	proc.procs = append(proc.procs,
		process{pid: 64, args: chromiumArgs("--remote-debugging-port=0", "--user-data-dir="+t.TempDir()), users: []UserID{someoneElse, currentUser()}},
		process{pid: 65, args: chromiumArgs("--remote-debugging-port=0", "--user-data-dir="+t.TempDir()), users: []UserID{currentUser(), someoneElse}})
	if got := runningFrom(proc, currentUser()); len(got) != 1 || got[0].Pid != 60 {
		t.Errorf("runningFrom = %+v, want pid 60 alone, the provider's user's", got)
	}
	tg, logged, err := resolveLogged(t, autoOn(proc, home, false))
	if err != nil || !strings.HasSuffix(tg.WS, "/devtools/browser/mine") {
		t.Fatalf("auto resolved %+v, %v; want the provider's user's browser, pid 60 (log %s)", tg, err, logged)
	}
	for _, w := range []string{"pid=61", "pid 61", rooted("home", "them"), theirDir.Path, "pid 63", rooted("home", "who")} {
		if strings.Contains(logged, w) {
			t.Errorf("the log names another user's browser (%q): %s", w, logged)
		}
	}
	// Alone, another user's browser is no browser to read.
	proc = writeProc(t, fakeProc{61, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", theirs.port), "--user-data-dir="+rooted("home", "them", "debug")), fakeBoot})
	setOwner(t, proc, 61, someoneElse)
	if tg, _, err := resolveLogged(t, autoOn(proc, home, false)); err == nil {
		t.Errorf("auto with only another user's browser running resolved %+v, want no browser", tg)
	}
	for _, b := range []debugBrowser{theirs, theirFile, unowned} {
		if n := b.asked.Load(); n > 0 {
			t.Errorf("port %d, another user's browser's, was asked %d times, want never", b.port, n)
		}
	}
}

// Two people on one machine both start a browser with the same
// --remote-debugging-port: the second one's cannot listen there, and the
// port answers with the first one's browser. A port another user listens
// on (/proc/net/tcp's uid) is never asked, nor read through a
// DevToolsActivePort that names it.
func TestDiscoverPassesAPortAnotherUserListensOn(t *testing.T) {
	home := UserDataDir{Browser: "Chromium", Path: t.TempDir()}
	theirs := newDebugBrowser(t, http.StatusOK, "/devtools/browser/theirs")
	args := chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", theirs.port), "--user-data-dir="+rooted("home", "me", "debug"))
	// Ours on every address over IPv6 (which takes 127.0.0.1 too): read.
	proc := writeProc(t, fakeProc{80, args, fakeBoot})
	listen(t, proc, "::", theirs.port, currentUser())
	if tg, logged, err := resolveLogged(t, autoOn(proc, home, false)); err != nil || !strings.HasSuffix(tg.WS, "/devtools/browser/theirs") {
		t.Fatalf("auto with the port the provider's user's: %+v, %v; want it read (log %s)", tg, err, logged)
	}
	asked := theirs.asked.Load()

	// Another user's on 127.0.0.1, which takes the port's connections
	// before every address: not read, and the error says why.
	listen(t, proc, "127.0.0.1", theirs.port, someoneElse)
	tg, _, err := resolveLogged(t, autoOn(proc, home, false))
	if want := fmt.Sprintf("another user (%s) listens on port %d", someoneElse, theirs.port); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("auto with another user on the port: %+v, %v; want no browser, saying %q", tg, err, want)
	}
	// A DevToolsActivePort of the person's default profile, left by a
	// browser that exited, names the port: not read either.
	if err := os.WriteFile(filepath.Join(home.Path, activePortFile), fmt.Appendf(nil, "%d\n/devtools/browser/theirs", theirs.port), 0o644); err != nil {
		t.Fatal(err)
	}
	found := FindBrowsers(context.Background(), autoOn(proc, home, false).look())
	if len(found) != 2 || found[0].Live || found[1].Live {
		t.Errorf("found %+v, want the process and the file, neither live", found)
	}
	for _, f := range found {
		if !strings.Contains(f.Why, "another user") {
			t.Errorf("%s, port %d: why %q, want another user's", f.where(), f.Port, f.Why)
		}
	}
	if n := theirs.asked.Load() - asked; n > 0 {
		t.Errorf("another user's port was asked %d times, want never", n)
	}
}

// The person's browser comes first whenever it answers, whichever
// started last: a browser on a default user-data directory, then a headed
// one; a browser started for a program (--enable-automation, --headless,
// a profile under the temporary directory) only when nothing else
// answers. The log says which it read and why.
func TestDiscoverPrefersThePersonsBrowser(t *testing.T) {
	home := UserDataDir{Browser: "Chromium", Path: t.TempDir()}
	headed := newDebugBrowser(t, http.StatusOK, "/devtools/browser/headed")
	robot := newDebugBrowser(t, http.StatusOK, "/devtools/browser/robot")
	headless := newDebugBrowser(t, http.StatusOK, "/devtools/browser/headless")
	scratch := newDebugBrowser(t, http.StatusOK, "/devtools/browser/scratch")
	procs := []fakeProc{
		{70, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", headed.port), "--user-data-dir="+rooted("home", "me", "chromium-debug")), fakeBoot.Add(time.Hour)},
		// all started after the person's, the automation one last
		{72, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", headless.port), "--headless=new", "--user-data-dir="+rooted("home", "me", "headless")), fakeBoot.Add(2 * time.Hour)},
		{73, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", scratch.port), "--user-data-dir="+t.TempDir()), fakeBoot.Add(3 * time.Hour)},
		{71, []string{"/opt/google/chrome/chrome", "--enable-automation", "--headless", fmt.Sprintf("--remote-debugging-port=%d", robot.port), "--user-data-dir=" + rooted("home", "me", ".cache", "robot"), "about:blank"}, fakeBoot.Add(4 * time.Hour)},
	}
	proc := writeProc(t, procs...)
	tg, logged, err := resolveLogged(t, autoOn(proc, home, false))
	if err != nil || !strings.HasSuffix(tg.WS, "/devtools/browser/headed") {
		t.Fatalf("auto resolved %+v, %v; want the person's headed browser, pid 70 (log %s)", tg, err, logged)
	}
	for _, w := range []string{"pid=70", `why="a headed browser"`, "(pid 71) (live, port " + fmt.Sprint(robot.port) + ", an automation browser (--enable-automation))",
		"(pid 72) (live, port " + fmt.Sprint(headless.port) + ", an automation browser (--headless))", "(pid 73) (live, port " + fmt.Sprint(scratch.port) + ", an automation browser (a profile under the temporary directory))"} {
		if !strings.Contains(logged, w) {
			t.Errorf("the log does not say %q: %s", w, logged)
		}
	}

	// A browser on the person's default profile comes before it, though
	// it started first of all (its file is an hour older than the rest).
	consent := newDebugBrowser(t, http.StatusNotFound, "")
	if err := os.WriteFile(filepath.Join(home.Path, activePortFile), fmt.Appendf(nil, "%d\n/devtools/browser/own", consent.port), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(home.Path, activePortFile), fakeBoot, fakeBoot); err != nil {
		t.Fatal(err)
	}
	tg, logged, err = resolveLogged(t, autoOn(proc, home, false))
	if err != nil || !strings.HasSuffix(tg.WS, "/devtools/browser/own") || !strings.Contains(logged, `why="the person's default profile"`) {
		t.Errorf("auto resolved %+v, %v; want the browser on the default profile (log %s)", tg, err, logged)
	}
	if err := os.Remove(filepath.Join(home.Path, activePortFile)); err != nil {
		t.Fatal(err)
	}

	// The person's browser gone (its port answers no more): an
	// automation browser is read, and the log says it is one, read
	// because nothing else answered.
	procs[0].args = chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", deadPort(t)), "--user-data-dir="+rooted("home", "me", "chromium-debug"))
	proc = writeProc(t, procs...)
	tg, logged, err = resolveLogged(t, autoOn(proc, home, false))
	if err != nil || !strings.HasSuffix(tg.WS, "/devtools/browser/robot") {
		t.Fatalf("auto resolved %+v, %v; want the most recently started automation browser, pid 71 (log %s)", tg, err, logged)
	}
	if w := `why="an automation browser (--enable-automation): nothing else answered"`; !strings.Contains(logged, w) {
		t.Errorf("the log does not say %q: %s", w, logged)
	}

	// Where the processes are not known, a headless user agent is the
	// sign of an automation browser.
	plain := newDebugBrowser(t, http.StatusOK, "/devtools/browser/plain")
	agent := newDebugBrowserAgent(t, http.StatusOK, "/devtools/browser/agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36")
	ep := Endpoint{addr: Auto, auto: true, dirs: []UserDataDir{home}, ports: []int{agent.port, plain.port},
		running: func() ([]Running, bool) { return nil, false }}
	tg, logged, err = resolveLogged(t, ep)
	if err != nil || !strings.HasSuffix(tg.WS, "/devtools/browser/plain") || !strings.Contains(logged, "an automation browser (a headless user agent)") {
		t.Errorf("auto without processes resolved %+v, %v; want the browser whose user agent is not headless (log %s)", tg, err, logged)
	}
}

// Port 0 and a directory of its own: the browser's DevToolsActivePort in
// that directory, found with no flag.
func TestDiscoverPortZeroInItsOwnDirectory(t *testing.T) {
	home := UserDataDir{Browser: "Chromium", Path: t.TempDir()}
	br := newDebugBrowser(t, http.StatusOK, "/devtools/browser/z1")
	own := writeActivePort(t, "own", br.port, "/devtools/browser/z1", time.Now())
	proc := writeProc(t, fakeProc{30, chromiumArgs("--remote-debugging-port=0", "--user-data-dir="+own.Path), fakeBoot})
	tg, logged, err := resolveLogged(t, autoOn(proc, home, false))
	if err != nil {
		t.Fatalf("auto with a port-0 browser on %s: %v", own.Path, err)
	}
	if !strings.HasSuffix(tg.WS, fmt.Sprintf("%d/devtools/browser/z1", br.port)) || !strings.Contains(logged, "pid=30") {
		t.Errorf("auto resolved %+v (log %s), want the websocket its DevToolsActivePort names, pid 30", tg, logged)
	}
}

// Browsers a cdpprovider launched (the marker file, or the name of its
// profile directories) are never a person's: auto passes them by, even
// started last, unless the person names the directory.
func TestDiscoverSkipsLaunchedBrowsers(t *testing.T) {
	home := UserDataDir{Browser: "Chromium", Path: t.TempDir()}
	person := newDebugBrowser(t, http.StatusOK, "/devtools/browser/person")
	marked := newDebugBrowser(t, http.StatusOK, "/devtools/browser/marked")
	named := newDebugBrowser(t, http.StatusOK, "/devtools/browser/named")
	markedDir := t.TempDir()
	if err := MarkLaunched(markedDir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(markedDir, activePortFile), fmt.Appendf(nil, "%d\n/devtools/browser/marked", marked.port), 0o644); err != nil {
		t.Fatal(err)
	}
	prefixDir := filepath.Join(t.TempDir(), launchedPrefix+"123")
	if err := os.Mkdir(prefixDir, 0o755); err != nil {
		t.Fatal(err)
	}
	proc := writeProc(t,
		fakeProc{40, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", person.port), "--user-data-dir="+t.TempDir()), fakeBoot},
		// Launch's own command line: port 0, its profile; started later
		fakeProc{41, chromiumArgs("--user-data-dir="+markedDir, "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1"), fakeBoot.Add(time.Hour)},
		fakeProc{42, chromiumArgs("--user-data-dir="+prefixDir, fmt.Sprintf("--remote-debugging-port=%d", named.port)), fakeBoot.Add(2 * time.Hour)},
	)
	tg, logged, err := resolveLogged(t, autoOn(proc, home, false))
	if err != nil || !strings.HasSuffix(tg.WS, "/devtools/browser/person") {
		t.Fatalf("auto resolved %+v, %v, want the person's browser, not the launched ones (log %s)", tg, err, logged)
	}
	if strings.Contains(logged, markedDir) || strings.Contains(logged, prefixDir) {
		t.Errorf("auto mentions a launched browser: %s", logged)
	}
	// Named, a launched browser is read: the person asked for it.
	for dir, ws := range map[string]string{markedDir: "/devtools/browser/marked", prefixDir: "/devtools/browser/named"} {
		tg, _, err := resolveLogged(t, autoOn(proc, NamedUserDataDir(dir), true))
		if err != nil || !strings.HasSuffix(tg.WS, ws) {
			t.Errorf("auto --user-data-dir %s: %+v, %v; want %s", dir, tg, err, ws)
		}
	}
	// Only launched browsers running: none is the person's.
	proc = writeProc(t, fakeProc{41, chromiumArgs("--user-data-dir="+markedDir, "--remote-debugging-port=0"), fakeBoot})
	if tg, _, err := resolveLogged(t, autoOn(proc, home, false)); err == nil {
		t.Errorf("auto with only a launched browser resolved %+v, want no browser", tg)
	}
}

// Several browsers with debugging ports: the most recently started one
// that answers; one whose port does not answer is never chosen, and the
// log names the others.
func TestDiscoverChoosesAnAnsweringBrowser(t *testing.T) {
	home := UserDataDir{Browser: "Chromium", Path: t.TempDir()}
	older := newDebugBrowser(t, http.StatusOK, "/devtools/browser/older")
	newer := newDebugBrowser(t, http.StatusOK, "/devtools/browser/newer")
	consent := newDebugBrowser(t, http.StatusNotFound, "")
	dead := deadPort(t)
	proc := writeProc(t,
		fakeProc{50, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", older.port), "--user-data-dir="+inTemp("a")), fakeBoot.Add(time.Minute)},
		fakeProc{51, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", newer.port), "--user-data-dir="+inTemp("b")), fakeBoot.Add(2 * time.Minute)},
		// started last, but nothing answers on its port, or 404 without
		// a file to name its websocket
		fakeProc{52, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", dead), "--user-data-dir="+inTemp("c")), fakeBoot.Add(3 * time.Minute)},
		fakeProc{53, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", consent.port), "--user-data-dir="+inTemp("d")), fakeBoot.Add(4 * time.Minute)},
		// the same port as the newer one, started after it: it could not
		// listen there
		fakeProc{54, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", newer.port), "--user-data-dir="+inTemp("e")), fakeBoot.Add(5 * time.Minute)},
	)
	tg, logged, err := resolveLogged(t, autoOn(proc, home, false))
	if err != nil || !strings.HasSuffix(tg.WS, "/devtools/browser/newer") {
		t.Fatalf("auto resolved %+v, %v; want the most recently started browser that answers", tg, err)
	}
	for _, w := range []string{"pid=51", inTemp("a") + " (pid 50) (live", inTemp("c") + " (pid 52) (not answering", inTemp("e") + " (pid 54) (not answering"} {
		if !strings.Contains(logged, w) {
			t.Errorf("the log does not say %q: %s", w, logged)
		}
	}
	found := FindBrowsers(context.Background(), autoOn(proc, home, false).look())
	why := map[int]string{}
	for _, f := range found {
		why[f.Pid] = f.Why
	}
	if !strings.Contains(why[52], "nothing listens") || !strings.Contains(why[53], "404") || !strings.Contains(why[54], "pid 51") {
		t.Errorf("why not live: %v", why)
	}

	// Nothing answers: the error says which running browsers' ports do not.
	proc = writeProc(t, fakeProc{52, chromiumArgs(fmt.Sprintf("--remote-debugging-port=%d", dead), "--remote-debugging-address=192.0.2.1"), fakeBoot})
	_, err = autoOn(proc, home, false).Resolve(context.Background(), discardLogger())
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("port %d", dead)) || !strings.Contains(err.Error(), "--remote-debugging-address=192.0.2.1") {
		t.Errorf("auto with a browser listening elsewhere: %v, want an error naming its port and address", err)
	}
}

// Where the OS does not tell the processes, auto asks the port the README
// names.
func TestDiscoverWellKnownPortWithoutProcesses(t *testing.T) {
	br := newDebugBrowser(t, http.StatusOK, "/devtools/browser/w1")
	ep := Endpoint{addr: Auto, auto: true, dirs: []UserDataDir{{Browser: "Chromium", Path: t.TempDir()}}, ports: []int{deadPort(t), br.port},
		running: func() ([]Running, bool) { return nil, false }}
	tg, _, err := resolveLogged(t, ep)
	if err != nil || !strings.HasSuffix(tg.WS, fmt.Sprintf("%d/devtools/browser/w1", br.port)) {
		t.Errorf("auto without processes: %+v, %v; want the browser on the well-known port", tg, err)
	}
	// With the processes known, a port no process names is not asked.
	ep.running = func() ([]Running, bool) { return nil, true }
	if tg, _, err := resolveLogged(t, ep); err == nil {
		t.Errorf("auto with no browser running resolved %+v", tg)
	}
}
