package provider

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// Commands Run knows.
const (
	// Serve serves MCP on stdin/stdout until the client disconnects, or
	// over HTTP (Config.HTTP) until stopped.
	Serve = "serve"
	// Current prints one read of current and exits.
	Current = "current"
	// Watch prints current, and again on every change, until stopped.
	Watch = "watch"
	// Find prints the elements of one read of current that match a text
	// and/or a role, and exits: status 1 (ErrNoMatch) when none does.
	Find = "find"
	// At prints what is at a point of the screen (Config.Point) and
	// exits.
	At = "at"
	// PrintVersion prints the provider's name and version.
	PrintVersion = "version"
	// Doctor says what it sees of the browsers on this machine and the
	// next step that makes a browser readable.
	Doctor = "doctor"
)

// Config is everything Run needs; cmd/cdpprovider fills it from flags.
// The zero value of every field but Command is a working default.
type Config struct {
	// Command is Serve, Current, Watch, Find, At, Doctor or PrintVersion.
	Command string

	// Connect is a running browser's debugging address: "auto" (find the
	// browser a person runs by its DevToolsActivePort or its command
	// line's --remote-debugging-port), http://host:port,
	// host:port, or a ws(s):// browser URL. Empty means auto unless
	// Launch. Exclusive with Launch.
	Connect string
	// UserDataDir is the one user-data directory auto looks in, for its
	// DevToolsActivePort or a running browser on it with a debugging
	// port (and where an http address that answers 404 finds its
	// websocket); empty means the default directories of Chrome,
	// Chromium, Edge and Brave and the running browsers. Not with Launch.
	UserDataDir string
	// Headers are "Name: value" lines sent with every HTTP request to the
	// browser's endpoint (the websocket handshake and the /json
	// requests), for browser services that want a token. Their
	// values are never logged. Not with Launch.
	Headers []string
	// Session is the browser service's session to read, by its id (its
	// browser's, as the service's list of sessions names it); empty means
	// the one session whose browser has pages. Only with Connect.
	Session string
	// HoldSession keeps a service's session connected after the agent's
	// client left, so that the service does not end it; off, the
	// provider lets go of it as the agent did. Only with Connect.
	HoldSession bool
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
	// AllowRemote permits a Connect address that is not on loopback, and
	// an HTTP address that is not: either endpoint is as powerful as
	// reading the browser, hence opt-in.
	AllowRemote bool

	// HTTP makes Serve serve MCP over Streamable HTTP at
	// http://HTTP/mcp instead of on stdin/stdout, to any number of
	// clients at once, all reading the one browser connection: host:port,
	// port 0 for any free port. The host must be on loopback unless
	// AllowRemote. Only with Serve.
	HTTP string
	// TokenFile holds the bearer token every HTTP request must carry
	// (white space around it is dropped). Empty means a random token,
	// printed on stderr at start. Only with HTTP, or with Server: the
	// token sent to that provider, which Server needs.
	TokenFile string
	// Tools also offers current and locate as the read-only MCP tools
	// ui_current and ui_locate, and ui_find, for hosts whose model is
	// given tools only. Off, the server has no tools. Only with Serve.
	Tools bool

	// Server makes Current, Find and At read through a provider that
	// serves with HTTP and Tools (serve --http … --tools), at its
	// endpoint's URL (http://HOST:PORT/mcp, on loopback unless
	// AllowRemote), by its tools ui_current, ui_find and ui_at, instead
	// of reading a browser themselves: the ids they print are that run's,
	// so an id one command prints names the same element in the next
	// (Root). Not with the browser's flags (Connect, Launch and theirs),
	// PNG or the answer's settings, which are the serving provider's.
	Server string
	// Root makes Current print only the element with this id and what is
	// below it (Depth levels of it), after a line "in:" with its
	// ancestors' roles and titles: ui_current's root. Only with Server:
	// an id names an element only in the run that printed it.
	Root string

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
	// outline, Watch one compact JSON answer per line, one per change,
	// Find its matches as one JSON object (mapping.Found), and At what is
	// at its point (mapping.Hit).
	JSON bool
	// Screen makes Current and Watch print only what is on screen: the
	// windows and tabs, and in each shown page the elements on screen
	// with their ancestors (the screen scope, mcp.ScreenURI; with Server,
	// ui_current's scope "screen").
	Screen bool
	// Depth, when set, cuts what Current and Watch print to that many
	// levels below the Application (0: the Application alone); an
	// element whose children were cut counts them in its omitted, as a
	// budget does (mapping.Cut). The picture of PNG is of the whole
	// answer. Nil prints every level. Only with Current and Watch.
	Depth *int
	// PNG is a file Current writes, and Watch writes again after every
	// read, with a picture of what locate says: a screenshot of the
	// focused window's active tab with the frame of each element of the
	// answer that is on screen drawn on it (provider/picture.go). Empty
	// means no picture. Only with Current and Watch, and not with
	// NoLocate.
	PNG string

	// Text is what Find looks for in the elements' titles, values and
	// descriptions: a substring, case ignored, or with Regex a regular
	// expression (mapping.TextPattern). Empty matches any element, and
	// then Role is needed. Only with Find.
	Text string
	// Regex makes Text a regular expression. Only with Find.
	Regex bool
	// Role makes Find match only elements of this protocol role
	// (mapping.Roles). Only with Find.
	Role string
	// Limit is how many matches Find prints, the first in reading order;
	// a last line counts the rest. 0 prints them all. Only with Find.
	Limit int

	// Point is the point of the screen At prints what is at: x and y in
	// screen points, as locate answers. Only with At, which needs it.
	Point []float64

	// RestAfter is how long after a host's last read, with no host
	// subscribed, serve rests: it stops its background work in the
	// browser (accessibility, walks, reads ahead, page watchers' calls)
	// until the next read. 0 means 30 s (cdp.DefaultRestAfter); a
	// negative value, never. Only with Serve.
	RestAfter time.Duration

	// LogLevel is debug, info, warn or error; empty means info.
	LogLevel string
	// LogFile receives the log instead of stderr when set (appended).
	LogFile string
}

// reader is the read Current and Watch make of src: its screen with
// Screen, else current.
func (c Config) reader(src source) func(context.Context) (*mapping.Current, error) {
	if c.Screen {
		return src.Screen
	}
	return src.Current
}

// printed is the part of cur that Current and Watch print: cur, or with
// Depth a copy whose root is cut to that depth.
func (c Config) printed(cur *mapping.Current) *mapping.Current {
	if c.Depth == nil {
		return cur
	}
	cut := *cur
	cut.Root = mapping.Cut(cur.Root, *c.Depth)
	return &cut
}

// search is the Search of Find, which Validate has checked.
func (c Config) search() (mapping.Search, error) {
	s := mapping.Search{Role: c.Role}
	if c.Text != "" {
		p, err := mapping.TextPattern(c.Text, c.Regex)
		if err != nil {
			return s, fmt.Errorf("--regex %q is not a regular expression (RE2 syntax): %w", c.Text, err)
		}
		s.Text = p
	}
	return s, nil
}

// Budget is the answer budget the config asks for, defaults filled in.
func (c Config) Budget() mapping.Budget {
	return mapping.Budget{MaxText: c.MaxText, MaxElements: c.MaxElements, MaxBytes: c.MaxBytes}.WithDefaults()
}

// Validate checks the config; each error names the fix. For serve it
// leaves the browser's address and headers to checkBrowser: serve starts
// with them wrong all the same, and answers its reads with why.
func (c Config) Validate() error {
	switch c.Command {
	case Serve, Current, Watch, Find, At, Doctor, PrintVersion:
	case "":
		return fmt.Errorf("no command: give serve, current, watch, find, at, doctor or version")
	default:
		return fmt.Errorf("unknown command %q: give serve, current, watch, find, at, doctor or version", c.Command)
	}
	if _, err := c.logLevel(); err != nil {
		return err
	}
	if c.Command == PrintVersion {
		return nil
	}
	if c.Command == Doctor {
		if c.Connect != "" || c.Launch || len(c.Headers) > 0 || len(c.URLs) > 0 {
			return fmt.Errorf("doctor looks at the browsers of this machine: it takes only --user-data-dir and the log flags")
		}
		return nil
	}
	if err := c.validateServer(); err != nil {
		return err
	}
	if c.Command != Serve && (c.HTTP != "" || c.Tools) {
		return fmt.Errorf("--http and --tools are for serve: current reads once and prints")
	}
	if c.TokenFile != "" && c.HTTP == "" && c.Server == "" {
		if c.Command == Serve {
			return fmt.Errorf("--token-file needs --http: over stdio the host that starts the provider is its only client")
		}
		return fmt.Errorf("--token-file needs --server: it is the token sent to a provider that serves over HTTP")
	}
	if c.HTTP != "" {
		if err := checkListen(c.HTTP, c.AllowRemote); err != nil {
			return err
		}
	}
	if c.Connect != "" && c.Launch {
		return fmt.Errorf("--connect and --launch together: give --connect to read a running browser, or --launch to start one, not both")
	}
	if c.Launch {
		switch {
		case c.UserDataDir != "":
			return fmt.Errorf("--user-data-dir needs --connect auto: a launched browser has a temporary profile of its own")
		case len(c.Headers) > 0:
			return fmt.Errorf("--header needs --connect: a launched browser needs no token")
		}
	}
	if (c.Session != "" || c.HoldSession) && (c.Connect == "" || c.Connect == browsers.Auto) {
		return fmt.Errorf("--session and --hold-session need --connect with a browser service's address: they name and keep one of its sessions")
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
	if c.Command != Serve && c.Server == "" { // serve answers its reads with it instead
		if err := c.checkBrowser(); err != nil {
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
	if c.RestAfter != 0 && c.Command != Serve {
		return fmt.Errorf("--rest-after is for serve: current reads once, and watch never rests")
	}
	if c.JSON && c.Command != Current && c.Command != Watch && c.Command != Find && c.Command != At {
		return fmt.Errorf("--json is for current, watch, find and at only: serve always speaks JSON")
	}
	switch {
	case c.Command == At && (len(c.Point) != 2 || math.IsNaN(c.Point[0]) || math.IsNaN(c.Point[1]) || math.IsInf(c.Point[0], 0) || math.IsInf(c.Point[1], 0)):
		return fmt.Errorf("at needs the point X Y: two numbers, in screen points as locate answers them (the top-left of the primary screen is 0 0)")
	case c.Command == At && c.NoLocate:
		return fmt.Errorf("at answers in screen points, as locate does: leave out --no-locate")
	case c.Command != At && c.Point != nil:
		return fmt.Errorf("a point is for at only: a host's model asks what is at a point with the tool ui_at (serve --tools)")
	}
	if err := c.validateFind(); err != nil {
		return err
	}
	if c.Screen && c.Command != Current && c.Command != Watch {
		return fmt.Errorf("--screen is for current and watch only: a host of serve reads the screen with uicontext://current?scope=screen or ui_current's scope")
	}
	if c.Depth != nil {
		switch {
		case c.Command != Current && c.Command != Watch:
			return fmt.Errorf("--depth is for current and watch only: a host of serve asks for a depth with the tool ui_current (--tools)")
		case *c.Depth < 0:
			return fmt.Errorf("--depth %d: give the number of levels below the Application to print, 0 or more", *c.Depth)
		}
	}
	if c.PNG != "" {
		switch {
		case c.Command != Current && c.Command != Watch:
			return fmt.Errorf("--png is for current and watch only: serve offers locate to the host instead")
		case c.NoLocate:
			return fmt.Errorf("--png draws what locate says: leave out --no-locate")
		}
	}
	return nil
}

// validateServer checks Server and Root: the commands that take them,
// the flags that do not go with them, and the endpoint's URL.
func (c Config) validateServer() error {
	if c.Root != "" && c.Command != Current {
		return fmt.Errorf("--root is for current only")
	}
	if c.Root != "" && c.Server == "" {
		return fmt.Errorf("--root needs --server: each run of the provider mints its own element ids, so an id names an element " +
			"only in the run that printed it; read through a running serve --http … --tools with --server URL, whose ids last as long as it runs")
	}
	if c.Server == "" {
		return nil
	}
	if c.Command != Current && c.Command != Find && c.Command != At {
		return fmt.Errorf("--server is for current, find and at only")
	}
	for _, f := range []struct {
		set  bool
		flag string
	}{
		{c.Connect != "", "--connect"}, {c.Launch, "--launch"}, {c.UserDataDir != "", "--user-data-dir"},
		{len(c.Headers) > 0, "--header"}, {c.Session != "", "--session"}, {c.HoldSession, "--hold-session"}, {c.PNG != "", "--png"}, {c.NoLocate, "--no-locate"}, {c.BundleID != "", "--bundle-id"},
		{c.MaxText != 0, "--max-text"}, {c.MaxElements != 0, "--max-elements"}, {c.MaxBytes != 0, "--max-bytes"},
	} {
		if f.set {
			return fmt.Errorf("%s and --server together: with --server the provider at that URL reads its browser, with its own settings", f.flag)
		}
	}
	if c.TokenFile == "" {
		return fmt.Errorf("--server needs --token-file FILE: the bearer token that serve --http was given with its --token-file, or printed at its start")
	}
	u, err := url.Parse(c.Server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--server %q: give the URL serve --http printed, such as http://127.0.0.1:8123/mcp", c.Server)
	}
	if !c.AllowRemote && !browsers.IsLoopback(u.Hostname()) {
		return fmt.Errorf("--server %q is not on loopback: the token would go over the network; give the URL of a provider on this machine, or pass --allow-remote to send it anyway", c.Server)
	}
	return nil
}

// validateFind checks Find's text, role and limit, and that no other
// command has them.
func (c Config) validateFind() error {
	if c.Command != Find {
		if c.Text != "" || c.Regex || c.Role != "" || c.Limit != 0 {
			return fmt.Errorf("--role, --regex and --limit are for find only: a host's model finds elements with the tool ui_find (serve --tools)")
		}
		return nil
	}
	switch {
	case c.Text == "" && c.Role == "":
		return fmt.Errorf(`find needs a TEXT to look for, --role ROLE, or both: give "" as TEXT to find every element of the role`)
	case c.Role != "" && !mapping.IsRole(c.Role):
		for _, r := range mapping.Roles {
			if strings.EqualFold(r, c.Role) {
				return fmt.Errorf("--role %q is not a role: did you mean %q?", c.Role, r)
			}
		}
		return fmt.Errorf("--role %q is not a role: give one as current prints it, such as Button, Link, TextField, Heading or Dialog; all of them: %s",
			c.Role, strings.Join(mapping.Roles, " "))
	case c.Limit < 0:
		return fmt.Errorf("--limit %d: give how many matches to print, or 0 for all", c.Limit)
	case c.Regex && c.Text == "":
		return fmt.Errorf("--regex needs a TEXT: the regular expression to match")
	}
	_, err := c.search()
	return err
}

// checkBrowser checks the browser's address and headers (--connect,
// --header). Validate checks them for current and watch, which fail at
// start; serve starts all the same, and answers its reads with the error.
func (c Config) checkBrowser() error {
	if _, err := browsers.ParseHeader(c.Headers); err != nil {
		return err
	}
	if !c.Launch {
		if err := browsers.CheckAddress(c.Connect, c.AllowRemote); err != nil {
			return fmt.Errorf("--connect: %w", err)
		}
	}
	return nil
}

// checkListen checks an --http address: host:port, the host on loopback
// unless allowRemote.
func checkListen(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil {
		return fmt.Errorf("--http %q: give host:port, as in 127.0.0.1:8377 (port 0: any free port)", addr)
	}
	if !allowRemote && !browsers.IsLoopback(host) {
		where := "not on loopback"
		if host == "" {
			where = "every interface"
		}
		return fmt.Errorf("--http %q is %s: whoever reaches it with the token reads the browser; give 127.0.0.1:PORT, or pass --allow-remote to serve it anyway", addr, where)
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
