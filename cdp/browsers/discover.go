package browsers

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A browser a person started on its own profile is found by the file
// DevToolsActivePort that it writes at the root of its user-data
// directory whenever debugging is on: line 1 the port, line 2 the path of
// the browser's websocket, /devtools/browser/<id>. That holds for a
// browser whose person allowed debugging at chrome://inspect/#remote-debugging
// (which answers 404 on /json/version, so the file is the only way in)
// and for one started with --remote-debugging-port and --user-data-dir.
// The file stays behind when the browser exits: a file whose port does not
// answer is stale.

// activePortFile is the name of the file, at a user-data directory's root.
const activePortFile = "DevToolsActivePort"

// UserDataDir is a browser's user-data directory.
type UserDataDir struct {
	// Browser names the browser for people: "Google Chrome", "Chromium",
	// "Microsoft Edge", "Brave" and their channels.
	Browser string
	// Path is the directory.
	Path string
}

// userDataDirs are the default user-data directories of the
// Chromium-family browsers, per OS, relative to the OS's base directory
// ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support
// on macOS, %LOCALAPPDATA% on Windows), with '/' between the parts.
var userDataDirs = map[string][]UserDataDir{
	"linux": {
		{"Google Chrome", "google-chrome"},
		{"Google Chrome Beta", "google-chrome-beta"},
		{"Google Chrome Dev", "google-chrome-unstable"},
		{"Google Chrome Canary", "google-chrome-canary"},
		{"Chromium", "chromium"},
		{"Microsoft Edge", "microsoft-edge"},
		{"Microsoft Edge Beta", "microsoft-edge-beta"},
		{"Microsoft Edge Dev", "microsoft-edge-dev"},
		{"Brave", "BraveSoftware/Brave-Browser"},
		{"Brave Beta", "BraveSoftware/Brave-Browser-Beta"},
		{"Brave Nightly", "BraveSoftware/Brave-Browser-Nightly"},
	},
	"darwin": {
		{"Google Chrome", "Google/Chrome"},
		{"Google Chrome Beta", "Google/Chrome Beta"},
		{"Google Chrome Dev", "Google/Chrome Dev"},
		{"Google Chrome Canary", "Google/Chrome Canary"},
		{"Chromium", "Chromium"},
		{"Microsoft Edge", "Microsoft Edge"},
		{"Microsoft Edge Beta", "Microsoft Edge Beta"},
		{"Microsoft Edge Dev", "Microsoft Edge Dev"},
		{"Microsoft Edge Canary", "Microsoft Edge Canary"},
		{"Brave", "BraveSoftware/Brave-Browser"},
		{"Brave Beta", "BraveSoftware/Brave-Browser-Beta"},
		{"Brave Nightly", "BraveSoftware/Brave-Browser-Nightly"},
	},
	"windows": {
		{"Google Chrome", "Google/Chrome/User Data"},
		{"Google Chrome Beta", "Google/Chrome Beta/User Data"},
		{"Google Chrome Dev", "Google/Chrome Dev/User Data"},
		{"Google Chrome Canary", "Google/Chrome SxS/User Data"},
		{"Chromium", "Chromium/User Data"},
		{"Microsoft Edge", "Microsoft/Edge/User Data"},
		{"Microsoft Edge Beta", "Microsoft/Edge Beta/User Data"},
		{"Microsoft Edge Dev", "Microsoft/Edge Dev/User Data"},
		{"Microsoft Edge Canary", "Microsoft/Edge SxS/User Data"},
		{"Brave", "BraveSoftware/Brave-Browser/User Data"},
		{"Brave Beta", "BraveSoftware/Brave-Browser-Beta/User Data"},
		{"Brave Nightly", "BraveSoftware/Brave-Browser-Nightly/User Data"},
	},
}

// DefaultUserDataDirs returns the default user-data directories of
// Chrome (stable, beta, dev, canary), Chromium, Edge and Brave on this
// machine, whether or not they exist.
func DefaultUserDataDirs() []UserDataDir {
	home, _ := os.UserHomeDir()
	return userDataDirsFor(runtime.GOOS, os.Getenv, home)
}

// userDataDirsFor is DefaultUserDataDirs for an OS, its environment and
// home directory. Paths use the OS's own separator.
func userDataDirsFor(goos string, getenv func(string) string, home string) []UserDataDir {
	sep, base := "/", ""
	switch goos {
	case "darwin":
		base = home + "/Library/Application Support"
	case "windows":
		sep = `\`
		if base = getenv("LOCALAPPDATA"); base == "" {
			base = home + `\AppData\Local`
		}
	default: // Linux and the other Unixes use the XDG layout
		if base = getenv("XDG_CONFIG_HOME"); base == "" || !path.IsAbs(base) {
			base = home + "/.config"
		}
		goos = "linux"
	}
	var dirs []UserDataDir
	for _, d := range userDataDirs[goos] {
		dirs = append(dirs, UserDataDir{Browser: d.Browser, Path: base + sep + strings.ReplaceAll(d.Path, "/", sep)})
	}
	return dirs
}

// NamedUserDataDir is a directory given by a person (--user-data-dir),
// named after the default directory it is, or "the browser".
func NamedUserDataDir(dir string) UserDataDir {
	clean := filepath.Clean(dir)
	for _, d := range DefaultUserDataDirs() {
		if filepath.Clean(d.Path) == clean {
			return d
		}
	}
	return UserDataDir{Browser: "the browser", Path: clean}
}

// ActivePort is what a browser wrote to its DevToolsActivePort.
type ActivePort struct {
	Dir UserDataDir
	// Port is the debugging port on 127.0.0.1.
	Port int
	// Path is the browser's websocket path, /devtools/browser/<id>.
	Path string
	// Written is when the file was written: when that browser started.
	Written time.Time
}

// WebSocketURL is the browser's websocket address.
func (a ActivePort) WebSocketURL() string {
	return fmt.Sprintf("ws://127.0.0.1:%d%s", a.Port, a.Path)
}

// ReadActivePort reads the DevToolsActivePort of a user-data directory.
// A missing file is an error that wraps fs.ErrNotExist; a file another
// user owns is an error too: its browser is that user's, not to be read
// (a provider run as root with another user's $HOME would find it).
func ReadActivePort(dir UserDataDir) (ActivePort, error) {
	return readActivePort(dir, os.Getuid())
}

// readActivePort is ReadActivePort for a provider run by the user uid.
func readActivePort(dir UserDataDir, uid int) (ActivePort, error) {
	name := filepath.Join(dir.Path, activePortFile)
	f, err := os.Open(name)
	if err != nil {
		return ActivePort{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ActivePort{}, err
	}
	if owner, ok := fileOwner(fi); ok && owner != uid {
		return ActivePort{}, fmt.Errorf("%s is another user's (uid %d): its browser is not read", name, owner)
	}
	sc := bufio.NewScanner(f)
	var lines []string
	for sc.Scan() && len(lines) < 2 {
		lines = append(lines, strings.TrimSpace(sc.Text()))
	}
	if len(lines) < 2 {
		return ActivePort{}, fmt.Errorf("%s: want two lines, a port and a path", name)
	}
	port, err := strconv.Atoi(lines[0])
	if err != nil || port <= 0 || port > 65535 {
		return ActivePort{}, fmt.Errorf("%s: line 1 %q is not a port", name, lines[0])
	}
	if !strings.HasPrefix(lines[1], "/devtools/browser/") {
		return ActivePort{}, fmt.Errorf("%s: line 2 %q is not a browser path", name, lines[1])
	}
	return ActivePort{Dir: dir, Port: port, Path: lines[1], Written: fi.ModTime()}, nil
}

// Found is one DevToolsActivePort, or one port a running browser's
// command line names (FindBrowsers), and what the port answered.
type Found struct {
	ActivePort
	// Live says a browser of that directory listens on the port.
	Live bool
	// Discovery is the status of GET /json/version on the port: 200 for a
	// browser started with a debugging port, 404 for one whose person
	// allowed debugging at chrome://inspect (it answers only the
	// websocket, and asks the person first); 0 when nothing answered.
	Discovery int
	// Why says why a file is not live.
	Why string
	// Pid is the running browser this is, when known: the process whose
	// --remote-debugging-port named the port (FindBrowsers), or whose
	// --user-data-dir holds the file. 0 when not known.
	Pid int
	// Cmdline says the port came from a running browser's command line
	// (--remote-debugging-port), or is one asked where the processes are
	// not known; false: from a DevToolsActivePort.
	Cmdline bool
	// Kind is what the browser is to the person (FindBrowsers), by which
	// auto discovery chooses among those that answer.
	Kind Kind
	// Sign is what makes it a KindAutomation browser: a flag, or where
	// its profile is.
	Sign string
	// headless says its user agent is HeadlessChrome's: a sign of a
	// browser with no windows where its process is not known.
	headless bool
}

// Consent says whether the browser asks the person before each new
// connection: it allows debugging from chrome://inspect, not from a flag.
func (f Found) Consent() bool { return f.Discovery == http.StatusNotFound }

// probeTimeout bounds each question to a port.
const probeTimeout = 2 * time.Second

// Discover reads the DevToolsActivePort of each directory and asks each
// port whether it still answers, all at once. It returns the files found,
// the live ones first, the most recently started first.
func Discover(ctx context.Context, dirs []UserDataDir) []Found {
	return discover(ctx, dirs, Look{})
}

// discover is Discover that never asks a port another user listens on
// (l.Listeners): the browser that wrote the file has exited, and that
// user's took its port.
func discover(ctx context.Context, dirs []UserDataDir, l Look) []Found {
	found := make([]Found, len(dirs))
	ok := make([]bool, len(dirs))
	done := make(chan struct{})
	for i, d := range dirs {
		go func() {
			defer func() { done <- struct{}{} }()
			ap, err := ReadActivePort(d)
			if err != nil {
				return
			}
			ok[i] = true
			if uid, theirs := l.othersPort(ap.Port); theirs {
				found[i] = Found{ActivePort: ap, Why: fmt.Sprintf("another user (%s) listens on port %d now: the browser that wrote the file has exited, and that user's is not read", uid, ap.Port)}
				return
			}
			found[i] = probe(ctx, ap)
		}()
	}
	for range dirs {
		<-done
	}
	var out []Found
	for i := range dirs {
		if ok[i] {
			out = append(out, found[i])
		}
	}
	liveFirst(out)
	return out
}

// liveFirst orders what was found as a read should try it: the live
// browsers first, the most recently started first.
func liveFirst(found []Found) {
	slices.SortStableFunc(found, func(a, b Found) int {
		if a.Live != b.Live {
			if a.Live {
				return -1
			}
			return 1
		}
		return b.Written.Compare(a.Written)
	})
}

// probe asks a file's port whether its browser is there. A port where
// nothing listens, or where another browser answers /json/version with
// another websocket path, makes the file stale. The question never opens
// a websocket, so it never makes a browser ask its person.
func probe(ctx context.Context, ap ActivePort) Found {
	f := Found{ActivePort: ap}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ap.Port))
	if !Listens(ctx, addr) {
		f.Why = fmt.Sprintf("nothing listens on port %d: the browser that wrote the file has exited", ap.Port)
		return f
	}
	v, status, err := getVersion(ctx, "http://"+addr, "", nil)
	f.Discovery = status
	switch {
	case status == http.StatusNotFound:
		f.Live = true // the consent mode: the websocket is the only way in
	case err != nil:
		f.Why = fmt.Sprintf("port %d does not answer as a browser: %v", ap.Port, err)
	case v.WS != "" && !strings.HasSuffix(v.WS, ap.Path):
		f.Why = fmt.Sprintf("port %d is another browser's now", ap.Port)
	default:
		f.Live = true
		f.headless = headlessAgent(v.UserAgent)
	}
	return f
}

// headlessAgent says a browser's user agent is a headless one's.
func headlessAgent(ua string) bool { return strings.Contains(ua, "HeadlessChrome/") }

// getVersion reads /json/version at base (http://host:port), with the
// address's query and header, and returns the HTTP status too, 0 when
// there was no answer.
func getVersion(ctx context.Context, base, query string, header http.Header) (version, int, error) {
	var v version
	status, err := getJSON(ctx, base, "/json/version", query, header, &v)
	return v, status, err
}

// DebuggingAllowed reads the chrome://inspect setting that lets a browser
// on this directory be debugged without a flag: devtools.remote_debugging.
// user-enabled in its Local State. known is false when the file is
// missing or unreadable.
func DebuggingAllowed(dir UserDataDir) (allowed, known bool) {
	b, err := os.ReadFile(filepath.Join(dir.Path, "Local State"))
	if err != nil {
		return false, false
	}
	var ls struct {
		DevTools struct {
			RemoteDebugging struct {
				UserEnabled *bool `json:"user-enabled"`
			} `json:"remote_debugging"`
		} `json:"devtools"`
	}
	if json.Unmarshal(b, &ls) != nil {
		return false, false
	}
	if u := ls.DevTools.RemoteDebugging.UserEnabled; u != nil {
		return *u, true
	}
	return false, true
}

// ErrNoBrowserFound is under the error of auto discovery that found no
// live browser, whose message says what it saw and what to do.
var ErrNoBrowserFound = errors.New("no running browser allows debugging")

// noBrowserError is resolveAuto's error: its message is what to do.
type noBrowserError struct{ msg string }

func (e *noBrowserError) Error() string { return e.msg }

func (e *noBrowserError) Unwrap() error { return ErrNoBrowserFound }

// Listens says whether something accepts a TCP connection at addr
// (host:port) before ctx ends: the first question to a browser's port,
// which opens no websocket and so never makes a browser ask its person.
func Listens(ctx context.Context, addr string) bool {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
