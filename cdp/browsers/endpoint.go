package browsers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Auto is the Connect address that finds a running browser by its
// DevToolsActivePort or its command line's debugging port (FindBrowsers);
// an empty address means the same.
const Auto = "auto"

// Endpoint is how to reach a browser, checked; Resolve turns it into the
// websocket to dial, anew for each connection, so that a browser that
// restarted (a new port, a new websocket path) is found again.
type Endpoint struct {
	// addr is the address as given, for messages.
	addr string
	// auto finds the browser in dirs by DevToolsActivePort.
	auto bool
	// http is the http(s)://host:port base for /json/*, empty for auto
	// and when only a ws:// URL is known.
	http string
	// query is the address's query (a service's ?token=…), sent with
	// every request to http: /json/version, /json/list, /sessions.
	query string
	// ws is the browser's websocket URL when it was given.
	ws string
	// asGiven is a ws(s):// address with no path but a query, dialled as
	// given when its host answers no /json/version: a service that
	// offers neither (Browserbase's connect URL names its session in the
	// query).
	asGiven string
	// session is the service's session to read (--session), empty for
	// the one whose browser has pages.
	session string
	// dirs are the user-data directories auto looks in, and where an
	// http address that answers 404 looks for the port's websocket path.
	dirs []UserDataDir
	// named says the person named dirs (--user-data-dir): auto reads
	// only a browser on them (Look.Named).
	named bool
	// running lists the browsers' processes for auto (RunningBrowsers);
	// nil means none, the OS telling (a test's endpoint).
	running func() ([]Running, bool)
	// listeners tells who listens on 127.0.0.1's ports (Listeners); nil
	// means not known.
	listeners func() map[int]UserID
	// ports are asked where the processes are not known; nil means 9222.
	ports []int
	// header is sent with every request to the endpoint, the websocket
	// handshake included. Its values are secrets: never in a message.
	header http.Header
}

// ParseEndpoint checks a --connect address: "auto" or empty,
// http(s)://host:port, host:port, ws(s)://host:port/devtools/browser/ID,
// or ws(s)://host:port with no path, which is read as http(s)://host:port
// (the websocket found through /json/version, a DevToolsActivePort, or a
// browser service's list of sessions). The query of an address with no
// path (a service's ?token=…) goes with every request.
// Only loopback hosts are accepted unless allowRemote. dirs are where auto
// looks (nil: DefaultUserDataDirs and the running browsers; else the
// person named them). header (nil: none) is sent with every request to
// the browser: the /json requests and the websocket handshake.
func ParseEndpoint(addr string, allowRemote bool, dirs []UserDataDir, header http.Header) (Endpoint, error) {
	named := dirs != nil
	if dirs == nil {
		dirs = DefaultUserDataDirs()
	}
	if addr == "" || addr == Auto {
		return Endpoint{addr: Auto, auto: true, dirs: dirs, named: named, running: RunningBrowsers, listeners: Listeners, header: header}, nil
	}
	full := addr
	if !strings.Contains(full, "://") {
		full = "http://" + full
	}
	u, err := url.Parse(full)
	if err != nil {
		return Endpoint{}, fmt.Errorf("browser address %q: %w", addr, err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return Endpoint{}, fmt.Errorf("browser address %q: scheme %q; give auto, http://127.0.0.1:9222 or a ws:// URL", addr, u.Scheme)
	}
	host := u.Hostname()
	if host == "" || u.Port() == "" && (u.Scheme == "http" || u.Scheme == "ws") {
		return Endpoint{}, fmt.Errorf("browser address %q: want host and port, as in http://127.0.0.1:9222", addr)
	}
	if !allowRemote && !IsLoopback(host) {
		return Endpoint{}, fmt.Errorf("browser address %q is not on this machine: a debugging endpoint is as powerful as the browser itself; pass --allow-remote to connect anyway", addr)
	}
	ep := Endpoint{addr: addr, http: "http://" + u.Host, dirs: dirs, header: header}
	if u.Scheme == "https" || u.Scheme == "wss" {
		ep.http = "https://" + u.Host
	}
	bare := u.Path == "" || u.Path == "/"
	switch {
	case bare:
		// The host alone, as a service's address is: resolved through
		// /json/version, the query (its token) with every request.
		ep.query = u.RawQuery
		if (u.Scheme == "ws" || u.Scheme == "wss") && u.RawQuery != "" {
			ep.asGiven = full
		}
	case u.Scheme == "ws" || u.Scheme == "wss":
		ep.ws = full
		// A session's own address: the service's list (if any) is asked
		// with its query.
		ep.query = u.RawQuery
	}
	return ep, nil
}

// ForSession is the endpoint reading the service session id (--session):
// at a service's bare address, the session of that id in its list rather
// than the one whose browser has pages. Empty id: ep as it is.
func (ep Endpoint) ForSession(id string) Endpoint {
	ep.session = id
	return ep
}

// CheckAddress checks a --connect address the way ParseEndpoint reads it
// for a cdp.Provider.
func CheckAddress(addr string, allowRemote bool) error {
	_, err := ParseEndpoint(addr, allowRemote, []UserDataDir{}, nil)
	return err
}

// IsLoopback says whether host names this machine.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsAuto says the endpoint finds a running browser on this machine
// (Auto) rather than naming one.
func (ep Endpoint) IsAuto() bool { return ep.auto }

// Shown is the address as messages show it: without a user and password,
// and with a query's values (a service's token) left out.
func (ep Endpoint) Shown() string {
	u, err := url.Parse(ep.addr)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ep.addr // host:port, as given; nothing secret in it
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	u.Fragment = ""
	return u.String()
}

// Service says the address is a browser service's, by its signs: a
// token (a query or a header) or a session named. Its messages are a
// service's, wherever it runs.
func (ep Endpoint) Service() bool {
	return ep.query != "" || len(ep.header) > 0 || ep.session != "" || ep.asGiven != ""
}

// Local says whether the address is on this machine (auto always is).
func (ep Endpoint) Local() bool {
	base := ep.ws
	if base == "" {
		base = ep.http
	}
	u, err := url.Parse(base)
	return ep.auto || err == nil && IsLoopback(u.Hostname())
}

// StatusError is a browser's or a browser service's answer to a /json
// request that let the provider not in: 401, 403, 404, ….
type StatusError struct {
	// Code is the HTTP status.
	Code int
	// Said is the first line of the answer's body, empty when it had
	// none fit to quote: a service says why it refused ("Bad or missing
	// authentication.").
	Said string
	// Err is the request's error, which may name the URL.
	Err error
}

func (e *StatusError) Error() string { return e.Err.Error() }

func (e *StatusError) Unwrap() error { return e.Err }

// ProductName names the browser as a person knows it, from the product
// of /json/version or Browser.getVersion ("Chrome", "HeadlessChrome"),
// the user agent, and the brands a page sees (nil when not known).
func ProductName(product, userAgent string, brands []string) string {
	for _, want := range []string{"Google Chrome", "Microsoft Edge", "Brave", "Opera", "Vivaldi"} {
		if slices.Contains(brands, want) {
			return want
		}
	}
	switch {
	case strings.Contains(userAgent, " Edg/"):
		return "Microsoft Edge"
	case strings.Contains(userAgent, " OPR/"):
		return "Opera"
	case slices.Contains(brands, "Chromium"):
		return "Chromium"
	case strings.Contains(product, "Chrome"):
		return "Chromium"
	}
	return cmp.Or(product, "Chromium")
}

// version is the answer of /json/version.
type version struct {
	Browser string `json:"Browser"` // "Chrome/156.0.8078.108", "HeadlessChrome/…", "Edg/…"
	// UserAgent names HeadlessChrome for a headless browser, whose
	// Browser says Chrome since the new headless mode.
	UserAgent string `json:"User-Agent"`
	WS        string `json:"webSocketDebuggerUrl"`
}

// Resolved is one browser websocket, resolved: what to dial now.
type Resolved struct {
	// WS is the websocket URL to dial.
	WS string
	// http is the base for /json/* (GetJSON), when the browser answers
	// them.
	http string
	// Name is what to call the browser in messages: "Chromium", …
	Name string
	// Asks says the browser may ask its person before it lets a
	// connection in: a browser on this machine reached without a
	// /json/version (the chrome://inspect setting).
	Asks bool
	// Session is the service's id of the session read: its browser id.
	// Empty when the browser is no known service's session.
	Session string
	// query is the address's query, sent with every request to http.
	query string
	// local says the browser is on this machine.
	local bool
	// Header is the endpoint's, to send with the websocket handshake;
	// GetJSON sends it with every /json request too.
	Header http.Header
}

// Resolve finds the websocket to dial now; what it finds carries the
// endpoint's header.
func (ep Endpoint) Resolve(ctx context.Context, log *slog.Logger) (Resolved, error) {
	t, err := ep.resolveTarget(ctx, log)
	t.Header = ep.header
	return t, err
}

// resolveTarget is Resolve without the header.
func (ep Endpoint) resolveTarget(ctx context.Context, log *slog.Logger) (Resolved, error) {
	if ep.auto {
		return ep.resolveAuto(ctx, log)
	}
	if ep.ws != "" {
		u, _ := url.Parse(ep.ws) // ParseEndpoint parsed it
		t := Resolved{WS: ep.ws, Name: "the browser", local: IsLoopback(u.Hostname()), Asks: IsLoopback(u.Hostname())}
		if id := sessionOfPath(u.Path); id != "" && (ep.query != "" || len(ep.header) > 0) {
			// With a token, the address is a service's session's own: its
			// list (if it has one) says when the session ends.
			t.Session, t.http, t.query = id, ep.http, ep.query
		}
		return t, nil
	}
	u, _ := url.Parse(ep.http)
	local := IsLoopback(u.Hostname())
	if ep.query != "" || len(ep.header) > 0 || ep.session != "" {
		// A service's signs (a token, a session named): its list of
		// sessions first. Browserless starts a browser to answer
		// /json/version, which counts against its sessions: a service
		// running all the sessions it allows would refuse it (429).
		sessions, listed, err := listSessions(ctx, ep.http, ep.query, ep.header)
		if se := (*StatusError)(nil); errors.As(err, &se) && refusal(se.Code) {
			return Resolved{}, err
		}
		if listed {
			return ep.serviceSession(log, u, sessions)
		}
	}
	v, status, err := getVersion(ctx, ep.http, ep.query, ep.header)
	if ep.asGiven != "" && err != nil && !refusal(status) {
		// No /json/version, no list, no refusal: a service that offers
		// neither. Its bare address starts a new browser per connection
		// (Browserbase, Steel, Browser Use); a session's own names the
		// session in its query (sessionId=…), and only that is dialled.
		if !namesSession(ep.query) {
			return Resolved{}, &sessionError{ErrNoSessionList, "it answers neither /json/version nor a list of sessions, " +
				"and its address names no session (sessionId=…): a connection there would start a new, blank browser"}
		}
		log.Info("the address answers no /json/version: connecting to it as given, as the session its query names",
			"address", ep.Shown(), "answer", cmp.Or(http.StatusText(status), causeText(err)))
		return Resolved{WS: ep.asGiven, Name: "the browser", local: local}, nil
	}
	if status == http.StatusNotFound && local && ep.query == "" {
		// A browser that allows debugging from chrome://inspect answers
		// only its websocket, whose path is in its DevToolsActivePort.
		port, _ := strconv.Atoi(u.Port())
		for _, f := range Discover(ctx, ep.dirs) {
			if f.Live && f.Port == port {
				log.Info("the browser answers 404 on /json/version; using its DevToolsActivePort", "dir", f.Dir.Path, "browser", f.Dir.Browser)
				return Resolved{WS: f.WebSocketURL(), Name: f.Dir.Browser, Asks: true, local: true}, nil
			}
		}
		return Resolved{}, fmt.Errorf("it answers 404 on /json/version, as a browser that allows debugging from chrome://inspect does, "+
			"but no DevToolsActivePort in the usual user-data directories names port %d", port)
	}
	if err != nil {
		return Resolved{}, err
	}
	w, err := url.Parse(v.WS)
	if err != nil || v.WS == "" {
		return Resolved{}, fmt.Errorf("the browser at %s gave no websocket address", ep.http)
	}
	if sessionOfPath(w.Path) == "" {
		// Not a browser's websocket but the address again: a service
		// that starts a new browser for every connection there.
		return ep.resolveService(ctx, log, u)
	}
	// Chrome builds the address from the request's Host header; the host
	// the person gave is the one that reaches it.
	w.Host = u.Host
	if u.Scheme == "https" {
		w.Scheme = "wss"
	}
	if w.RawQuery == "" {
		w.RawQuery = ep.query // the token goes with the handshake too
	}
	return Resolved{WS: w.String(), http: ep.http, query: ep.query, Name: ProductName(strings.Split(v.Browser, "/")[0], "", nil), local: local}, nil
}

// namesSession says a service address's query names a session, as
// Browserbase's and Steel's connect URLs do (sessionId=…).
func namesSession(query string) bool {
	q, _ := url.ParseQuery(query)
	for k, v := range q {
		if strings.EqualFold(k, "sessionId") && len(v) > 0 && v[0] != "" {
			return true
		}
	}
	return false
}

// refusal says an HTTP status is a service's refusal of the request
// (the token missing or wrong, no room): not a sign that the address
// answers no /json/version.
func refusal(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusTooManyRequests
}

// causeText is err's message without the URL a request's error names.
func causeText(err error) string {
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// resolveAuto finds the browser to read among the directories'
// DevToolsActivePort files and the running browsers' ports: the first
// that answers in FindBrowsers' order (the person's before a program's,
// then the most recently started), and logs why it, and what else it
// saw.
func (ep Endpoint) resolveAuto(ctx context.Context, log *slog.Logger) (Resolved, error) {
	found := FindBrowsers(ctx, ep.look())
	if len(found) == 0 || !found[0].Live {
		var stale, silent []string
		for _, f := range found {
			if f.Cmdline {
				silent = append(silent, fmt.Sprintf("%s, port %d (%s)", f.where(), f.Port, f.Why))
				continue
			}
			stale = append(stale, fmt.Sprintf("%s (%s)", f.Dir.Path, f.Why))
		}
		msg := "No browser on this machine allows remote debugging. " +
			"In Chrome, Chromium, Edge or Brave open chrome://inspect/#remote-debugging and allow it."
		if len(stale) > 0 {
			msg += " (Stale DevToolsActivePort files: " + strings.Join(stale, ", ") + ".)"
		}
		if len(silent) > 0 {
			msg += " (Running browsers whose debugging port does not answer: " + strings.Join(silent, ", ") + ".)"
		}
		return Resolved{}, &noBrowserError{msg: msg}
	}
	f := found[0]
	var others []string
	for _, o := range found[1:] {
		state := "live"
		switch {
		case !o.Live && o.Cmdline:
			state = "not answering"
		case !o.Live:
			state = "stale"
		}
		others = append(others, fmt.Sprintf("%s (%s, port %d, %s)", o.where(), state, o.Port, o.Reason()))
	}
	args := []any{"browser", f.Dir.Browser, "dir", f.Dir.Path, "port", f.Port, "why", f.WhyChosen(), "asks_consent", f.Consent()}
	if f.Pid != 0 {
		args = append(args, "pid", f.Pid)
	}
	if len(others) > 0 {
		args = append(args, "also", strings.Join(others, "; "))
	}
	log.Info("found a browser", args...)
	t := Resolved{WS: f.WebSocketURL(), Name: f.Dir.Browser, Asks: f.Consent(), local: true}
	if !f.Consent() {
		t.http = "http://127.0.0.1:" + strconv.Itoa(f.Port)
	}
	return t, nil
}

// look is where auto looks now: the directories, and the browsers
// running now.
func (ep Endpoint) look() Look {
	l := Look{Dirs: ep.dirs, Named: ep.named, RunningKnown: true, Ports: ep.ports}
	if ep.running != nil {
		l.Running, l.RunningKnown = ep.running()
	}
	if ep.listeners != nil {
		l.Listeners = ep.listeners()
	}
	return l
}

// GetJSON reads one /json/* document of a browser that answers them,
// with the endpoint's header and the address's query.
func (t Resolved) GetJSON(ctx context.Context, path string, v any) error {
	if t.http == "" {
		return errors.New("the browser has no /json/* addresses")
	}
	_, err := getJSON(ctx, t.http, path, t.query, t.Header, v)
	return err
}

// ParseHeader turns "Name: value" lines (--header) into a header for
// every HTTP request to the browser's endpoint: the websocket handshake
// and the /json requests. Errors name the line's header name, never its
// value.
func ParseHeader(lines []string) (http.Header, error) {
	h := http.Header{}
	for _, l := range lines {
		name, value, ok := strings.Cut(l, ":")
		name = strings.TrimSpace(name)
		if !ok {
			return nil, errors.New("a --header without a colon: want 'Name: value'")
		}
		if name == "" || strings.ContainsAny(name, " \t\r\n") {
			return nil, fmt.Errorf("--header %q: want 'Name: value', a name without spaces", name)
		}
		value = strings.TrimSpace(value)
		if strings.ContainsAny(value, "\r\n") {
			return nil, fmt.Errorf("--header %s: the value has a line break", name)
		}
		h.Add(name, value)
	}
	return h, nil
}
