package browsers

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Kind is what a found browser is to the person, by which auto
// discovery chooses among the browsers that answer: the person's own
// first, and a browser a program started to drive it (a test runner's, a
// scraper's, a CI job's) only when nothing else answers, however
// recently it started.
type Kind int

const (
	// KindUnknown is a browser whose process is not known (the OS does
	// not tell the processes) and that is on no default user-data
	// directory.
	KindUnknown Kind = iota
	// KindDefault is a browser on one of the installed browsers' default
	// user-data directories: the profile the person uses.
	KindDefault
	// KindHeaded is a browser with windows on a directory of its own.
	KindHeaded
	// KindAutomation is a browser started for a program: with
	// --enable-automation, headless, or on a profile under the temporary
	// directory.
	KindAutomation
)

// preference is the kind's place in auto discovery's order, lowest
// first.
func (k Kind) preference() int {
	switch k {
	case KindDefault:
		return 0
	case KindHeaded:
		return 1
	case KindUnknown:
		return 2
	}
	return 3
}

// Reason says what the found browser is, as the log and doctor print it.
func (f Found) Reason() string {
	switch f.Kind {
	case KindDefault:
		return "the person's default profile"
	case KindHeaded:
		return "a headed browser"
	case KindAutomation:
		return "an automation browser (" + f.Sign + ")"
	}
	return "a browser whose process is not known"
}

// WhyChosen says why auto discovery reads f when it is the first of
// FindBrowsers' answer: what it is, and for an automation browser that
// nothing else answered (else another would be first).
func (f Found) WhyChosen() string {
	if f.Kind == KindAutomation {
		return f.Reason() + ": nothing else answered"
	}
	return f.Reason()
}

// kindOf says what a found browser is; its process is r, nil when not
// known. A browser is an automation browser by its flags first, since a
// program may drive a copy of any profile; then one on a default
// directory is the person's (tests and some people keep $HOME under the
// temporary directory); then a profile under the temporary directory is
// a program's (Puppeteer's, Playwright's and chromedriver's are).
func (l Look) kindOf(f Found, r *Running) (Kind, string) {
	switch {
	case r != nil && r.Automation:
		return KindAutomation, "--enable-automation"
	case r != nil && r.Headless:
		return KindAutomation, "--headless"
	case f.headless:
		return KindAutomation, "a headless user agent"
	}
	dir := f.Dir.Path
	if r != nil && r.UserDataDir != "" {
		dir = r.UserDataDir
	}
	onDefault := r != nil && r.UserDataDir == "" ||
		!l.Named && slices.ContainsFunc(l.Dirs, func(d UserDataDir) bool { return sameDir(d.Path, dir) })
	switch {
	case onDefault:
		return KindDefault, ""
	case underTemp(dir):
		return KindAutomation, "a profile under the temporary directory"
	case r != nil:
		return KindHeaded, ""
	}
	return KindUnknown, ""
}

// underTemp says whether dir is under the temporary directory: the
// provider's ($TMPDIR), or /tmp, where a program run with another
// $TMPDIR makes its profiles too.
func underTemp(dir string) bool {
	if dir == "" {
		return false
	}
	temps := []string{os.TempDir()}
	if runtime.GOOS != "windows" {
		temps = append(temps, "/tmp")
	}
	for _, t := range temps {
		if rel, err := filepath.Rel(filepath.Clean(t), filepath.Clean(dir)); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// preferred orders found browsers as auto discovery tries them: those
// that answer first; among them by kind (the person's default profile, a
// headed browser, one whose process is not known, an automation
// browser); then the most recently started first.
func preferred(found []Found) {
	slices.SortStableFunc(found, func(a, b Found) int {
		if a.Live != b.Live {
			if a.Live {
				return -1
			}
			return 1
		}
		if pa, pb := a.Kind.preference(), b.Kind.preference(); pa != pb {
			return pa - pb
		}
		return b.Written.Compare(a.Written)
	})
}
