package browsers

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	psprocess "github.com/shirou/gopsutil/v4/process"
)

// A system is what the search for installed browsers looks at: an OS
// (runtime.GOOS's names), its environment and its files. The search
// takes it as parameters, so that a test on one system runs another's.
type system struct {
	goos   string
	getenv func(string) string
	// isExec says whether a path, written as goos writes it, is an
	// executable file there.
	isExec func(path string) bool
}

// thisSystem is the system the provider runs on.
func thisSystem() system { return system{runtime.GOOS, os.Getenv, isExecutable} }

// isExecutable says whether path is a regular file this OS would run:
// one with an execute bit, or on Windows any (PATHEXT names the kinds;
// the search names .exe files only).
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0
}

// pathNames are the executables FindChrome looks for on PATH, per OS, in
// order; "linux" stands for every Unix but macOS.
var pathNames = map[string][]string{
	"linux": {
		"chromium", "chromium-browser",
		"google-chrome", "google-chrome-stable", "google-chrome-beta", "google-chrome-unstable", "google-chrome-canary",
		"microsoft-edge", "microsoft-edge-stable", "microsoft-edge-beta", "microsoft-edge-dev",
		"brave-browser", "brave-browser-beta", "brave-browser-nightly",
	},
	"darwin":  {"chromium", "google-chrome", "microsoft-edge", "brave-browser"},
	"windows": {"chrome.exe", "msedge.exe", "brave.exe", "chromium.exe"},
}

// An installPlace is where one browser installs outside PATH: its
// executable's path under a base directory, one of the bases below
// (system-wide or per-user), or absolute when base is "".
type installPlace struct {
	browser string
	base    string
	// rel is the executable's path under base, '/' between its parts.
	rel string
}

// The base directories of installPlace, resolved by placeBase.
const (
	baseHome         = "$HOME"               // the home directory (%USERPROFILE% on Windows)
	baseProgramFiles = "%ProgramFiles%"      // C:\Program Files
	baseProgramX86   = "%ProgramFiles(x86)%" // C:\Program Files (x86)
	baseLocalAppData = "%LOCALAPPDATA%"      // %USERPROFILE%\AppData\Local: per-user installs
)

// installPlaces are where Chrome (stable, beta, dev, canary), Chromium,
// Edge and Brave install, per OS, in the order FindChrome tries them. One
// table serves FindChrome and doctor's list (InstalledBrowsers).
var installPlaces = map[string][]installPlace{
	"linux": {
		{"Google Chrome", "", "/opt/google/chrome/chrome"},
		{"Google Chrome Beta", "", "/opt/google/chrome-beta/chrome"},
		{"Google Chrome Dev", "", "/opt/google/chrome-unstable/chrome"},
		{"Chromium", "", "/snap/bin/chromium"},
		{"Microsoft Edge", "", "/opt/microsoft/msedge/msedge"},
		{"Microsoft Edge Beta", "", "/opt/microsoft/msedge-beta/msedge"},
		{"Microsoft Edge Dev", "", "/opt/microsoft/msedge-dev/msedge"},
		{"Brave", "", "/opt/brave.com/brave/brave"},
		{"Brave Beta", "", "/opt/brave.com/brave-beta/brave"},
		{"Brave Nightly", "", "/opt/brave.com/brave-nightly/brave"},
	},
	"darwin":  macPlaces(),
	"windows": windowsPlaces(),
}

// macPlaces are each browser's app bundle in /Applications, then in
// ~/Applications (a person's own).
func macPlaces() []installPlace {
	var out []installPlace
	for _, app := range []string{
		"Google Chrome", "Google Chrome Beta", "Google Chrome Dev", "Google Chrome Canary",
		"Chromium",
		"Microsoft Edge", "Microsoft Edge Beta", "Microsoft Edge Dev", "Microsoft Edge Canary",
		"Brave Browser", "Brave Browser Beta", "Brave Browser Nightly",
	} {
		rel := "Applications/" + app + ".app/Contents/MacOS/" + app
		out = append(out, installPlace{app, "", "/" + rel}, installPlace{app, baseHome, rel})
	}
	return out
}

// windowsPlaces are each browser's Application directory under Program
// Files (64-bit, then 32-bit: a system-wide install) and under
// %LOCALAPPDATA% (a per-user install: Chrome installed without an
// administrator, Canary always, Chromium's own installer).
func windowsPlaces() []installPlace {
	var out []installPlace
	for _, b := range []struct{ browser, dir, exe string }{
		{"Google Chrome", `Google/Chrome`, "chrome.exe"},
		{"Google Chrome Beta", `Google/Chrome Beta`, "chrome.exe"},
		{"Google Chrome Dev", `Google/Chrome Dev`, "chrome.exe"},
		{"Google Chrome Canary", `Google/Chrome SxS`, "chrome.exe"},
		{"Chromium", `Chromium`, "chrome.exe"},
		{"Microsoft Edge", `Microsoft/Edge`, "msedge.exe"},
		{"Microsoft Edge Beta", `Microsoft/Edge Beta`, "msedge.exe"},
		{"Microsoft Edge Dev", `Microsoft/Edge Dev`, "msedge.exe"},
		{"Microsoft Edge Canary", `Microsoft/Edge SxS`, "msedge.exe"},
		{"Brave", `BraveSoftware/Brave-Browser`, "brave.exe"},
		{"Brave Beta", `BraveSoftware/Brave-Browser-Beta`, "brave.exe"},
		{"Brave Nightly", `BraveSoftware/Brave-Browser-Nightly`, "brave.exe"},
	} {
		rel := b.dir + "/Application/" + b.exe
		for _, base := range []string{baseProgramFiles, baseProgramX86, baseLocalAppData} {
			out = append(out, installPlace{b.browser, base, rel})
		}
	}
	return out
}

// tableOS is the key of an OS in the tables: every Unix but macOS uses
// Linux's.
func tableOS(goos string) string {
	if goos == "darwin" || goos == "windows" {
		return goos
	}
	return "linux"
}

// sep is the OS's path separator.
func (s system) sep() string {
	if s.goos == "windows" {
		return `\`
	}
	return "/"
}

// join joins a directory and a path with '/' between its parts, as the
// OS writes paths.
func (s system) join(dir, rel string) string {
	sep := s.sep()
	return strings.TrimRight(dir, sep) + sep + strings.ReplaceAll(rel, "/", sep)
}

// home is the home directory: %USERPROFILE% on Windows, else $HOME.
func (s system) home() string {
	if s.goos == "windows" {
		return s.getenv("USERPROFILE")
	}
	return s.getenv("HOME")
}

// placeBase is the directory a base stands for, "" when the environment
// does not tell it. Program Files stands at its usual place when the
// variable is not set.
func (s system) placeBase(base string) string {
	switch base {
	case baseHome:
		return s.home()
	case baseProgramFiles:
		if d := s.getenv("ProgramFiles"); d != "" {
			return d
		}
		return `C:\Program Files`
	case baseProgramX86:
		if d := s.getenv("ProgramFiles(x86)"); d != "" {
			return d
		}
		return `C:\Program Files (x86)`
	case baseLocalAppData:
		if d := s.getenv("LOCALAPPDATA"); d != "" {
			return d
		}
		if h := s.home(); h != "" {
			return s.join(h, "AppData/Local")
		}
	}
	return ""
}

// places are the paths of the OS's install places, in order.
func (s system) places() []string {
	var out []string
	for _, p := range installPlaces[tableOS(s.goos)] {
		switch {
		case p.base == "":
			out = append(out, p.rel)
		case s.placeBase(p.base) != "":
			out = append(out, s.join(s.placeBase(p.base), p.rel))
		}
	}
	return out
}

// onPath are, for each of pathNames in order, its paths in each
// directory of PATH, in order; relative directories are passed by (a
// browser is never run from wherever the provider was started).
func (s system) onPath() [][]string {
	list := ":"
	if s.goos == "windows" {
		list = ";"
	}
	var out [][]string
	for _, name := range pathNames[tableOS(s.goos)] {
		var paths []string
		for _, dir := range strings.Split(s.getenv("PATH"), list) {
			dir = strings.Trim(dir, `"`)
			if s.isAbs(dir) {
				paths = append(paths, s.join(dir, name))
			}
		}
		out = append(out, paths)
	}
	return out
}

// isAbs says whether path is absolute on the OS: C:\… or \\server\… on
// Windows, /… elsewhere.
func (s system) isAbs(path string) bool {
	if s.goos != "windows" {
		return strings.HasPrefix(path, "/")
	}
	if strings.HasPrefix(path, `\\`) {
		return true
	}
	return len(path) >= 3 && path[1] == ':' && (path[2] == '\\' || path[2] == '/')
}

// installed are the browsers found on PATH (each of pathNames in the
// first directory that holds it, as a shell finds it: /bin and /usr/bin
// are often one directory), then in the install places, each once, in
// the order FindChrome tries them.
func (s system) installed() []string {
	var out []string
	add := func(p string) bool {
		if !s.isExec(p) {
			return false
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
		return true
	}
	for _, paths := range s.onPath() {
		for _, p := range paths {
			if add(p) {
				break
			}
		}
	}
	for _, p := range s.places() {
		add(p)
	}
	return out
}

// installAdvice names what to install on each OS, and how.
var installAdvice = map[string]string{
	"linux": "Debian/Ubuntu: apt-get install chromium; Fedora: dnf install chromium; " +
		"or Google Chrome, Microsoft Edge or Brave from their sites",
	"darwin": "Google Chrome from https://www.google.com/chrome/, or with Homebrew: " +
		"brew install --cask google-chrome (microsoft-edge, brave-browser, chromium)",
	"windows": "Google Chrome from https://www.google.com/chrome/, or: winget install Google.Chrome; " +
		"Microsoft Edge comes with Windows, and winget install Microsoft.Edge puts it back",
}

// InstallAdvice names what to install on this OS for --launch and
// doctor to find a browser, and how, for a sentence to hold in
// parentheses: on Linux "Debian/Ubuntu: apt-get install chromium; …".
func InstallAdvice() string { return installAdvice[tableOS(runtime.GOOS)] }

// InstalledBrowsers returns the Chromium-family browsers found on PATH
// (the names FindChrome tries) and in the OS's install places, system
// and per-user, in the order FindChrome tries them.
func InstalledBrowsers() []string { return thisSystem().installed() }

// Running is one browser process running (its main process, not a
// renderer or helper), run by the provider's user.
type Running struct {
	Pid int
	// Exe is the executable's name (exeName): chromium, chrome, msedge,
	// brave, Google Chrome, Microsoft Edge, Brave Browser.
	Exe string
	// UserDataDir is its --user-data-dir, empty for the default.
	UserDataDir string
	// DebugPort is its --remote-debugging-port, empty when not given.
	DebugPort string
	// DebugAddress is its --remote-debugging-address, empty when not
	// given (127.0.0.1).
	DebugAddress string
	// Launched says a cdpprovider started it for itself (IsLaunched of
	// its user-data directory): not a person's browser.
	Launched bool
	// Headless says it shows no windows (--headless).
	Headless bool
	// Automation says a program started it to drive it
	// (--enable-automation, which chromedriver, Puppeteer and Playwright
	// pass).
	Automation bool
	// Started is when the process started; zero when not known.
	Started time.Time
}

// Port is its --remote-debugging-port as a number, 0 when not given,
// not a number, or 0 (a port the browser picks, written only to its
// DevToolsActivePort).
func (r Running) Port() int {
	n, err := strconv.Atoi(r.DebugPort)
	if err != nil || n < 0 || n > 65535 {
		return 0
	}
	return n
}

// browserExes are the executables' names of the Chromium-family
// browsers' processes (exeName): Linux's, Windows' (chrome.exe,
// msedge.exe, brave.exe) and macOS's (the app's name).
var browserExes = []string{
	"chromium", "chromium-browser", "chrome", "google-chrome", "msedge", "microsoft-edge", "brave", "brave-browser",
	"Google Chrome", "Google Chrome Beta", "Google Chrome Dev", "Google Chrome Canary", "Chromium",
	"Microsoft Edge", "Microsoft Edge Beta", "Microsoft Edge Dev", "Microsoft Edge Canary",
	"Brave Browser", "Brave Browser Beta", "Brave Browser Nightly",
}

// exeName is the name of a process's executable from its first
// argument, whichever system's path it is (Windows' '\\' too); a
// Windows name without its .exe and in lower case, as Windows' names are
// case-insensitive (MSEDGE.EXE is msedge).
func exeName(arg0 string) string {
	if i := strings.LastIndexAny(arg0, `/\`); i >= 0 {
		arg0 = arg0[i+1:]
	}
	if lower := strings.ToLower(arg0); strings.HasSuffix(lower, ".exe") {
		return strings.TrimSuffix(lower, ".exe")
	}
	return arg0
}

// RunningBrowsers lists the browsers' main processes that the provider's
// user runs: another user's browser is never read, even with a debugging
// port anyone on the machine can reach. known is false where the OS
// gives no way to tell (gopsutil cannot list its processes).
func RunningBrowsers() (running []Running, known bool) {
	if _, err := psprocess.Pids(); err != nil {
		return nil, false
	}
	return runningFrom(osProcesses{}, currentUser()), true
}

// Listeners returns who listens on each TCP port of 127.0.0.1, nil
// where the OS gives no way to tell here (Linux reads /proc/net/tcp,
// Windows its TCP table; macOS shows a user only their own sockets): a
// port another user listens on is that user's browser's, whichever of
// the provider's user's browsers names it (two people on one machine
// who both start a browser with --remote-debugging-port=9222: the second
// one's cannot listen there).
func Listeners() map[int]UserID { return osProcesses{}.listeners() }

// runningFrom lists the browsers' main processes of a processes source
// that the user me runs (process.runs).
func runningFrom(src processes, me UserID) []Running {
	isBrowser := func(args []string) bool { return slices.Contains(browserExes, exeName(args[0])) }
	var out []Running
	for _, p := range src.list(isBrowser) {
		if !p.runs(me) {
			continue
		}
		r := Running{Pid: p.pid, Exe: exeName(p.args[0]), Started: p.started}
		helper := false
		for _, a := range p.args[1:] {
			switch {
			case strings.HasPrefix(a, "--type="):
				helper = true
			case strings.HasPrefix(a, "--user-data-dir="):
				r.UserDataDir = strings.TrimPrefix(a, "--user-data-dir=")
			case strings.HasPrefix(a, "--remote-debugging-port="):
				r.DebugPort = strings.TrimPrefix(a, "--remote-debugging-port=")
			case strings.HasPrefix(a, "--remote-debugging-address="):
				r.DebugAddress = strings.TrimPrefix(a, "--remote-debugging-address=")
			case a == "--headless" || strings.HasPrefix(a, "--headless="):
				r.Headless = true
			case a == "--enable-automation":
				r.Automation = true
			}
		}
		if helper {
			continue
		}
		if r.UserDataDir != "" {
			// A relative directory is the process's working directory's.
			if !filepath.IsAbs(r.UserDataDir) && p.cwd != "" {
				r.UserDataDir = filepath.Join(p.cwd, r.UserDataDir)
			}
			r.UserDataDir = filepath.Clean(r.UserDataDir)
			r.Launched = IsLaunched(r.UserDataDir)
		}
		out = append(out, r)
	}
	return out
}
