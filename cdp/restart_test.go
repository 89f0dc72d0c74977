package cdp

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/internal/elemtest"
)

// onLog is a log handler that signals when a record of its message is
// logged, and drops the rest: a test waits for what the provider does in
// the background.
type onLog struct {
	msg string
	ch  chan struct{}
}

func (h onLog) Enabled(context.Context, slog.Level) bool { return true }

func (h onLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		select {
		case h.ch <- struct{}{}:
		default:
		}
	}
	return nil
}

func (h onLog) WithAttrs([]slog.Attr) slog.Handler { return h }

func (h onLog) WithGroup(string) slog.Handler { return h }

// A browser that restarts on its port (a person's, at every update),
// with a host subscribed: the provider reads it as soon as its port
// listens again, with one dial, and tells the host, rather than wait
// for its next try (set to an hour here, so that only the port can
// bring the read; a minute is this test's limit for it).
func TestWatcherReadsARestartedBrowserAtOnce(t *testing.T) {
	path := testChrome(t)
	page := serve(t, map[string]string{"/": `<title>Restart</title><button>Save</button>`})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	port := closedPort(t)
	debug := "http://127.0.0.1:" + strconv.Itoa(port)
	launch := func() *browsers.Launched {
		t.Helper()
		// A later flag wins in Chrome: this port, not Launch's 0.
		b, err := browsers.Launch(ctx, browsers.LaunchOptions{Path: path, URLs: []string{page + "/"},
			Args: []string{"--remote-debugging-port=" + strconv.Itoa(port)}, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		if b.DebugURL() != debug {
			b.Close()
			t.Fatalf("the browser listens at %s, want %s", b.DebugURL(), debug)
		}
		return b
	}
	b := launch()
	defer func() { b.Close() }()

	failed := make(chan struct{}, 1)
	p, err := NewProvider(Options{Connect: debug, Logger: slog.New(onLog{msg: "a read for the watcher failed", ch: failed})})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.watchRetry = time.Hour
	if _, err := p.Current(ctx); err != nil {
		t.Fatalf("read with the browser up: %v", err)
	}
	told, stop := watchTold(p)
	defer stop()

	if err := b.Close(); err != nil {
		t.Logf("closing the browser: %v", err)
	}
	select {
	case <-failed: // the watcher looked for the browser, and found none
	case <-ctx.Done():
		t.Fatal("the watcher never read after the browser closed")
	}
	if l, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err == nil {
		l.Close()
		t.Fatalf("something still listens on port %d after the browser closed", port)
	}
	select {
	case <-told:
	default:
	}
	dials := p.dials.Load()

	b = launch()
	select {
	case <-told:
	case <-time.After(time.Minute):
		t.Fatalf("the host was not told within a minute of the browser's return on its port (%d dials since): "+
			"the watcher waits for its next try", p.dials.Load()-dials)
	}
	if n := p.dials.Load() - dials; n != 1 {
		t.Errorf("%d dials after the browser came back, want 1", n)
	}
	// The host reads when told, until the page has loaded: each read
	// over the watcher's connection.
	for {
		cur, err := p.Current(ctx)
		if err != nil {
			t.Fatalf("the host's read after it was told: %v", err)
		}
		if len(elemtest.FindAll(cur.Root, "Button", "Save")) == 1 {
			break
		}
		select {
		case <-told:
		case <-ctx.Done():
			t.Fatalf("the page never showed; the last read:\n%s", elemtest.Outline(cur.Root))
		}
	}
	if n := p.dials.Load() - dials; n != 1 {
		t.Errorf("%d dials after the host's reads, want the watcher's one", n)
	}
}

// A port that accepts connections but answers no read (something else
// took it when the browser closed) is not read in a loop: the watcher's
// early read comes only when the port starts to listen after it did
// not, and here it listened all along after one failed read. The test
// counts the watcher's questions there (a TCP connection that says
// nothing) and its reads (an HTTP request), and looks once it has seen
// forty questions, a second of them: without the rule, a read followed
// each.
func TestWatcherLeavesAPortThatAnswersNothing(t *testing.T) {
	path := testChrome(t)
	page := serve(t, map[string]string{"/": `<title>Taken</title><button>Save</button>`})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	port := closedPort(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	b, err := browsers.Launch(ctx, browsers.LaunchOptions{Path: path, URLs: []string{page + "/"},
		Args: []string{"--remote-debugging-port=" + strconv.Itoa(port)}, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := quietProvider(t, Options{Connect: "http://" + addr})
	p.watchRetry = time.Hour
	if _, err := p.Current(ctx); err != nil {
		t.Fatalf("read with the browser up: %v", err)
	}
	defer p.Watch(func() {})()
	if err := b.Close(); err != nil {
		t.Logf("closing the browser: %v", err)
	}

	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("take the browser's port: %v", err)
	}
	defer l.Close()
	var mu sync.Mutex
	questions, reads := 0, 0
	forty := make(chan struct{})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				n, _ := c.Read(make([]byte, 1)) // a question says nothing
				mu.Lock()
				defer mu.Unlock()
				if n > 0 {
					reads++
					return
				}
				if questions++; questions == 40 {
					close(forty)
				}
			}()
		}
	}()
	select {
	case <-forty:
	case <-ctx.Done():
		t.Fatal("the watcher never asked the port again")
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d questions, %d reads", questions, reads)
	// One read may find the port taken: the one after the port, closed
	// when the browser went, listened again.
	if reads > 1 {
		t.Errorf("%d reads of a port that answers nothing in the time of %d questions; want at most 1", reads, questions)
	}
}

// A watcher's read that found nothing listening on the browser's port
// (connection refused) reads again as soon as the port listens, even
// when the browser is back before the watcher first asks the port: the
// refusal is the closed port it waits to see open.
func TestWatcherReadsAPortThatRefusedAtOnce(t *testing.T) {
	port := closedPort(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	p := quietProvider(t, Options{Connect: "http://" + addr})
	p.watchRetry = time.Hour
	_, err := p.Current(context.Background())
	refused := errors.Is(err, syscall.ECONNREFUSED)
	if !refused {
		t.Fatalf("a read with nothing on the port: %v, want it to say the connection was refused", err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen where the browser was: %v", err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	due := make(chan bool, 1)
	go func() { due <- p.untilRetry(addr, refused) }()
	select {
	case ok := <-due:
		if !ok {
			t.Error("untilRetry says the provider closed")
		}
	case <-time.After(time.Minute):
		t.Fatal("no read due within a minute of the port listening again")
	}
}

// The port a watcher asks is the lost browser's on this machine; a
// browser service elsewhere is not asked again and again.
func TestPortOf(t *testing.T) {
	for _, c := range []struct{ ws, want string }{
		{"ws://127.0.0.1:9222/devtools/browser/abc", "127.0.0.1:9222"},
		{"ws://[::1]:9333/devtools/browser/abc", "[::1]:9333"},
		{"ws://localhost:9222/devtools/browser/abc", "localhost:9222"},
		{"wss://browser.example:443/session?token=s3cret", ""},
		{"ws://10.0.0.2:9222/devtools/browser/abc", ""},
		{"", ""},
	} {
		if got := portOf(browsers.Resolved{WS: c.ws}); got != c.want {
			t.Errorf("portOf(%q) = %q, want %q", c.ws, got, c.want)
		}
	}
}
