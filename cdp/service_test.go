package cdp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fakeService answers as Browserless does without a browser behind it:
// /json/version names its bare address, and /sessions lists the entries
// given (nil: 404, a service with no list).
func fakeService(t *testing.T, sessions string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Query().Get("token") != "T":
			http.Error(w, "Bad or missing authentication.", http.StatusUnauthorized)
		case r.URL.Path == "/json/version":
			fmt.Fprintf(w, `{"Browser":"Chrome/156.0","webSocketDebuggerUrl":"ws://%s"}`, r.Host)
		case r.URL.Path == "/sessions" && sessions != "":
			fmt.Fprint(w, sessions)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A service's address whose session cannot be told, or that offers no
// list, is never dialled: browser-unreachable saying why, of the kind
// the command line's advice follows (ServiceAnswer); a service on this
// machine that does not answer is a service, not a debugging port.
func TestFailureServiceSessions(t *testing.T) {
	ctx := context.Background()
	two := `[{"id":"b1","browserId":"b1","type":"browser","numbConnected":1},{"id":"p1","browserId":"b1","type":"page"},` +
		`{"id":"b2","browserId":"b2","type":"browser","numbConnected":1},{"id":"p2","browserId":"b2","type":"page"}]`
	for _, c := range []struct {
		name, sessions, session, want, kind string
	}{
		{"two sessions", two, "", "has no session cdpprovider can tell is the agent's: 2 sessions whose browsers have pages " +
			"(b1 with 1 pages, b2 with 1 pages). A connection to the service's own address would start a new, blank browser", ServiceNoSession},
		{"no session", "[]", "", "has no session cdpprovider can tell is the agent's: no session whose browser has pages (it lists none)", ServiceNoSession},
		{"not listed", two, "b9", "has no session cdpprovider can tell is the agent's: no session b9 in its list", ServiceNoSession},
		{"no list", "", "", "starts a new, blank browser for every connection to that address and offers no list of its sessions", ServiceNoList},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := fakeService(t, c.sessions) + "?token=T"
			p := quietProvider(t, Options{Connect: addr, Session: c.session})
			_, err := p.Current(ctx)
			wantFailure(t, c.name, err, ReasonUnreachable, "The browser service at "+strings.TrimSuffix(addr, "token=T")+"… "+c.want)
			if got := ServiceAnswer(err); got != c.kind {
				t.Errorf("%s: ServiceAnswer = %q, want %q", c.name, got, c.kind)
			}
		})
	}
	addr := fmt.Sprintf("http://127.0.0.1:%d?token=T", closedPort(t))
	p := quietProvider(t, Options{Connect: addr})
	_, err := p.Current(ctx)
	wantFailure(t, "a service that does not answer", err, ReasonUnreachable, "The browser service at "+strings.TrimSuffix(addr, "token=T")+"… cannot be reached: ")
}
