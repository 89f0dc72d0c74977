package browsers

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// appPaths are where the browsers install outside PATH, per OS.
var appPaths = map[string][]string{
	"darwin": {
		"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
		"/Applications/Google Chrome Beta.app/Contents/MacOS/Google Chrome Beta",
		"/Applications/Google Chrome Dev.app/Contents/MacOS/Google Chrome Dev",
		"/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary",
		"/Applications/Chromium.app/Contents/MacOS/Chromium",
		"/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
		"/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
	},
	"windows": {
		`C:\Program Files\Google\Chrome\Application\chrome.exe`,
		`C:\Program Files (x86)\Google\Chrome\Application\chrome.exe`,
		`C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`,
		`C:\Program Files\BraveSoftware\Brave-Browser\Application\brave.exe`,
	},
}

// InstalledBrowsers returns the Chromium-family browsers found on PATH
// (the names FindChrome tries) and in the OS's usual places.
func InstalledBrowsers() []string {
	var out []string
	for _, name := range chromeNames {
		if p, err := exec.LookPath(name); err == nil && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, p := range appPaths[runtime.GOOS] {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Running is one browser process running (its main process, not a
// renderer or helper), run by the provider's user.
type Running struct {
	Pid int
	// Exe is the executable's base name: chromium, chrome, msedge, brave.
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

// browserExes are the process names of the Chromium-family browsers.
var browserExes = []string{"chromium", "chromium-browser", "chrome", "google-chrome", "msedge", "microsoft-edge", "brave", "brave-browser"}

// RunningBrowsers lists the browsers' main processes that the provider's
// user runs: another user's browser is never read, even with a debugging
// port anyone on the machine can reach. known is false where the OS
// gives no way to tell here (only Linux's /proc is read).
func RunningBrowsers() (running []Running, known bool) {
	if runtime.GOOS != "linux" {
		return nil, false
	}
	return runningFrom(procDir("/proc"), os.Getuid()), true
}

// Listeners returns the user id of the socket listening on each TCP
// port of 127.0.0.1, nil where the OS gives no way to tell here (only
// Linux's /proc is read): a port another user listens on is that user's
// browser's, whichever of the provider's user's browsers names it (two
// people on one machine who both start a browser with
// --remote-debugging-port=9222: the second one's cannot listen there).
func Listeners() map[int]int {
	if runtime.GOOS != "linux" {
		return nil
	}
	return procDir("/proc").listeners()
}

// runningFrom lists the browsers' main processes of a processes source
// whose real and effective user is uid.
func runningFrom(src processes, uid int) []Running {
	isBrowser := func(args []string) bool { return slices.Contains(browserExes, filepath.Base(args[0])) }
	var out []Running
	for _, p := range src.list(isBrowser) {
		if p.uid != uid || p.euid != uid {
			continue
		}
		r := Running{Pid: p.pid, Exe: filepath.Base(p.args[0]), Started: p.started}
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
