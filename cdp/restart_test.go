package cdp

import (
	"context"
	"log/slog"
	"net"
	"strconv"
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
	told := make(chan struct{}, 1)
	stop := p.Watch(func() {
		select {
		case told <- struct{}{}:
		default:
		}
	})
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
