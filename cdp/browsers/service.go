package browsers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// A browser service (Browserless, Browserbase, Steel, …) runs browsers
// elsewhere, one per session, and starts a new one for every connection
// to its bare address: a connection there reaches a fresh, blank browser,
// never the one an agent is using. The agent's browser is reached at its
// session's own address, which the service's list of sessions names
// (Browserless: GET /sessions). This file finds that session; it asks
// the service over HTTP only, as the rest of this package asks a
// browser's port.

// The errors of finding a service's session. Their messages say what
// the service answered; the provider words them for a person.
var (
	// ErrNoSessionList: the address starts a new browser for every
	// connection and the service offers no list of its sessions.
	ErrNoSessionList = errors.New("the browser service offers no list of its sessions")
	// ErrNoSession: the service's list has no session whose browser has
	// pages, or not the one asked for (--session).
	ErrNoSession = errors.New("the browser service has no such session")
	// ErrSessions: the service has several sessions with pages and none
	// was named.
	ErrSessions = errors.New("the browser service has several sessions")
)

// Session is one browser of a service, from its list of sessions.
type Session struct {
	// ID is the session's browser id: the ID of its
	// ws://…/devtools/browser/ID, and what --session names.
	ID string
	// Pages is how many pages (tabs) its browser has.
	Pages int
	// Clients is how many clients the service counts connected to it,
	// the provider too when it is connected.
	Clients int
	// ws is its browser's websocket path, /devtools/browser/ID.
	ws string
}

// sessionEntry is one entry of Browserless's GET /sessions: a browser
// (type "browser", id the browser's) or one of its targets (type
// "page", …), each naming its browser.
type sessionEntry struct {
	ID            string `json:"id"`
	BrowserID     string `json:"browserId"`
	Type          string `json:"type"`
	NumbConnected int    `json:"numbConnected"`
	Running       bool   `json:"running"`
	BrowserWS     string `json:"browserWSEndpoint"`
}

// listSessions reads the service's sessions at base (http(s)://host)
// with the address's query and header. listed is false when the service
// answers the list's path with 404: it offers no list.
func listSessions(ctx context.Context, base, query string, header http.Header) (sessions []Session, listed bool, err error) {
	var entries []sessionEntry
	status, err := getJSON(ctx, base, "/sessions", query, header, &entries)
	if status == http.StatusNotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	byID := map[string]*Session{}
	var order []string
	for _, e := range entries {
		id := e.BrowserID
		if id == "" && e.Type == "browser" {
			id = e.ID
		}
		if id == "" {
			continue
		}
		s, ok := byID[id]
		if !ok {
			s = &Session{ID: id, ws: "/devtools/browser/" + id}
			byID[id] = s
			order = append(order, id)
		}
		switch e.Type {
		case "browser":
			s.Clients = e.NumbConnected
		case "page":
			s.Pages++
		}
		if u, err := url.Parse(e.BrowserWS); err == nil && strings.HasPrefix(u.Path, "/devtools/browser/") {
			s.ws = u.Path
		}
	}
	for _, id := range order {
		sessions = append(sessions, *byID[id])
	}
	return sessions, true, nil
}

// pickSession chooses among a service's sessions: the one named id, else
// the one whose browser has pages. Several with pages and none named is
// an error that lists them: reading the wrong agent's browser is worse
// than reading none.
func pickSession(sessions []Session, id string) (Session, error) {
	if id != "" {
		i := slices.IndexFunc(sessions, func(s Session) bool { return s.ID == id })
		if i < 0 {
			return Session{}, &sessionError{ErrNoSession, fmt.Sprintf("no session %s in its list (%s)", id, sessionList(sessions))}
		}
		return sessions[i], nil
	}
	var withPages []Session
	for _, s := range sessions {
		if s.Pages > 0 {
			withPages = append(withPages, s)
		}
	}
	switch len(withPages) {
	case 0:
		return Session{}, &sessionError{ErrNoSession, fmt.Sprintf("no session whose browser has pages (%s)", sessionList(sessions))}
	case 1:
		return withPages[0], nil
	}
	return Session{}, &sessionError{ErrSessions, fmt.Sprintf("%d sessions whose browsers have pages (%s)", len(withPages), sessionList(withPages))}
}

// sessionError is an error of finding a session: its message says what
// the list holds, its kind is one of the Err sentinels above.
type sessionError struct {
	kind error
	msg  string
}

func (e *sessionError) Error() string { return e.msg }

func (e *sessionError) Unwrap() error { return e.kind }

// sessionList names sessions for a message: their ids (a browser id
// lets no one in without the service's token) and pages.
func sessionList(sessions []Session) string {
	if len(sessions) == 0 {
		return "it lists none"
	}
	var parts []string
	for _, s := range sessions {
		parts = append(parts, fmt.Sprintf("%s with %d pages", s.ID, s.Pages))
	}
	return strings.Join(parts, ", ")
}

// resolveService finds the session to read at a service whose bare
// address starts a new browser per connection (its /json/version names
// that bare address) in its list of sessions.
func (ep Endpoint) resolveService(ctx context.Context, log *slog.Logger, base *url.URL) (Resolved, error) {
	sessions, listed, err := listSessions(ctx, ep.http, ep.query, ep.header)
	if err != nil {
		return Resolved{}, fmt.Errorf("list the service's sessions: %w", err)
	}
	if !listed {
		return Resolved{}, &sessionError{ErrNoSessionList, "its address starts a new, blank browser for every connection, and GET /sessions answers 404"}
	}
	return ep.serviceSession(log, base, sessions)
}

// serviceSession is the websocket of the session to read among a
// service's sessions, with the address's query.
func (ep Endpoint) serviceSession(log *slog.Logger, base *url.URL, sessions []Session) (Resolved, error) {
	s, err := pickSession(sessions, ep.session)
	if err != nil {
		// The read's failure says so, and serve logs every failed read
		// with it; a subscribed host's retries, every second, would
		// repeat this at a louder level.
		log.Debug("did not connect to the browser service's address: it would start a new, blank browser, not the agent's", "address", ep.Shown(), "err", err)
		return Resolved{}, err
	}
	w := *base
	w.Scheme = "ws"
	if base.Scheme == "https" {
		w.Scheme = "wss"
	}
	w.Path, w.RawQuery = s.ws, ep.query
	log.Info("found the browser service's session", "address", ep.Shown(), "session", s.ID, "pages", s.Pages, "clients", s.Clients,
		"why", whyChosen(ep.session))
	return Resolved{WS: w.String(), http: ep.http, query: ep.query, Name: "the browser", Session: s.ID,
		local: IsLoopback(base.Hostname())}, nil
}

func whyChosen(named string) string {
	if named != "" {
		return "named by --session"
	}
	return "the one session whose browser has pages"
}

// SessionState is what a service's list says of the session a
// connection reads.
type SessionState struct {
	// Listed says the session is in the service's list: false once the
	// service ended it.
	Listed bool
	// Clients is how many clients the service counts connected to it,
	// the provider included.
	Clients int
}

// SessionState asks the service for the state of the session t reads.
// ok is false when t is no service's session or the service offers no
// list: nothing can be known.
func (t Resolved) SessionState(ctx context.Context) (st SessionState, ok bool, err error) {
	if t.Session == "" || t.http == "" {
		return SessionState{}, false, nil
	}
	sessions, listed, err := listSessions(ctx, t.http, t.query, t.Header)
	if err != nil || !listed {
		return SessionState{}, false, err
	}
	for _, s := range sessions {
		if s.ID == t.Session {
			return SessionState{Listed: true, Clients: s.Clients}, true, nil
		}
	}
	return SessionState{}, true, nil
}

// sessionOfPath is the browser id of a ws://…/devtools/browser/ID path,
// empty for any other.
func sessionOfPath(path string) string {
	id, ok := strings.CutPrefix(path, "/devtools/browser/")
	if !ok || strings.Contains(id, "/") {
		return ""
	}
	return id
}

// getJSON GETs base+path with the address's query and header, and
// decodes a 200's JSON into v. A refusal is a *StatusError with what
// the service said; status is 0 when nothing answered.
func getJSON(ctx context.Context, base, path, query string, header http.Header, v any) (status int, err error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	u := base + path
	if query != "" {
		u += "?" + query
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// The URL without its query: the query may hold the token.
		return resp.StatusCode, &StatusError{Code: resp.StatusCode, Said: said(resp.Body),
			Err: fmt.Errorf("GET %s%s: %s", base, path, resp.Status)}
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return resp.StatusCode, fmt.Errorf("GET %s%s: %w", base, path, err)
	}
	return resp.StatusCode, nil
}

// said is the first line of a refusal's body, as a message can quote
// it: what the service said ("Bad or missing authentication.").
func said(body io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(body, 512))
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	line = strings.TrimSpace(line)
	if len(line) > 200 || strings.HasPrefix(line, "<") || strings.HasPrefix(line, "{") {
		return "" // a page or a document, not a sentence
	}
	return line
}
