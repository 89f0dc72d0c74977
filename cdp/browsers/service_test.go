package browsers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeService answers as Browserless 2.42 does (recorded from it): every
// request needs its token, ?token=T or Authorization: Bearer T, else 401
// "Bad or missing authentication."; /json/version names the bare address
// as the websocket (a connection there starts a new browser); /sessions
// lists each session's browser and its pages.
type fakeService struct {
	token string
	// sessions is the list's entries, as GET /sessions answers them.
	sessions []sessionEntry
	// noList answers 404 on /sessions: a service that offers no list.
	noList bool
	// browser answers /json/version with a browser's websocket, as a
	// browser behind a proxy that wants a token does.
	browser bool

	mu sync.Mutex
	// asked is each path asked, with whether it carried the token.
	asked map[string]bool
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	authed := r.URL.Query().Get("token") == f.token || r.Header.Get("Authorization") == "Bearer "+f.token
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked[r.URL.Path] = authed
	if !authed {
		w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintln(w, "Bad or missing authentication.")
		return
	}
	switch r.URL.Path {
	case "/json/version":
		if f.browser {
			fmt.Fprintf(w, `{"Browser":"Chrome/156.0.8078.114","webSocketDebuggerUrl":"ws://%s/devtools/browser/x1"}`, r.Host)
			return
		}
		fmt.Fprintf(w, `{"Browser":"Chrome/156.0.8078.114","webSocketDebuggerUrl":"ws://%s"}`, r.Host)
	case "/json/list":
		fmt.Fprint(w, `[{"id":"P1","type":"page"}]`)
	case "/sessions":
		if f.noList {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(f.sessions)
	default:
		http.NotFound(w, r)
	}
}

// serve starts the fake and returns its address, http://127.0.0.1:PORT.
func (f *fakeService) serve(t *testing.T) string {
	t.Helper()
	f.asked = map[string]bool{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

// browserSession is a session's entries in the list: its browser and
// pages pages.
func browserSession(id string, clients, pages int) []sessionEntry {
	es := []sessionEntry{{ID: id, BrowserID: id, Type: "browser", NumbConnected: clients, Running: true}}
	for i := range pages {
		es = append(es, sessionEntry{ID: fmt.Sprintf("%s-p%d", id, i), BrowserID: id, Type: "page", NumbConnected: clients, Running: true,
			BrowserWS: "ws://127.0.0.1:1/devtools/browser/" + id})
	}
	return es
}

// The token of the address's query goes with every request: the
// service's list of sessions, the /json/list of reads and the
// websocket's handshake (in the URL); the /json/version of a browser
// behind a proxy that wants it. A service with a list is asked no
// /json/version: Browserless starts a browser to answer it, which a full
// service refuses (429).
func TestServiceTokenOnEveryRequest(t *testing.T) {
	f := &fakeService{token: "s3cret", sessions: browserSession("b1", 1, 2)}
	base := f.serve(t)
	for _, addr := range []string{base + "?token=s3cret", strings.Replace(base, "http:", "ws:", 1) + "/?token=s3cret"} {
		ep, err := ParseEndpoint(addr, false, []UserDataDir{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := ep.Resolve(context.Background(), discardLogger())
		if err != nil {
			t.Fatalf("Resolve(%s): %v", addr, err)
		}
		if want := strings.Replace(base, "http:", "ws:", 1) + "/devtools/browser/b1?token=s3cret"; tg.WS != want || tg.Session != "b1" || !ep.Service() {
			t.Errorf("Resolve(%s) = WS %q session %q service %v, want %s, session b1 of a service", addr, tg.WS, tg.Session, ep.Service(), want)
		}
		var list []struct{ ID string }
		if err := tg.GetJSON(context.Background(), "/json/list", &list); err != nil || len(list) != 1 {
			t.Errorf("GetJSON /json/list = %v, %v", list, err)
		}
		st, ok, err := tg.SessionState(context.Background())
		if err != nil || !ok || !st.Listed || st.Clients != 1 {
			t.Errorf("SessionState = %+v, %v, %v; want listed with 1 client", st, ok, err)
		}
		f.mu.Lock()
		for _, path := range []string{"/sessions", "/json/list"} {
			if authed, asked := f.asked[path]; !asked || !authed {
				t.Errorf("%s: GET %s asked %v, with the token %v; want asked with it", addr, path, asked, authed)
			}
		}
		if _, asked := f.asked["/json/version"]; asked {
			t.Errorf("%s: GET /json/version asked of a service with a list of sessions", addr)
		}
		f.asked = map[string]bool{}
		f.mu.Unlock()
	}

	f = &fakeService{token: "s3cret", noList: true, browser: true}
	base = f.serve(t)
	ep, err := ParseEndpoint(base+"?token=s3cret", false, []UserDataDir{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ep.Resolve(context.Background(), discardLogger())
	if want := strings.Replace(base, "http:", "ws:", 1) + "/devtools/browser/x1?token=s3cret"; err != nil || tg.WS != want {
		t.Fatalf("a browser behind a proxy: Resolve = %+v, %v; want %s", tg, err, want)
	}
	var list []struct{ ID string }
	if err := tg.GetJSON(context.Background(), "/json/list", &list); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, path := range []string{"/json/version", "/json/list"} {
		if authed, asked := f.asked[path]; !asked || !authed {
			t.Errorf("a browser behind a proxy: GET %s asked %v, with the token %v; want asked with it", path, asked, authed)
		}
	}
}

// A service's refusal is a *StatusError that says what the service said,
// whether the token is missing or wrong; the token is in no message.
func TestServiceRefusalSaysWhatTheServiceSaid(t *testing.T) {
	f := &fakeService{token: "s3cret", sessions: browserSession("b1", 1, 1)}
	base := f.serve(t)
	for _, addr := range []string{base, base + "?token=wrong"} {
		ep, err := ParseEndpoint(addr, false, []UserDataDir{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ep.Resolve(context.Background(), discardLogger())
		se := (*StatusError)(nil)
		if !errors.As(err, &se) || se.Code != http.StatusUnauthorized || se.Said != "Bad or missing authentication." {
			t.Fatalf("Resolve(%s) = %v (%#v), want a 401 StatusError saying \"Bad or missing authentication.\"", addr, err, se)
		}
		if strings.Contains(err.Error(), "wrong") {
			t.Errorf("the error names the token: %v", err)
		}
	}
	// The header carries it as well as the query.
	ep, err := ParseEndpoint(base, false, []UserDataDir{}, http.Header{"Authorization": {"Bearer s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	if tg, err := ep.Resolve(context.Background(), discardLogger()); err != nil || tg.Session != "b1" {
		t.Errorf("with the token as a header: %+v, %v", tg, err)
	}
}

// A service's bare address starts a new browser for every connection:
// the provider never dials it but reads the session the list names, the
// one with pages or the one --session names, and refuses when it cannot
// tell which is the agent's.
func TestServiceSessionChosen(t *testing.T) {
	two := append(browserSession("b1", 1, 1), browserSession("b2", 1, 3)...)
	for _, tc := range []struct {
		name     string
		sessions []sessionEntry
		noList   bool
		session  string
		want     string // the session read, or:
		wantErr  error
		wantMsg  string
	}{
		{name: "one with pages", sessions: append(browserSession("b0", 1, 0), browserSession("b1", 1, 1)...), want: "b1"},
		{name: "none", sessions: nil, wantErr: ErrNoSession, wantMsg: "it lists none"},
		{name: "none with pages", sessions: browserSession("b0", 1, 0), wantErr: ErrNoSession, wantMsg: "b0 with 0 pages"},
		{name: "two with pages", sessions: two, wantErr: ErrSessions, wantMsg: "b1 with 1 pages, b2 with 3 pages"},
		{name: "two, one named", sessions: two, session: "b2", want: "b2"},
		{name: "named, not listed", sessions: two, session: "b9", wantErr: ErrNoSession, wantMsg: "no session b9"},
		{name: "no list", noList: true, wantErr: ErrNoSessionList, wantMsg: "new, blank browser"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeService{token: "T", sessions: tc.sessions, noList: tc.noList}
			ep, err := ParseEndpoint(f.serve(t)+"?token=T", false, []UserDataDir{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			tg, err := ep.ForSession(tc.session).Resolve(context.Background(), discardLogger())
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantMsg) {
					t.Fatalf("Resolve = %+v, %v; want %v saying %q", tg, err, tc.wantErr, tc.wantMsg)
				}
				return
			}
			if err != nil || tg.Session != tc.want || !strings.Contains(tg.WS, "/devtools/browser/"+tc.want+"?token=T") {
				t.Fatalf("Resolve = %+v, %v; want session %s", tg, err, tc.want)
			}
		})
	}
}

// A ws(s) address with a query whose host answers neither /json/version
// nor a list of sessions is dialled as given only when its query names a
// session, as Browserbase's and Steel's connect URLs do; without, it is a
// service's bare address, which starts a new browser, and is refused. A
// refusal there is no such sign.
func TestServiceAddressAsGiven(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	addr := strings.Replace(srv.URL, "http:", "ws:", 1) + "?sessionId=s1&apiKey=k"
	ep, err := ParseEndpoint(addr, false, []UserDataDir{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ep.Resolve(context.Background(), discardLogger())
	if err != nil || tg.WS != addr {
		t.Errorf("Resolve(%s) = %+v, %v; want it as given", addr, tg, err)
	}
	bare := strings.Replace(srv.URL, "http:", "ws:", 1) + "?apiKey=k"
	if ep, err = ParseEndpoint(bare, false, []UserDataDir{}, nil); err != nil {
		t.Fatal(err)
	}
	if tg, err := ep.Resolve(context.Background(), discardLogger()); !errors.Is(err, ErrNoSessionList) {
		t.Errorf("Resolve(%s) = %+v, %v; want ErrNoSessionList: a bare address starts a new browser", bare, tg, err)
	}

	f := &fakeService{token: "T"}
	addr = strings.Replace(f.serve(t), "http:", "ws:", 1) + "?token=wrong"
	if ep, err = ParseEndpoint(addr, false, []UserDataDir{}, nil); err != nil {
		t.Fatal(err)
	}
	if tg, err := ep.Resolve(context.Background(), discardLogger()); err == nil {
		t.Errorf("Resolve(%s) with a wrong token = %+v, want the 401", addr, tg)
	}
}

// A session's own address, with a token, is a service's session: its
// list says whether the service still has it.
func TestServiceSessionAddress(t *testing.T) {
	f := &fakeService{token: "T", sessions: browserSession("b1", 2, 1)}
	base := f.serve(t)
	ep, err := ParseEndpoint(strings.Replace(base, "http:", "ws:", 1)+"/devtools/browser/b1?token=T", false, []UserDataDir{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ep.Resolve(context.Background(), discardLogger())
	if err != nil || tg.Session != "b1" {
		t.Fatalf("Resolve = %+v, %v; want session b1", tg, err)
	}
	if st, ok, err := tg.SessionState(context.Background()); err != nil || !ok || !st.Listed || st.Clients != 2 {
		t.Errorf("SessionState = %+v, %v, %v; want listed with 2 clients", st, ok, err)
	}
	f.mu.Lock()
	f.sessions = nil // the service ended it
	f.mu.Unlock()
	if st, ok, err := tg.SessionState(context.Background()); err != nil || !ok || st.Listed {
		t.Errorf("SessionState after the session ended = %+v, %v, %v; want not listed", st, ok, err)
	}
}
