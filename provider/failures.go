package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cdpprovider/cdpprovider/cdp"
	"github.com/cdpprovider/cdpprovider/cdp/browsers"
)

// The failures serve answers reads with when it has no browser to read
// (provider/unstarted.go). Their messages speak to the host and its
// person: what happened and what they can do, without the command line
// where it can be helped.

// badSetting is the failure of a browser address or header that cannot
// be used (--connect, --header): only a new setting mends it.
func badSetting(err error) *cdp.Failure {
	return &cdp.Failure{Kind: cdp.ReasonBadAddress, Err: fmt.Errorf(
		"cdpprovider cannot use the browser setting it was given: %w; "+
			"change it in the host's configuration of cdpprovider, then restart the provider", err)}
}

// browserNames are the names a person knows the executables of
// browsers.FindChrome by.
var browserNames = map[string]string{
	"chromium":             "Chromium",
	"chromium-browser":     "Chromium",
	"chrome":               "Google Chrome",
	"google-chrome":        "Google Chrome",
	"google-chrome-stable": "Google Chrome",
	"microsoft-edge":       "Microsoft Edge",
	"msedge":               "Microsoft Edge",
	"brave-browser":        "Brave",
	"brave":                "Brave",
}

// launchFailed is the failure of a try to start the browser of --launch
// (err, from launch): what happened, said for the host, and what the
// person can do; every try is followed by another on a read retryLaunch
// later.
func launchFailed(cfg Config, err error) *cdp.Failure {
	const again = "cdpprovider tries again on a read 10 s or more after this try"
	path, findErr := browsers.FindChrome(cfg.Chrome)
	if findErr != nil {
		what := "no Chromium-based browser is installed (Chromium, Google Chrome, Microsoft Edge or Brave); install one (" +
			browsers.InstallAdvice() + ")"
		if given := givenBrowser(cfg); given != "" {
			what = fmt.Sprintf("the browser it was told to run, %s, is not an executable file; install it, or tell cdpprovider where it is", given)
		}
		return &cdp.Failure{Kind: cdp.ReasonLaunchFailed, Err: fmt.Errorf("cdpprovider could not start a browser: %s; %s", what, again)}
	}
	name := filepath.Base(path)
	if n, ok := browserNames[strings.TrimSuffix(strings.ToLower(name), ".exe")]; ok {
		name = n
	}
	what := firstLine(err)
	if cfg.Headed && noDisplay(err) {
		if display := os.Getenv("DISPLAY"); display == "" {
			what = "no display (DISPLAY is not set) for a headed browser; run the host in a desktop session, " +
				"or have cdpprovider launch the browser headless"
		} else {
			what = fmt.Sprintf("no display (nothing answers at DISPLAY=%s) for a headed browser; start that display, "+
				"or have cdpprovider launch the browser headless", display)
		}
	} else {
		what += " (the provider's log has the browser's output)"
	}
	return &cdp.Failure{Kind: cdp.ReasonLaunchFailed, Err: fmt.Errorf("cdpprovider could not start %s: %s; %s", name, what, again)}
}

// givenBrowser is the browser the person named (--chrome, $CHROME), ""
// when none.
func givenBrowser(cfg Config) string {
	if cfg.Chrome != "" {
		return cfg.Chrome
	}
	return os.Getenv("CHROME")
}

// noDisplay says a headed browser exited for want of a display: Chrome
// and its relatives on Linux say "Missing X server or $DISPLAY" (and on
// Wayland that they could not connect to it).
func noDisplay(err error) bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "Missing X server") || strings.Contains(s, "Failed to connect to Wayland display") ||
		strings.Contains(s, "The platform failed to initialize")
}

// firstLine is what err says before the browser's output it quotes,
// without browsers.Launch's prefix (the executable's path).
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "; its output:")
	s, _, _ = strings.Cut(s, "\n")
	if i := strings.Index(s, ": "); strings.HasPrefix(s, "launch ") && i > 0 {
		s = s[i+2:]
	}
	return s
}
