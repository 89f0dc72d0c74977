package browsers

import (
	"bytes"
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
// renderer or helper).
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
	boot := bootTime(proc)
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
			case strings.HasPrefix(a, "--remote-debugging-address="):
				r.DebugAddress = strings.TrimPrefix(a, "--remote-debugging-address=")
			}
		}
		if helper {
			continue
		}
		if r.UserDataDir != "" {
			// A relative directory is the process's working directory's.
			if !filepath.IsAbs(r.UserDataDir) {
				if cwd, err := os.Readlink(filepath.Join(proc, e.Name(), "cwd")); err == nil {
					r.UserDataDir = filepath.Join(cwd, r.UserDataDir)
				}
			}
			r.UserDataDir = filepath.Clean(r.UserDataDir)
			r.Launched = IsLaunched(r.UserDataDir)
		}
		r.Started = startTime(filepath.Join(proc, e.Name()), boot)
		out = append(out, r)
	}
	return out
}

// userHZ is the unit of a process's start time in /proc/PID/stat: the
// kernel's USER_HZ, 100 on every architecture Linux runs browsers on.
const userHZ = 100

// bootTime reads when the machine booted (btime of /proc/stat); zero
// when it cannot.
func bootTime(proc string) time.Time {
	b, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return time.Time{}
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			if s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(s, 0)
			}
		}
	}
	return time.Time{}
}

// startTime is when the process of a /proc/PID directory started: boot
// plus field 22 of its stat (in USER_HZ ticks); else the directory's
// modification time, which is close to it.
func startTime(dir string, boot time.Time) time.Time {
	if b, err := os.ReadFile(filepath.Join(dir, "stat")); err == nil && !boot.IsZero() {
		// The command name, field 2, is in parentheses and may hold
		// spaces: count the fields after its closing one (field 3 on).
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			f := strings.Fields(string(b[i+1:]))
			if len(f) > 19 {
				if ticks, err := strconv.ParseInt(f[19], 10, 64); err == nil {
					return boot.Add(time.Duration(ticks) * time.Second / userHZ)
				}
			}
		}
	}
	if fi, err := os.Stat(dir); err == nil {
		return fi.ModTime()
	}
	return time.Time{}
}
