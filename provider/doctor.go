package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
)

// errNothingToRead is doctor's outcome when no browser can be read yet.
var errNothingToRead = errors.New("no browser can be read yet")

// doctor tells a person what cdpprovider sees of the browsers on this
// machine, and the one next step that would make --connect auto work. It
// never opens a websocket, so it never makes a browser ask its person.
// It returns errNothingToRead when no browser can be read.
func doctor(ctx context.Context, cfg Config, stdout io.Writer) error {
	return report(stdout, look(ctx, cfg, browsers.RunningBrowsers))
}

// sight is what doctor sees.
type sight struct {
	dirs         []browsers.UserDataDir // looked in
	installed    []string
	running      []browsers.Running
	runningKnown bool
	// found is what auto discovery finds (browsers.FindBrowsers): every port
	// a DevToolsActivePort or a running browser's command line names,
	// asked.
	found []browsers.Found
	// auto is the browser `cdpprovider serve` with no flag reads, when
	// it reads one: found[0] unless a directory was named.
	auto *browsers.Found
}

// look gathers what doctor reports, asking no browser for a websocket;
// running lists the browsers running (browsers.RunningBrowsers).
func look(ctx context.Context, cfg Config, running func() ([]browsers.Running, bool)) sight {
	var s sight
	l := browsers.Look{Dirs: browsers.DefaultUserDataDirs()}
	if cfg.UserDataDir != "" {
		l.Dirs, l.Named = []browsers.UserDataDir{browsers.NamedUserDataDir(cfg.UserDataDir)}, true
	}
	s.installed = browsers.InstalledBrowsers()
	s.running, s.runningKnown = running()
	l.Running, l.RunningKnown = s.running, s.runningKnown
	l.Listeners = browsers.Listeners()
	// A browser a person started with a directory of its own is found
	// there too.
	s.dirs = l.LookIn()
	s.found = browsers.FindBrowsers(ctx, l)
	if l.Named {
		l.Dirs, l.Named = browsers.DefaultUserDataDirs(), false
		s.auto = live(browsers.FindBrowsers(ctx, l))
	} else {
		s.auto = live(s.found)
	}
	return s
}

// live is the browser auto reads among found, nil when none answers.
func live(found []browsers.Found) *browsers.Found {
	if len(found) > 0 && found[0].Live {
		return &found[0]
	}
	return nil
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
		if r.DebugAddress != "" {
			line += ", --remote-debugging-address=" + r.DebugAddress
		}
		if r.Launched {
			line += " (launched by cdpprovider for itself: not read)"
		}
		w.say("%s", line)
		if f := portOf(found, r); f != nil {
			if f.Live {
				w.say("    port %d: answers (%s)", f.Port, f.Reason())
			} else {
				w.say("    port %d: does not answer: %s", f.Port, f.Why)
			}
		}
	}
	if !runningKnown {
		for _, f := range found {
			if f.Cmdline && f.Live {
				w.say("  %s answers on port %d", f.Dir.Browser, f.Port)
			}
		}
	}

	w.say("User-data directories:")
	seen := 0
	var allowedIdle []browsers.UserDataDir // the setting is on, and no live file
	for _, d := range dirs {
		if fi, err := os.Stat(d.Path); err != nil || !fi.IsDir() {
			continue
		}
		seen++
		w.say("  %s: %s", d.Browser, d.Path)
		var f *browsers.Found
		for i := range found {
			if found[i].Dir.Path == d.Path && !found[i].Cmdline {
				f = &found[i]
			}
		}
		_, readErr := browsers.ReadActivePort(d)
		switch {
		case f == nil && readErr != nil && !errors.Is(readErr, fs.ErrNotExist):
			// Another user's file, or one that is no DevToolsActivePort.
			w.say("    DevToolsActivePort: not read: %v", readErr)
		case f == nil && portOn(running, d.Path) > 0:
			w.say("    DevToolsActivePort: none (a browser started with --remote-debugging-port=%d writes none; its port is asked)", portOn(running, d.Path))
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
		allowed, known := browsers.DebuggingAllowed(d)
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

	if len(found) > 0 && found[0].Live {
		// Which of the browsers that answer is read, and why: the
		// person's before a program's (browsers.FindBrowsers).
		w.say("Reads: %s: %s", shownFound(found[0]), found[0].WhyChosen())
		for _, f := range found[1:] {
			if f.Live {
				w.say("  passes by: %s: %s", shownFound(f), f.Reason())
			}
		}
	}

	next, ok := nextStep(s, allowedIdle)
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

// shownFound names a found browser for a person: the browser, its
// directory and process when known, and its port.
func shownFound(f browsers.Found) string {
	s := f.Dir.Browser
	if f.Dir.Path != "" {
		s += " " + f.Dir.Path
	}
	if f.Pid != 0 {
		s += fmt.Sprintf(" (pid %d)", f.Pid)
	}
	return s + fmt.Sprintf(", port %d", f.Port)
}

// portOn is the --remote-debugging-port of a running browser on the
// directory, 0 when none names one.
func portOn(running []browsers.Running, dir string) int {
	for _, r := range running {
		if r.UserDataDir != "" && filepath.Clean(r.UserDataDir) == filepath.Clean(dir) && r.Port() > 0 {
			return r.Port()
		}
	}
	return 0
}

// portOf is what the port a running browser's command line names
// answered, nil when it names none or doctor did not ask it.
func portOf(found []browsers.Found, r browsers.Running) *browsers.Found {
	for i, f := range found {
		if f.Pid == r.Pid && f.Port == r.Port() && f.Port > 0 {
			return &found[i]
		}
	}
	return nil
}

// nextStep is the one thing to do next, and whether a browser can be
// read already. It never advises what was done already: a browser
// started with a debugging port whose port does not answer is told why.
func nextStep(s sight, allowedIdle []browsers.UserDataDir) (string, bool) {
	found, running, installed := s.found, s.running, s.installed
	if len(found) > 0 && found[0].Live {
		f := found[0]
		cmd := "`cdpprovider serve` (or `cdpprovider current`)"
		if s.auto == nil || s.auto.Port != f.Port {
			// Without the flag, auto would read another browser, or none.
			cmd = fmt.Sprintf("`cdpprovider serve --user-data-dir %s`", f.Dir.Path)
		}
		next := fmt.Sprintf("none, it works now: %s reads %s on port %d", cmd, f.Dir.Browser, f.Port)
		if f.Consent() {
			next += fmt.Sprintf("; %s will ask \"Allow remote debugging?\" when cdpprovider first connects: click Allow", f.Dir.Browser)
		}
		return next, true
	}
	for _, f := range found {
		if f.Cmdline && f.Pid != 0 {
			return fmt.Sprintf("%s (pid %d) was started with --remote-debugging-port=%d, but %s", f.Dir.Browser, f.Pid, f.Port, f.Why), false
		}
	}
	for _, r := range running {
		if !r.Launched && r.DebugPort == "0" && r.UserDataDir != "" {
			return fmt.Sprintf("%s (pid %d) was started with --remote-debugging-port=0, but its directory %s has no live DevToolsActivePort: "+
				"it may still be starting", r.Exe, r.Pid, r.UserDataDir), false
		}
	}
	// The running browsers without debugging (a browser a cdpprovider
	// launched is not the person's, and one with a debugging port was
	// told above).
	plain := slices.DeleteFunc(slices.Clone(running), func(r browsers.Running) bool { return r.Launched || r.DebugPort != "" })
	if len(allowedIdle) > 0 && len(plain) > 0 {
		return fmt.Sprintf("restart %s: remote debugging is allowed in its profile (%s) but it is not listening", allowedIdle[0].Browser, allowedIdle[0].Path), false
	}
	if len(plain) > 0 {
		return fmt.Sprintf("in the running %s open chrome://inspect/#remote-debugging and allow remote debugging (Chrome 144 or later); "+
			"or restart it with --remote-debugging-port=9222 --user-data-dir=DIR (a directory other than its default profile)", plain[0].Exe), false
	}
	if len(allowedIdle) > 0 {
		return fmt.Sprintf("start %s: remote debugging is allowed in its profile, so cdpprovider will find it", allowedIdle[0].Browser), false
	}
	if len(installed) > 0 {
		return fmt.Sprintf("start %s and open chrome://inspect/#remote-debugging to allow remote debugging; "+
			"or start it as `%s --remote-debugging-port=9222 --user-data-dir=DIR`", filepath.Base(installed[0]), installed[0]), false
	}
	return fmt.Sprintf("install a Chromium-family browser (%s), or let cdpprovider start one with --launch", browsers.InstallAdvice()), false
}

// describeDirs names the directories looked in, briefly.
func describeDirs(dirs []browsers.UserDataDir) string {
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
