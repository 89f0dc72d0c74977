package cdp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"log/slog"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// consentGate stands in front of a browser's websocket as a browser whose
// person allowed debugging at chrome://inspect does: /json/* answers 404,
// and each websocket handshake waits until the test, playing the person,
// answers the "Allow remote debugging?" dialog (403 on Cancel). It counts
// the handshakes: each would be a dialog of its own.
type consentGate struct {
	srv        *httptest.Server
	asked      chan chan bool // each handshake sends the channel of its answer
	handshakes atomic.Int32
	mu         sync.Mutex
	headers    []http.Header // of each handshake; guarded by mu
}

func newConsentGate(t *testing.T, browserWS string) (*consentGate, string) {
	t.Helper()
	u, err := url.Parse(browserWS)
	if err != nil {
		t.Fatal(err)
	}
	g := &consentGate{asked: make(chan chan bool, 8)}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: u.Host})
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/devtools/browser/") {
			http.NotFound(w, r)
			return
		}
		g.handshakes.Add(1)
		g.mu.Lock()
		g.headers = append(g.headers, r.Header.Clone())
		g.mu.Unlock()
		answer := make(chan bool, 1)
		g.asked <- answer
		select {
		case allow := <-answer:
			if !allow {
				http.Error(w, "Connection rejected", http.StatusForbidden)
				return
			}
			proxy.ServeHTTP(w, r)
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(g.srv.Close)
	return g, "ws://" + g.srv.Listener.Addr().String() + u.Path
}

// lockedLog is a log the test reads while the provider writes it.
type lockedLog = syncbuf.Buffer

// A browser that asks its person: reads answer at once, with what to do,
// while the person has not answered; Cancel is an error of its own and the
// next read asks again; after Allow, one connection serves every read,
// locate, walk and watcher, with no second handshake.
func TestConsent(t *testing.T) {
	path := testChrome(t)
	page := serve(t, map[string]string{"/": `<title>Consent</title><button>Save</button><p>Hello</p>`})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b, err := browsers.Launch(ctx, browsers.LaunchOptions{Path: path, URLs: []string{page + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// The page loads first (the test's own connection, not through the
	// gate): on a busy machine the launch's page could still be loading,
	// its document empty, when the read after Allow comes.
	u := newUser(t, ctx, b.DebugURL())
	defer u.close()
	u.waitLoaded(t, 0)
	gate, ws := newConsentGate(t, b.WebSocketURL())

	var logs lockedLog
	const secret = "s3cret-token-value"
	p, err := NewProvider(Options{
		Connect: ws,
		Header:  http.Header{"Authorization": {"Bearer " + secret}},
		Logger:  slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	// The person has not answered: each read says so at once, and there
	// is one handshake.
	for i := range 2 {
		_, err := p.Current(ctx)
		if !errors.Is(err, wire.ErrConsentPending) || !strings.Contains(err.Error(), "click Allow") || ReasonOf(err) != ReasonConsentPending {
			t.Fatalf("read %d while the browser asks: %v (%s), want ErrConsentPending (%s) saying to click Allow", i, err, ReasonOf(err), ReasonConsentPending)
		}
	}
	answer := <-gate.asked

	// Cancel: an error of its own; the next read asks again.
	answer <- false
	if _, err := readAnswered(ctx, p); !errors.Is(err, wire.ErrConsentDeclined) || !strings.Contains(err.Error(), "asks again") || ReasonOf(err) != ReasonConsentDeclined {
		t.Fatalf("read after Cancel: %v (%s), want ErrConsentDeclined (%s) saying the next read asks again", err, ReasonOf(err), ReasonConsentDeclined)
	}
	if _, err := p.Current(ctx); !errors.Is(err, wire.ErrConsentPending) {
		t.Fatalf("read after the read that said Cancel: %v, want it to ask again", err)
	}
	answer = <-gate.asked

	// Allow: reads work, and one connection serves them all.
	answer <- true
	cur, err := readAnswered(ctx, p)
	if err != nil {
		t.Fatalf("read after Allow: %v", err)
	}
	button := first(cur.Root, func(e *mapping.Element) bool { return e.Role == "Button" && e.Title == "Save" })
	if button == nil {
		t.Fatalf("no Save button in the read after Allow:\n%s", strings.Join(outlineOf(cur.Root), "\n"))
	}
	stop := p.Watch(func() {})
	for i := range 20 {
		if _, err := p.Current(ctx); err != nil {
			t.Fatalf("read %d after Allow: %v", i, err)
		}
		if loc, err := p.Locate(ctx, button.ID); err != nil || loc.State != "onscreen" {
			t.Fatalf("locate %d after Allow: %+v, %v", i, loc, err)
		}
	}
	waitWalked(t, ctx, p)
	stop()
	if n := gate.handshakes.Load(); n != 2 {
		t.Errorf("%d handshakes, want 2 (one Cancel, one Allow): a read, locate, walk or watcher opened a connection of its own", n)
	}
	gate.mu.Lock()
	for i, h := range gate.headers {
		if got := h.Get("Authorization"); got != "Bearer "+secret {
			t.Errorf("handshake %d: Authorization %q, want the --header value", i, got)
		}
	}
	gate.mu.Unlock()
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the log shows the header's value:\n%s", logs.String())
	}
}

// readAnswered reads current until the read no longer waits for the
// person: the person has answered, and the browser's answer has arrived.
func readAnswered(ctx context.Context, p *Provider) (*mapping.Current, error) {
	for {
		cur, err := p.Current(ctx)
		if !errors.Is(err, wire.ErrConsentPending) || ctx.Err() != nil {
			return cur, err
		}
	}
}
