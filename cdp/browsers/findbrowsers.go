package browsers

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A browser started with --remote-debugging-port=N (N > 0) writes no
// DevToolsActivePort: only port 0 does. Auto discovery therefore also
// reads the running browsers' command lines (Linux's /proc, RunningBrowsers)
// and asks each port named there, 127.0.0.1:N, and looks in each running
// browser's own --user-data-dir for its DevToolsActivePort (port 0).
// Where the OS does not tell the processes, it asks the port the README
// names, 9222. Every question is a TCP connection and GET /json/version:
// never a websocket, which a browser that allows debugging from
// chrome://inspect answers by asking its person.

// LaunchedMarker is the file Launch writes at the root of each profile it
// makes, before the browser starts. A browser whose user-data directory
// holds it (or, from a build before the file, whose directory's name
// starts with launchedPrefix) was started by a cdpprovider for itself
// (a --launch run's, a test's), not by a person: auto discovery passes it
// by unless the person names its directory with --user-data-dir, so that
// two providers on one machine, or tests run side by side, never read
// each other's browsers.
const LaunchedMarker = "cdpprovider-launched"

// launchedPrefix begins the name of every profile directory Launch makes.
const launchedPrefix = "cdpprovider-profile-"

// MarkLaunched writes LaunchedMarker into a profile directory, so that
// auto discovery passes its browser by. Launch does it; a program or test
// that starts a browser of its own for itself may do it too.
func MarkLaunched(dir string) error {
	return os.WriteFile(filepath.Join(dir, LaunchedMarker),
		[]byte("a browser started by cdpprovider for itself; auto discovery does not read it\n"), 0o600)
}

// IsLaunched says whether dir is the profile of a browser a cdpprovider
// started for itself (see LaunchedMarker).
func IsLaunched(dir string) bool {
	if dir == "" {
		return false
	}
	if strings.HasPrefix(filepath.Base(dir), launchedPrefix) {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, LaunchedMarker))
	return err == nil
}

// wellKnownPorts are asked on loopback where the running browsers are not
// known: the port the README starts a browser with.
var wellKnownPorts = []int{9222}

// Look is where FindBrowsers looks.
type Look struct {
	// Dirs are the user-data directories whose DevToolsActivePort is
	// read: the default ones, or the one the person named.
	Dirs []UserDataDir
	// Named says the person named Dirs (--user-data-dir): then only
	// running browsers on them count, and a browser a cdpprovider
	// launched is read too (the person asked for it).
	Named bool
	// Running are the browsers' main processes (RunningBrowsers).
	Running []Running
	// RunningKnown is false where the OS does not tell the processes:
	// then Ports are asked instead.
	RunningKnown bool
	// Ports are asked on 127.0.0.1 when !RunningKnown; nil means 9222.
	Ports []int
	// Listeners are the users listening on 127.0.0.1's ports
	// (Listeners); nil where not known. A port another user listens on
	// is never read: its browser is that user's.
	Listeners map[int]UserID
}

// othersPort is another user listening on port; ok is false when none
// does (or it is not known).
func (l Look) othersPort(port int) (u UserID, ok bool) {
	u, ok = l.Listeners[port]
	return u, ok && !u.is(currentUser())
}

// sameDir says whether two directory paths name the same directory, as
// written (cleaned).
func sameDir(a, b string) bool {
	return a != "" && b != "" && filepath.Clean(a) == filepath.Clean(b)
}

// processes are the running browsers that count: not launched by a
// cdpprovider, or when Named, those on a named directory, whoever
// started them.
func (l Look) processes() []Running {
	var out []Running
	for _, r := range l.Running {
		if l.Named {
			if slices.ContainsFunc(l.Dirs, func(d UserDataDir) bool { return sameDir(d.Path, r.UserDataDir) }) {
				out = append(out, r)
			}
			continue
		}
		if !r.Launched {
			out = append(out, r)
		}
	}
	// The earliest first: of two that name one port, the first took it.
	slices.SortStableFunc(out, func(a, b Running) int { return a.Started.Compare(b.Started) })
	return out
}

// LookIn is the user-data directories whose DevToolsActivePort is read:
// Dirs, and unless Named, each running browser's own --user-data-dir
// (not a cdpprovider's).
func (l Look) LookIn() []UserDataDir {
	dirs := slices.Clone(l.Dirs)
	if l.Named {
		return dirs
	}
	for _, r := range l.processes() {
		if r.UserDataDir != "" && !slices.ContainsFunc(dirs, func(d UserDataDir) bool { return sameDir(d.Path, r.UserDataDir) }) {
			dirs = append(dirs, processDir(r))
		}
	}
	return dirs
}

// exeBrowsers name the browsers by their process names, for people.
var exeBrowsers = map[string]string{
	"chromium": "Chromium", "chromium-browser": "Chromium",
	"chrome": "Google Chrome", "google-chrome": "Google Chrome",
	"msedge": "Microsoft Edge", "microsoft-edge": "Microsoft Edge",
	"brave": "Brave", "brave-browser": "Brave", "Brave Browser": "Brave",
	"Brave Browser Beta": "Brave Beta", "Brave Browser Nightly": "Brave Nightly",
}

// processDir is a running browser's user-data directory, named after the
// default directory it is, else after its process.
func processDir(r Running) UserDataDir {
	if r.UserDataDir != "" {
		if d := NamedUserDataDir(r.UserDataDir); d.Browser != "the browser" {
			return d
		}
	}
	name, ok := exeBrowsers[r.Exe]
	if !ok {
		name = r.Exe
	}
	return UserDataDir{Browser: name, Path: r.UserDataDir}
}

// FindBrowsers finds the browsers auto discovery can read, asking every
// port it learns of, all at once: the DevToolsActivePort files of
// l.LookIn(), the --remote-debugging-port of each running browser that
// counts (a live file that names the same port is the same browser, found
// once), and where the processes are not known, l.Ports. It returns what
// it found in the order auto discovery tries it (preferred): the live
// ones first; among them the person's default profile, then a headed
// browser, then one whose process is not known, then an automation
// browser; the most recently started first. A Found from a
// process has its Pid, Written its start; a file whose directory a running
// browser uses has that browser's Pid too.
func FindBrowsers(ctx context.Context, l Look) []Found {
	procs := l.processes()
	var (
		mu     sync.Mutex
		files  []Found
		asked  = map[int]portAnswer{} // port -> its answer
		wg     sync.WaitGroup
		toAsk  []int
		byPort = map[int][]Running{}
	)
	for _, r := range procs {
		if p := r.Port(); p > 0 {
			if _, theirs := l.othersPort(p); len(byPort[p]) == 0 && !theirs {
				toAsk = append(toAsk, p)
			}
			byPort[p] = append(byPort[p], r)
		}
	}
	if !l.RunningKnown {
		ports := l.Ports
		if ports == nil {
			ports = wellKnownPorts
		}
		for _, p := range ports {
			if !slices.Contains(toAsk, p) {
				toAsk = append(toAsk, p)
			}
		}
	}
	wg.Go(func() {
		fs := discover(ctx, l.LookIn(), l)
		mu.Lock()
		files = fs
		mu.Unlock()
	})
	for _, p := range toAsk {
		wg.Go(func() {
			a := askPort(ctx, p)
			mu.Lock()
			asked[p] = a
			mu.Unlock()
		})
	}
	wg.Wait()

	var out []Found
	for _, f := range files {
		if !l.Named && IsLaunched(f.Dir.Path) {
			continue
		}
		for _, r := range procs {
			if sameDir(r.UserDataDir, f.Dir.Path) {
				f.Pid = r.Pid
			}
		}
		out = append(out, f)
	}
	liveFile := func(port int) int {
		return slices.IndexFunc(out, func(f Found) bool { return f.Live && f.Port == port })
	}
	for _, r := range procs {
		if uid, theirs := l.othersPort(r.Port()); r.Port() > 0 && theirs {
			why := fmt.Sprintf("another user (%s) listens on port %d: this browser could not listen there (restart it with another port), and that user's browser is not read", uid, r.Port())
			out = append(out, Found{ActivePort: ActivePort{Dir: processDir(r), Port: r.Port(), Written: r.Started}, Pid: r.Pid, Why: why, Cmdline: true})
		}
	}
	for _, p := range toAsk {
		a := asked[p]
		rs := byPort[p]
		if i := liveFile(p); i >= 0 {
			// The file named the port already: its browser is the one
			// whose directory it is, else the first to name the port.
			if out[i].Pid == 0 && len(rs) > 0 {
				out[i].Pid = rs[0].Pid
			}
			continue
		}
		if len(rs) == 0 { // a well-known port, the processes unknown
			if a.live {
				out = append(out, Found{ActivePort: ActivePort{Dir: UserDataDir{Browser: a.browser}, Port: p, Path: a.path}, Live: true, Discovery: a.status, Cmdline: true, headless: a.headless})
			}
			continue
		}
		for i, r := range rs {
			f := Found{ActivePort: ActivePort{Dir: processDir(r), Port: p, Path: a.path, Written: r.Started}, Pid: r.Pid, Discovery: a.status, Live: a.live && i == 0, Why: a.why, Cmdline: true}
			switch {
			case i > 0 && a.live:
				f.Why = fmt.Sprintf("pid %d, started before it with the same --remote-debugging-port, holds port %d: this one could not listen there (restart it with another port)", rs[0].Pid, p)
				f.Path, f.Discovery = "", 0
			case !a.live && a.status == 0 && elsewhere(r.DebugAddress):
				f.Why = listensElsewhere(r.DebugAddress, p)
			}
			out = append(out, f)
		}
	}
	for i := range out {
		var r *Running
		if j := slices.IndexFunc(procs, func(r Running) bool { return r.Pid == out[i].Pid }); out[i].Pid != 0 && j >= 0 {
			r = &procs[j]
		}
		out[i].Kind, out[i].Sign = l.kindOf(out[i], r)
	}
	preferred(out)
	return out
}

// elsewhere says whether a --remote-debugging-address keeps the port off
// 127.0.0.1.
func elsewhere(addr string) bool {
	switch addr {
	case "", "127.0.0.1", "0.0.0.0", "localhost", "::", "[::]":
		return false
	}
	return true
}

// listensElsewhere says where a browser started with
// --remote-debugging-address=addr listens, and how to connect to it.
func listensElsewhere(addr string, port int) string {
	at := net.JoinHostPort(strings.Trim(addr, "[]"), strconv.Itoa(port))
	how := "connect with --connect http://" + at
	if !IsLoopback(strings.Trim(addr, "[]")) {
		how += " --allow-remote"
	}
	return fmt.Sprintf("it listens on %s only (--remote-debugging-address=%s), not on 127.0.0.1: %s", at, addr, how)
}

// portAnswer is what a port named on a command line answered.
type portAnswer struct {
	live bool
	// status is that of GET /json/version, 0 when nothing answered.
	status int
	// path is the browser's websocket path, when live.
	path string
	// browser names the browser, when live.
	browser string
	// headless says its user agent is a headless one's, when live.
	headless bool
	// why says why the port is not live.
	why string
}

// askPort asks 127.0.0.1:port whether a browser started with a debugging
// port listens there: a TCP connection, then GET /json/version, never a
// websocket. A browser that answers 404 allows debugging from
// chrome://inspect, and only its DevToolsActivePort names its websocket.
func askPort(ctx context.Context, port int) portAnswer {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if !Listens(ctx, addr) {
		return portAnswer{why: fmt.Sprintf("nothing listens on port %d: it may have been taken when the browser started (the browser then runs without debugging: restart it with a free port), or the browser is still starting", port)}
	}
	v, status, err := getVersion(ctx, "http://"+addr, "", nil)
	a := portAnswer{status: status}
	w, perr := url.Parse(v.WS)
	switch {
	case status == http.StatusNotFound:
		a.why = fmt.Sprintf("port %d answers 404 on /json/version, as a browser that allows debugging from chrome://inspect does: its DevToolsActivePort names its websocket", port)
	case err != nil:
		a.why = fmt.Sprintf("port %d does not answer as a browser: %v", port, err)
	case perr != nil || !strings.HasPrefix(w.Path, "/devtools/browser/"):
		a.why = fmt.Sprintf("port %d gave no browser websocket address", port)
	default:
		a.live, a.path = true, w.Path
		a.browser = ProductName(strings.Split(v.Browser, "/")[0], "", nil)
		a.headless = headlessAgent(v.UserAgent)
	}
	return a
}

// where names a found browser for a log or a message: its browser, its
// directory when known, its process when known.
func (f Found) where() string {
	s := f.Dir.Browser
	if f.Dir.Path != "" {
		s += " " + f.Dir.Path
	}
	if f.Pid != 0 {
		s += fmt.Sprintf(" (pid %d)", f.Pid)
	}
	return s
}
