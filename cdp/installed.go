package cdp

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
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
// renderer or helper).
type Running struct {
	Pid int
	// Exe is the executable's base name: chromium, chrome, msedge, brave.
	Exe string
	// UserDataDir is its --user-data-dir, empty for the default.
	UserDataDir string
	// DebugPort is its --remote-debugging-port, empty when not given.
	DebugPort string
}

// browserExes are the process names of the Chromium-family browsers.
var browserExes = []string{"chromium", "chromium-browser", "chrome", "google-chrome", "msedge", "microsoft-edge", "brave", "brave-browser"}

// RunningBrowsers lists the browsers' main processes. known is false
// where the OS gives no way to tell here (only Linux's /proc is read).
func RunningBrowsers() (running []Running, known bool) {
	if runtime.GOOS != "linux" {
		return nil, false
	}
	return runningFrom("/proc"), true
}

// runningFrom reads the processes of a /proc directory.
func runningFrom(proc string) []Running {
	entries, err := os.ReadDir(proc)
	if err != nil {
		return nil
	}
	var out []Running
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(proc, e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 {
			continue
		}
		args := strings.Split(string(bytes.TrimRight(raw, "\x00")), "\x00")
		exe := filepath.Base(args[0])
		if !slices.Contains(browserExes, exe) {
			continue
		}
		r := Running{Pid: pid, Exe: exe}
		helper := false
		for _, a := range args[1:] {
			switch {
			case strings.HasPrefix(a, "--type="):
				helper = true
			case strings.HasPrefix(a, "--user-data-dir="):
				r.UserDataDir = strings.TrimPrefix(a, "--user-data-dir=")
			case strings.HasPrefix(a, "--remote-debugging-port="):
				r.DebugPort = strings.TrimPrefix(a, "--remote-debugging-port=")
			}
		}
		if !helper {
			out = append(out, r)
		}
	}
	return out
}
