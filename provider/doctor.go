package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cdpprovider/cdpprovider/cdp"
)

// errNothingToRead is doctor's outcome when no browser can be read yet.
var errNothingToRead = errors.New("no browser can be read yet")

// doctor tells a person what cdpprovider sees of the browsers on this
// machine, and the one next step that would make --connect auto work. It
// never opens a websocket, so it never makes a browser ask its person.
// It returns errNothingToRead when no browser can be read.
func doctor(ctx context.Context, cfg Config, stdout io.Writer) error {
	return report(stdout, look(ctx, cfg))
}

// sight is what doctor sees.
type sight struct {
	dirs         []cdp.UserDataDir // looked in
	installed    []string
	running      []cdp.Running
	runningKnown bool
	found        []cdp.Found
}

// look gathers what doctor reports, asking no browser for a websocket.
func look(ctx context.Context, cfg Config) sight {
	var s sight
	s.dirs = cdp.DefaultUserDataDirs()
	if cfg.UserDataDir != "" {
		s.dirs = []cdp.UserDataDir{cdp.NamedUserDataDir(cfg.UserDataDir)}
	}
	s.installed = cdp.InstalledBrowsers()
	s.running, s.runningKnown = cdp.RunningBrowsers()
	if cfg.UserDataDir == "" {
		// A browser a person started with a directory of its own is
		// found there too (--user-data-dir DIR then picks it).
		for _, r := range s.running {
			if r.UserDataDir != "" && !slices.ContainsFunc(s.dirs, func(d cdp.UserDataDir) bool { return d.Path == r.UserDataDir }) {
				s.dirs = append(s.dirs, cdp.UserDataDir{Browser: r.Exe + " with --user-data-dir", Path: r.UserDataDir})
			}
		}
	}
	s.found = cdp.Discover(ctx, s.dirs)
	return s
}

// report prints what doctor saw and the next step; errNothingToRead when
// no browser can be read.
func report(stdout io.Writer, s sight) error {
	dirs, installed, running, runningKnown, found := s.dirs, s.installed, s.running, s.runningKnown, s.found
	w := &lines{w: stdout}

	w.say("Installed:")
	if len(installed) == 0 {
		w.say("  no Chromium-family browser found on PATH or in the usual places")
	}
	for _, p := range installed {
		w.say("  %s", p)
	}

	w.say("Running:")
	switch {
	case !runningKnown:
		w.say("  (not checked on this OS)")
	case len(running) == 0:
		w.say("  no Chromium-family browser")
	}
	for _, r := range running {
		profile := "its default profile"
		if r.UserDataDir != "" {
			profile = r.UserDataDir
		}
		line := fmt.Sprintf("  %s (pid %d) on %s", r.Exe, r.Pid, profile)
		if r.DebugPort != "" {
			line += ", --remote-debugging-port=" + r.DebugPort
		}
		w.say("%s", line)
	}

	w.say("User-data directories:")
	seen := 0
	var allowedIdle []cdp.UserDataDir // the setting is on, and no live file
	for _, d := range dirs {
		if fi, err := os.Stat(d.Path); err != nil || !fi.IsDir() {
			continue
		}
		seen++
		w.say("  %s: %s", d.Browser, d.Path)
		var f *cdp.Found
		for i := range found {
			if found[i].Dir.Path == d.Path {
				f = &found[i]
			}
		}
		switch {
		case f == nil:
			w.say("    DevToolsActivePort: none (debugging is off, or the browser is not running)")
		case f.Live:
			w.say("    DevToolsActivePort: port %d, live", f.Port)
		default:
			w.say("    DevToolsActivePort: port %d, stale: %s", f.Port, f.Why)
		}
		if f != nil && f.Live {
			switch f.Discovery {
			case http.StatusOK:
				w.say("    /json/version: answers (started with a debugging port)")
			case http.StatusNotFound:
				w.say("    /json/version: 404 (debugging allowed at chrome://inspect: the browser asks before it lets a connection in)")
			default:
				w.say("    /json/version: no answer")
			}
		}
		allowed, known := cdp.DebuggingAllowed(d)
		switch {
		case !known:
			w.say("    chrome://inspect setting: unknown (no Local State)")
		case allowed:
			w.say("    chrome://inspect setting: on")
		default:
			w.say("    chrome://inspect setting: off")
		}
		if allowed && (f == nil || !f.Live) {
			allowedIdle = append(allowedIdle, d)
		}
	}
	if seen == 0 {
		w.say("  none of %s exists", describeDirs(dirs))
	}

	next, ok := nextStep(found, running, allowedIdle, installed)
	w.say("")
	w.say("Next step: %s", next)
	if w.err != nil {
		return w.err
	}
	if !ok {
		return errNothingToRead
	}
	return nil
}

// nextStep is the one thing to do next, and whether a browser can be
// read already.
func nextStep(found []cdp.Found, running []cdp.Running, allowedIdle []cdp.UserDataDir, installed []string) (string, bool) {
	if len(found) > 0 && found[0].Live {
		f := found[0]
		s := fmt.Sprintf("none, it works now: `cdpprovider serve` (or `cdpprovider current`) reads %s on port %d", f.Dir.Browser, f.Port)
		if !slices.ContainsFunc(cdp.DefaultUserDataDirs(), func(d cdp.UserDataDir) bool { return d.Path == f.Dir.Path }) {
			s = fmt.Sprintf("none, it works now: `cdpprovider serve --user-data-dir %s` reads %s on port %d", f.Dir.Path, f.Dir.Browser, f.Port)
		}
		if f.Consent() {
			s += fmt.Sprintf("; %s will ask \"Allow remote debugging?\" when cdpprovider first connects: click Allow", f.Dir.Browser)
		}
		return s, true
	}
	if len(allowedIdle) > 0 && len(running) > 0 {
		return fmt.Sprintf("restart %s: remote debugging is allowed in its profile (%s) but it is not listening", allowedIdle[0].Browser, allowedIdle[0].Path), false
	}
	if len(running) > 0 {
		return fmt.Sprintf("in the running %s open chrome://inspect/#remote-debugging and allow remote debugging (Chrome 144 or later); "+
			"or restart it with --remote-debugging-port=9222 --user-data-dir=DIR (a directory other than its default profile)", running[0].Exe), false
	}
	if len(allowedIdle) > 0 {
		return fmt.Sprintf("start %s: remote debugging is allowed in its profile, so cdpprovider will find it", allowedIdle[0].Browser), false
	}
	if len(installed) > 0 {
		return fmt.Sprintf("start %s and open chrome://inspect/#remote-debugging to allow remote debugging; "+
			"or start it as `%s --remote-debugging-port=9222 --user-data-dir=DIR`", filepath.Base(installed[0]), installed[0]), false
	}
	return "install a Chromium-family browser (Debian/Ubuntu: apt-get install chromium), or let cdpprovider start one with --launch", false
}

// describeDirs names the directories looked in, briefly.
func describeDirs(dirs []cdp.UserDataDir) string {
	if len(dirs) == 1 {
		return dirs[0].Path
	}
	return fmt.Sprintf("the %d default user-data directories (%s, …)", len(dirs), dirs[0].Path)
}

// lines writes lines, keeping the first error.
type lines struct {
	w   io.Writer
	err error
}

func (l *lines) say(format string, args ...any) {
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, strings.TrimRight(format, "\n")+"\n", args...)
	}
}
