package cdp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
)

// wantFailure checks that err is a *Failure of kind whose message starts
// with msg and names no command-line flag, and returns the message.
func wantFailure(t *testing.T, what string, err error, kind, msg string) string {
	t.Helper()
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("%s: %v (%T), want a *Failure", what, err, err)
	}
	if f.Kind != kind || ReasonOf(err) != kind {
		t.Errorf("%s: kind %q, want %q (%v)", what, f.Kind, kind, err)
	}
	if !strings.HasPrefix(f.Error(), msg) {
		t.Errorf("%s: message %q, want it to start %q", what, f.Error(), msg)
	}
	if strings.Contains(f.Error(), "--") || strings.Contains(f.Error(), "cdpprovider doctor") {
		t.Errorf("%s: message %q gives command-line advice; the command line adds its own", what, f.Error())
	}
	t.Logf("%s: %s: %s", what, f.Kind, f.Error())
	return f.Error()
}

// quietProvider is a provider of addr that logs nothing.
func quietProvider(t *testing.T, opts Options) *Provider {
	t.Helper()
	opts.Logger = slog.New(slog.DiscardHandler)
	p, err := NewProvider(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// closedPort is a port on 127.0.0.1 where nothing listens.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// A debugging port where nothing listens: browser-unreachable, saying
// nothing answers there, for current, locate and the descriptor alike.
func TestFailureNothingListens(t *testing.T) {
	ctx := context.Background()
	for _, addr := range []string{fmt.Sprintf("127.0.0.1:%d", closedPort(t)), fmt.Sprintf("http://127.0.0.1:%d", closedPort(t))} {
		p := quietProvider(t, Options{Connect: addr})
		want := "Nothing answers at " + addr + ": the browser started with a debugging port is not running, or uses another port."
		_, err := p.Current(ctx)
		if msg := wantFailure(t, "current at "+addr, err, ReasonUnreachable, want); msg != want {
			t.Errorf("current at %s: %q, want %q", addr, msg, want)
		}
		_, err = p.App(ctx)
		wantFailure(t, "the descriptor at "+addr, err, ReasonUnreachable, want)
	}
	// The browser cdpprovider started, gone.
	p := quietProvider(t, Options{Connect: fmt.Sprintf("http://127.0.0.1:%d", closedPort(t)), Launched: true})
	_, err := p.Current(ctx)
	wantFailure(t, "current of a launched browser", err, ReasonUnreachable, "The browser cdpprovider started is not running any more.")
}

// --connect auto, and no browser on this machine allows debugging.
func TestFailureAutoFindsNone(t *testing.T) {
	p := quietProvider(t, Options{Connect: browsers.Auto, UserDataDir: t.TempDir()})
	_, err := p.Current(context.Background())
	wantFailure(t, "auto with no browser", err, ReasonUnreachable,
		"No browser on this machine allows remote debugging. In Chrome, Chromium, Edge or Brave open chrome://inspect/#remote-debugging and allow it.")
	if !errors.Is(err, browsers.ErrNoBrowserFound) {
		t.Errorf("auto with no browser: %v does not match browsers.ErrNoBrowserFound", err)
	}
}

// A browser service that refuses the provider: browser-unreachable with
// the answer's status, what the service said and what it means (401: the
// token is missing or wrong; 429: the service is full), whether the
// /json/version or the websocket's handshake was refused; never the
// advice for a local browser, and the address's secrets stay out of the
// message.
func TestFailureRefused(t *testing.T) {
	for _, c := range []struct {
		code       int
		said, want string
	}{
		{http.StatusUnauthorized, "Bad or missing authentication.", `refused the connection: 401 Unauthorized (it said "Bad or missing authentication."): the token is missing or wrong.`},
		{http.StatusTooManyRequests, "Too many requests", `is full: 429 Too Many Requests (it said "Too many requests"): it runs as many sessions as it allows`},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, c.said, c.code)
		}))
		defer srv.Close()
		ctx := context.Background()
		for _, addr := range []string{srv.URL, "ws://" + srv.Listener.Addr().String() + "/devtools/browser/abc"} {
			p := quietProvider(t, Options{Connect: addr})
			_, err := p.Current(ctx)
			msg := wantFailure(t, addr, err, ReasonUnreachable, "The browser service at "+addr+" "+c.want)
			if strings.Contains(msg, "debugging port") || strings.Contains(msg, "remote debugging") {
				t.Errorf("%s: %q gives a local browser's advice", addr, msg)
			}
		}
		// With the token in the query, the message shows none of it.
		p := quietProvider(t, Options{Connect: srv.URL + "?token=s3cret"})
		_, err := p.Current(ctx)
		if msg := wantFailure(t, "with a token", err, ReasonUnreachable, "The browser service at "+srv.URL+"?… "+c.want); strings.Contains(msg, "s3cret") {
			t.Errorf("the message names the token: %q", msg)
		}
	}

	// A service elsewhere: its words, without the token of its URL.
	ep, err := browsers.ParseEndpoint("wss://user:pw@browser.example/session?token=s3cret", true, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &Provider{ep: ep}
	refused := &browsers.StatusError{Code: http.StatusUnauthorized, Err: errors.New(`GET "wss://browser.example/session?token=s3cret": 401`)}
	msg := p.unreachableMessage(refused, "the browser")
	if want := "The browser service at wss://browser.example/session?… refused the connection: 401 Unauthorized."; msg != want {
		t.Errorf("a service that refuses: %q, want %q", msg, want)
	}
	msg = p.unreachableMessage(fmt.Errorf("failed to WebSocket dial: %w", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("no route to host")}), "the browser")
	if want := "The browser service at wss://browser.example/session?… cannot be reached: dial tcp: no route to host."; msg != want {
		t.Errorf("a service that cannot be reached: %q, want %q", msg, want)
	}
}

// A read that fails with the connection alive is read-failed; one whose
// connection is gone is browser-restarting.
func TestFailureDuringARead(t *testing.T) {
	p := &Provider{}
	err := p.failure("read the browser's windows and pages", errors.New("Target.getTargets: boom"))
	wantFailure(t, "a failed call", err, ReasonReadFailed, "Could not read the browser's windows and pages: Target.getTargets: boom.")
}

// A read whose connection ended under it is browser-restarting, saying
// the browser went away; but one whose connection the provider dropped
// because the browser stopped answering says so, read-failed (the next
// read dials again).
func TestFailureOfAnEndedConnection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ws.Read(r.Context()) // until the provider's side closes
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, _, err := wire.StartDial(ctx, "ws://"+srv.Listener.Addr().String()+"/devtools/browser/x", nil, false).Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	p := &Provider{conn: c, lastProduct: "Chromium"}
	err = p.failure("read the browser's windows and pages", errors.New("Target.getTargets: the connection to the browser is closed"))
	wantFailure(t, "a read whose connection ended", err, ReasonRestarting,
		"Chromium went away while the provider tried to read the browser's windows and pages")
	err = p.failure("read the browser's windows and pages", fmt.Errorf("Target.getTargets: %w", wire.ErrStalled))
	wantFailure(t, "a read whose browser stopped answering", err, ReasonReadFailed,
		"Could not read the browser's windows and pages: Target.getTargets: the browser stopped answering.")
}

// A browser that worked in this run and then went away: every read until
// it is back is browser-restarting, saying the connection ended; once a
// browser answers on the port again the reads work.
func TestFailureRestarting(t *testing.T) {
	path := testChrome(t)
	page := serve(t, map[string]string{"/": `<title>Restart</title><button>Save</button>`})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b, err := browsers.Launch(ctx, browsers.LaunchOptions{Path: path, URLs: []string{page + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	p := quietProvider(t, Options{Connect: b.DebugURL()})
	if _, err := p.Current(ctx); err != nil {
		b.Close()
		t.Fatalf("read with the browser up: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Logf("closing the browser: %v", err)
	}
	for i := range 3 {
		_, err := p.Current(ctx)
		msg := wantFailure(t, fmt.Sprintf("read %d after the browser closed", i), err, ReasonRestarting, "")
		if !strings.Contains(msg, "ended") && !strings.Contains(msg, "went away") {
			t.Errorf("read %d after the browser closed: %q does not say the connection ended", i, msg)
		}
	}
	_, err = p.App(ctx)
	wantFailure(t, "the descriptor after the browser closed", err, ReasonRestarting, "")
}
