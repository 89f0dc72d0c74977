package provider

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// Commands Run knows.
const (
	// Serve serves MCP on stdin/stdout until the client disconnects.
	Serve = "serve"
	// Current prints one read of current and exits.
	Current = "current"
	// PrintVersion prints the provider's name and version.
	PrintVersion = "version"
)

// Config is everything Run needs; cmd/cdpprovider fills it from flags.
// The zero value of every field but Command is a working default.
type Config struct {
	// Command is Serve, Current or PrintVersion.
	Command string

	// Connect is a running browser's debugging address: http://host:port,
	// host:port, or a ws:// browser URL. Exclusive with Launch.
	Connect string
	// Launch starts a browser of our own, with a temporary profile, that
	// dies with the provider. Exclusive with Connect.
	Launch bool
	// Headed shows the launched browser's windows instead of running it
	// headless. Only with Launch.
	Headed bool
	// Chrome is the browser executable to launch; empty means $CHROME,
	// then chromium and its relatives on PATH. Only with Launch.
	Chrome string
	// URLs are opened by the launched browser, one tab each; none opens
	// the built-in demo page. Only with Launch.
	URLs []string
	// AllowRemote permits a Connect address that is not on loopback. The
	// endpoint is as powerful as the browser itself, hence opt-in.
	AllowRemote bool

	// NoLocate turns off locate (section 7.3): the template is not
	// listed and the descriptor does not name it.
	NoLocate bool
	// BundleID overrides the app's bundle identifier in the descriptor,
	// which is otherwise derived from the browser's product.
	BundleID string
	// MaxText is the text budget per string (5.6); 0 means the default.
	MaxText int
	// MaxElements is the element budget per answer; 0 means the default.
	MaxElements int
	// MaxBytes is the JSON size budget per answer; 0 means the default.
	MaxBytes int

	// JSON makes Current print the compact JSON answer instead of the
	// outline.
	JSON bool

	// LogLevel is debug, info, warn or error; empty means info.
	LogLevel string
	// LogFile receives the log instead of stderr when set (appended).
	LogFile string
}

// Budget is the answer budget the config asks for, defaults filled in.
func (c Config) Budget() mapping.Budget {
	b := mapping.DefaultBudget
	if c.MaxText > 0 {
		b.MaxText = c.MaxText
	}
	if c.MaxElements > 0 {
		b.MaxElements = c.MaxElements
	}
	if c.MaxBytes > 0 {
		b.MaxBytes = c.MaxBytes
	}
	return b
}

// Validate checks the config; each error names the fix.
func (c Config) Validate() error {
	switch c.Command {
	case Serve, Current, PrintVersion:
	case "":
		return fmt.Errorf("no command: give serve, current or version")
	default:
		return fmt.Errorf("unknown command %q: give serve, current or version", c.Command)
	}
	if _, err := c.logLevel(); err != nil {
		return err
	}
	if c.Command == PrintVersion {
		return nil
	}
	switch {
	case c.Connect != "" && c.Launch:
		return fmt.Errorf("--connect and --launch together: give --connect to read a running browser, or --launch to start one, not both")
	case c.Connect == "" && !c.Launch:
		return fmt.Errorf("no browser: give --connect http://127.0.0.1:9222 (a browser started with --remote-debugging-port=9222) or --launch to start one")
	}
	if !c.Launch {
		switch {
		case c.Headed:
			return fmt.Errorf("--headed needs --launch: a browser reached with --connect is shown as it was started")
		case c.Chrome != "":
			return fmt.Errorf("--chrome needs --launch: with --connect the browser is already running")
		case len(c.URLs) > 0:
			return fmt.Errorf("URLs (%s) need --launch: with --connect, open them in the browser yourself", strings.Join(c.URLs, " "))
		}
	}
	if c.Connect != "" {
		if err := checkConnect(c.Connect, c.AllowRemote); err != nil {
			return err
		}
	}
	for _, b := range []struct {
		flag string
		v    int
	}{{"--max-text", c.MaxText}, {"--max-elements", c.MaxElements}, {"--max-bytes", c.MaxBytes}} {
		if b.v < 0 {
			return fmt.Errorf("%s %d: give a positive number, or 0 for the default", b.flag, b.v)
		}
	}
	if c.JSON && c.Command != Current {
		return fmt.Errorf("--json is for current only: serve always speaks JSON")
	}
	return nil
}

// logLevel parses LogLevel.
func (c Config) logLevel() (slog.Level, error) {
	var l slog.Level
	if c.LogLevel == "" {
		return slog.LevelInfo, nil
	}
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return 0, fmt.Errorf("--log-level %q: give debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}

// checkConnect checks a --connect address the way the cdp package reads
// it: http(s)://host:port, host:port or ws(s)://host:port/…, on loopback
// unless allowRemote.
func checkConnect(addr string, allowRemote bool) error {
	full := addr
	if !strings.Contains(full, "://") {
		full = "http://" + full
	}
	u, err := url.Parse(full)
	if err != nil {
		return fmt.Errorf("--connect %q: %w; give http://127.0.0.1:9222 or a ws:// URL", addr, err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return fmt.Errorf("--connect %q: scheme %q; give http://127.0.0.1:9222 or a ws:// URL", addr, u.Scheme)
	}
	if u.Hostname() == "" || u.Port() == "" {
		return fmt.Errorf("--connect %q: want a host and a port, as in http://127.0.0.1:9222", addr)
	}
	if !allowRemote && !isLoopback(u.Hostname()) {
		return fmt.Errorf("--connect %q is not on this machine: a debugging endpoint is as powerful as the browser itself; pass --allow-remote to connect anyway", addr)
	}
	return nil
}

// isLoopback says whether host names this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
