package provider

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/cdp"
	"github.com/cdpprovider/cdpprovider/internal/bearer"
	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
)

// clock is a test's time: it moves only when the test moves it, and its
// after fires when the test says so.
type clock struct {
	mu    sync.Mutex
	t     time.Time
	fires chan time.Time // what every after returns
}

func newClock() *clock {
	return &clock{t: time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC), fires: make(chan time.Time)}
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *clock) after(time.Duration) <-chan time.Time { return c.fires }

// stubBrowser is a launched browser that never exits.
type stubBrowser struct{ done chan struct{} }

func (stubBrowser) DebugURL() string        { return "http://127.0.0.1:1" }
func (b stubBrowser) Done() <-chan struct{} { return b.done }

// launches is a world's launch that fails with fail until ok is set, and
// counts its tries; a try waits while hold is not nil and open.
type launches struct {
	mu      sync.Mutex
	tries   int
	ok      bool
	fail    error
	entered chan struct{} // told at each try, when not nil
	hold    chan struct{}
	stopped int
}

func (l *launches) launch(ctx context.Context, cfg Config, log *slog.Logger) (browser, func(), error) {
	l.mu.Lock()
	l.tries++
	ok, fail, entered, hold := l.ok, l.fail, l.entered, l.hold
	l.mu.Unlock()
	if entered != nil {
		entered <- struct{}{}
	}
	if hold != nil {
		<-hold
	}
	if !ok {
		return nil, nil, fail
	}
	return stubBrowser{make(chan struct{})}, func() {
		l.mu.Lock()
		l.stopped++
		l.mu.Unlock()
	}, nil
}

func (l *launches) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tries
}

func (l *launches) succeed() {
	l.mu.Lock()
	l.ok = true
	l.mu.Unlock()
}

// errNoXServer is what browsers.Launch says of a headed Chromium without a
// display.
//
//lint:ignore ST1005 Chromium's own output, as browsers.Launch quotes it
var errNoXServer = errors.New("launch /usr/bin/chromium: browser exited before it reported a DevTools address (exit status 1); its output:\n" +
	"[1:1:ERROR:ui/ozone/platform/x11/ozone_platform_x11.cc:257] Missing X server or $DISPLAY\n" +
	"[1:1:ERROR:ui/aura/env.cc:253] The platform failed to initialize.  Exiting.")

// fakeChromium is an executable named chromium, for --chrome: the name
// the failures give the browser.
func fakeChromium(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// await receives from ch; a minute without is a failure (a bound for a
// broken provider, never a wait).
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("no sign of %s after a minute", what)
		panic("unreachable")
	}
}

// serveStdio runs cfg (a serve on stdio) in w and connects a client;
// the run ends when the test does.
func serveStdio(t *testing.T, cfg Config, w world) (*sdkmcp.ClientSession, *syncbuf.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	clientToServer, serverIn := io.Pipe()
	serverOut, serverToClient := io.Pipe()
	stderr := &syncbuf.Buffer{}
	done := make(chan error, 1)
	go func() {
		done <- runIn(ctx, cfg, clientToServer, serverToClient, stderr, w)
		serverToClient.Close()
	}()
	client := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "test", Version: "0"}, nil)
	session, err := client.Connect(ctx, &sdkmcp.IOTransport{Reader: serverOut, Writer: serverIn}, nil)
	if err != nil {
		cancel()
		t.Fatalf("initialize: %v (run: %v)\nstderr:\n%s", err, <-done, stderr)
	}
	t.Cleanup(func() {
		session.Close()
		if err := <-done; err != nil {
			t.Errorf("serve ended with %v, want nil", err)
		}
		cancel()
	})
	return session, stderr
}

// readError reads uri and returns the error's message, failing the test
// when the read succeeds.
func readError(t *testing.T, cs *sdkmcp.ClientSession, uri string) string {
	t.Helper()
	_, err := cs.ReadResource(context.Background(), &sdkmcp.ReadResourceParams{URI: uri})
	if err == nil {
		t.Fatalf("read %s succeeded, want the failure", uri)
	}
	return err.Error()
}

// wantResources checks the server lists its resources.
func wantResources(t *testing.T, cs *sdkmcp.ClientSession) {
	t.Helper()
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil || len(res.Resources) != 3 {
		t.Fatalf("resources/list = %+v, %v; want current, its screen and descriptor", res, err)
	}
}

// serve --launch --headed without a display: MCP starts all the same,
// every read answers the launch's failure (saying no display, not a
// flag), until a read 10 s after the last try launches again and
// succeeds; reads in between answer at once without a try.
func TestServeAnswersALaunchFailureUntilARetrySucceeds(t *testing.T) {
	t.Setenv("DISPLAY", "")
	clk := newClock()
	l := &launches{fail: errNoXServer}
	w := world{open: opener(&fakeSource{}), launch: l.launch, now: clk.now, after: clk.after}
	cs, stderr := serveStdio(t, Config{Command: Serve, Launch: true, Headed: true, Chrome: fakeChromium(t)}, w)
	wantResources(t, cs)

	for _, uri := range []string{"uicontext://current", "uicontext://descriptor", "uicontext://locate/a1"} {
		msg := readError(t, cs, uri)
		if !strings.Contains(msg, "cdpprovider could not start Chromium: no display (DISPLAY is not set) for a headed browser") {
			t.Errorf("read %s: %q, want it to say there is no display", uri, msg)
		}
		if strings.Contains(msg, "--") {
			t.Errorf("read %s: %q names a flag", uri, msg)
		}
	}
	if !strings.Contains(stderr.String(), "no display (DISPLAY is not set)") {
		t.Errorf("the cause is not logged at start:\n%s", stderr)
	}
	clk.advance(retryLaunch - time.Second)
	readError(t, cs, "uicontext://current")
	if n := l.count(); n != 1 {
		t.Fatalf("%d tries to launch before %v had passed, want the first only", n, retryLaunch)
	}
	clk.advance(time.Second)
	l.succeed()
	res, err := cs.ReadResource(context.Background(), &sdkmcp.ReadResourceParams{URI: "uicontext://current"})
	if err != nil {
		t.Fatalf("read current %v after the failure, the launch now succeeding: %v", retryLaunch, err)
	}
	if !strings.Contains(res.Contents[0].Text, `"role":"Application"`) || l.count() != 2 {
		t.Errorf("read current = %s after %d tries, want the browser's answer after 2", res.Contents[0].Text, l.count())
	}
}

// The failure of a launch is a *cdp.Failure of kind launch-failed, and
// current (the command) still fails at start with the launch's error.
func TestLaunchFailureKind(t *testing.T) {
	t.Setenv("DISPLAY", ":77")
	clk := newClock()
	w := world{open: opener(&fakeSource{}), launch: (&launches{fail: errNoXServer}).launch, now: clk.now, after: clk.after}
	log := slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	src, err := openBrowser(ctx, cancel, Config{Command: Serve, Launch: true, Headed: true, Chrome: fakeChromium(t)}, w, log)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	_, err = src.Current(context.Background())
	var f *cdp.Failure
	if !errors.As(err, &f) || f.Kind != cdp.ReasonLaunchFailed || !strings.Contains(f.Error(), "nothing answers at DISPLAY=:77") {
		t.Errorf("current = %v, want a launch-failed Failure saying nothing answers at the display", err)
	}

	_, err = openBrowser(ctx, cancel, Config{Command: Current, Launch: true, Headed: true}, w, log)
	if !errors.Is(err, errNoXServer) {
		t.Errorf("current --launch: %v, want the launch's error at start", err)
	}
}

// Tries are one at a time: a read that comes while a try runs starts
// none of its own (one whose context has ended answers the last failure
// at once), and every read after the try that succeeds reads the browser.
func TestRelaunchOneTryAtATime(t *testing.T) {
	clk := newClock()
	l := &launches{fail: errNoXServer, entered: make(chan struct{}), hold: make(chan struct{})}
	w := world{open: opener(&fakeSource{}), launch: l.launch, now: clk.now, after: clk.after}
	go func() { <-l.entered }() // the try at start
	close(l.hold)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	cfg := Config{Command: Serve, Launch: true, Chrome: fakeChromium(t)}
	src, err := openBrowser(ctx, cancel, cfg, w, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()

	l.mu.Lock()
	l.ok, l.hold = true, make(chan struct{})
	l.mu.Unlock()
	clk.advance(retryLaunch)
	first := make(chan error, 1)
	go func() {
		_, err := src.Current(context.Background())
		first <- err
	}()
	await(t, l.entered, "the first read's try") // under way, held
	done, stop := context.WithCancel(context.Background())
	stop()
	if _, err := src.Current(done); cdp.ReasonOf(err) != cdp.ReasonLaunchFailed {
		t.Errorf("a read during the try, its context ended: %v, want the last failure", err)
	}
	second := make(chan error, 1)
	go func() {
		_, err := src.Current(context.Background())
		second <- err
	}()
	close(l.hold)
	if err := await(t, first, "the read that tried"); err != nil {
		t.Errorf("the read that tried: %v", err)
	}
	if err := await(t, second, "the read during the try"); err != nil {
		t.Errorf("a read during the try: %v", err)
	}
	if n := l.count(); n != 2 {
		t.Errorf("%d tries, want 2 (at start, and the one the reads shared)", n)
	}
}

// A subscription made while the browser has not started is told when a
// try (made by itself, every retryLaunch) starts it; closing stops the
// launched browser.
func TestRelaunchTellsTheWatcher(t *testing.T) {
	clk := newClock()
	l := &launches{fail: errNoXServer}
	w := world{open: opener(&fakeSource{}), launch: l.launch, now: clk.now, after: clk.after}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	src, err := openBrowser(ctx, cancel, Config{Command: Serve, Launch: true, Chrome: fakeChromium(t)}, w, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 1)
	stop := src.Watch(func() { changed <- struct{}{} })
	clk.advance(retryLaunch)
	l.succeed()
	clk.fires <- clk.now() // the watch's wait has passed
	await(t, changed, "the watcher told that the browser started")
	if _, err := src.Current(context.Background()); err != nil || l.count() != 2 {
		t.Errorf("read after the watch's try: %v after %d tries, want the browser after 2", err, l.count())
	}
	stop()
	if err := src.Close(); err != nil || l.stopped != 1 {
		t.Errorf("Close = %v with %d browsers stopped, want the launched one stopped", err, l.stopped)
	}
}

// A browser address or header serve cannot use: MCP starts (over HTTP
// here), and every read answers a bad-address Failure saying what is
// wrong with it, with no try to connect.
func TestServeAnswersABadAddress(t *testing.T) {
	r := startHTTP(t, Config{Command: Serve, Connect: "ftp://x", HTTP: "127.0.0.1:0", TokenFile: writeToken(t, "tok")})
	cs := connectHTTP(t, r.url, bearer.Transport{Token: "tok"})
	wantResources(t, cs)
	if msg := readError(t, cs, "uicontext://current"); !strings.Contains(msg, `scheme "ftp"`) {
		t.Errorf("read current: %q, want it to name the scheme", msg)
	}

	for _, cfg := range []Config{
		{Command: Serve, Connect: "http://192.0.2.1:9222"},
		{Command: Serve, Connect: "http://127.0.0.1:9222", Headers: []string{"Bearer s3cret"}},
	} {
		opened := false
		w := world{open: func(cdp.Options) (source, error) { opened = true; return &fakeSource{}, nil }}
		ctx, cancel := context.WithCancelCause(context.Background())
		src, err := openBrowser(ctx, cancel, cfg, w, slog.New(slog.DiscardHandler))
		cancel(nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = src.App(context.Background())
		var f *cdp.Failure
		if !errors.As(err, &f) || f.Kind != cdp.ReasonBadAddress || opened {
			t.Errorf("%+v: descriptor = %v (opened %v), want a bad-address Failure and no source opened", cfg, err, opened)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the failure shows the header's value: %v", err)
		}
		if err := (Config{Command: Current, Connect: cfg.Connect, Headers: cfg.Headers}).Validate(); err == nil {
			t.Errorf("current with %+v is valid, want it to fail at start", cfg)
		}
	}
}
