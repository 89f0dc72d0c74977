package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/cdp"
	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// BenchmarkRestart times how soon a provider reads a browser that
// restarted, as a person's does at every update. One operation kills
// the browser (started with --remote-debugging-port, as a person starts
// one, on a profile of its own), reads once while it is down (answered
// browser-restarting), starts it again on the same port and profile,
// and reads until an answer shows the 1k page whole. It is timed from
// the moment the new browser's /json/version answers (polled every
// 5 ms) to the end of that read: what the provider adds to the
// browser's own start. Beside a raw client (rawReader: the browser's
// own start, the floor), three hosts:
//
//   - read: the provider in process, a host that reads back to back
//     from the moment /json/version answers;
//   - told: the provider in process, a host subscribed (Watch) that,
//     its read answered browser-restarting, reads again only when told
//     that the answer may have changed (protocol.md §7.2);
//   - serve-told: the same host over MCP, subscribed to
//     uicontext://current, of `cdpprovider serve --connect`.
//
// Reports restart-ms (the median; the target is 300), first-ms (the
// median time of the first read after the restart), reads/op, and for
// the hosts that are told, told-ms: the median time from /json/version
// answering to the first notification after it (the provider read the
// browser again and found it back).
func BenchmarkRestart(b *testing.B) {
	path := chromeFor(b)
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	pg := Pages[0]
	url := srv.URL + "/" + pg.File
	port := freePort(b)
	debug := "http://127.0.0.1:" + strconv.Itoa(port)
	// Not b.TempDir: a killed browser's helpers can still write in its
	// profile as they exit, and TempDir's removal then fails the run.
	profile, err := os.MkdirTemp("", "cdpprovider-bench-restart-")
	if err != nil {
		b.Fatal(err)
	}
	defer removeProfile(profile)
	br := startChrome(b, path, port, profile, url)
	defer func() { br.kill() }()
	waitVersion(b, debug)

	run := func(b *testing.B, h host) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if _, err := h.untilShown(ctx); err != nil {
			b.Fatalf("the first read: %v", err)
		}
		var back, first, told samples
		reads := 0
		for b.Loop() {
			b.StopTimer()
			br.kill()
			if _, err := h.shows(ctx); err == nil {
				b.Fatal("a read with the browser killed answered")
			}
			h.forget()
			br = startChrome(b, path, port, profile, url)
			up := make(chan time.Time, 1)
			go func() { up <- waitVersion(b, debug) }()
			var t0 time.Time
			if h.told == nil {
				t0 = <-up
			}
			b.StartTimer()
			r, err := h.untilShown(ctx)
			done := time.Now()
			b.StopTimer()
			if err != nil {
				b.Fatalf("the reads after the restart: %v", err)
			}
			if h.told != nil {
				t0 = <-up
			}
			back.add(done.Sub(t0))
			first.add(r.first)
			if t, ok := r.toldAfter(t0); ok {
				told.add(t.Sub(t0))
			}
			reads += r.reads
			b.StartTimer()
		}
		b.ReportMetric(ms(back.median()), "restart-ms")
		b.ReportMetric(ms(first.median()), "first-ms")
		b.ReportMetric(float64(reads)/float64(len(back)), "reads/op")
		if h.told != nil {
			b.ReportMetric(ms(told.median()), "told-ms")
		}
		b.Logf("the page read right after /json/version answered, ms: %v", back)
	}
	b.Run("raw", func(b *testing.B) {
		r := &rawReader{debug: debug, heading: lastHeading(pg)}
		defer r.close()
		run(b, host{shows: r.shows})
	})
	b.Run("read", func(b *testing.B) {
		p := restartProvider(b, debug)
		run(b, host{shows: reads(p.Current, pg)})
	})
	b.Run("told", func(b *testing.B) {
		p := restartProvider(b, debug)
		told := make(chan struct{}, 1)
		defer p.Watch(func() { signal(told) })()
		run(b, host{shows: reads(p.Current, pg), told: told})
	})
	b.Run("serve-told", func(b *testing.B) {
		told := make(chan struct{}, 1)
		s := serveAt(b, binaryAlone(b), debug, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(context.Context, *mcp.ResourceUpdatedNotificationRequest) { signal(told) },
		})
		defer s.close(b)
		if err := s.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "uicontext://current"}); err != nil {
			b.Fatalf("subscribe: %v", err)
		}
		run(b, host{shows: reads(s.current, pg), told: told})
	})
}

// restartProvider is a provider of the browser at debug that logs
// nothing and never rests, closed when b ends.
func restartProvider(b *testing.B, debug string) *cdp.Provider {
	b.Helper()
	p, err := cdp.NewProvider(cdp.Options{Connect: debug, Logger: quiet, RestAfter: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	return p
}

// signal sends on ch unless a signal waits there already.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// host is how a host reads: shows reads and says whether the answer
// shows the page; told, when not nil, is where it is told the answer may
// have changed, and it reads only then (but for its first read).
type host struct {
	shows func(ctx context.Context) (bool, error)
	told  chan struct{}
}

// reads is a host's read of uicontext://current that shows pg whole.
func reads(read func(ctx context.Context) (*mapping.Current, error), pg Page) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		cur, err := read(ctx)
		return err == nil && pageShown(cur.Root, pg), err
	}
}

// forget drops what the host was told before now.
func (h host) forget() {
	if h.told != nil {
		select {
		case <-h.told:
		default:
		}
	}
}

// recovery is how a host came to read a page right.
type recovery struct {
	first time.Duration // the first read
	reads int           // the reads it took, that one included
	told  []time.Time   // when it was told, before each read after the first
}

// toldAfter is when the host was first told at t0 or later: a
// notification of the connection's end can come late.
func (r recovery) toldAfter(t0 time.Time) (time.Time, bool) {
	for _, t := range r.told {
		if !t.Before(t0) {
			return t, true
		}
	}
	return time.Time{}, false
}

// untilShown reads, back to back or each time the host is told, until
// an answer shows pg whole (pageShown).
func (h host) untilShown(ctx context.Context) (recovery, error) {
	var r recovery
	for {
		if h.told != nil && r.reads > 0 {
			select {
			case <-h.told:
				r.told = append(r.told, time.Now())
			case <-ctx.Done():
				return r, fmt.Errorf("%d reads, then no news: %w", r.reads, ctx.Err())
			}
		}
		t0 := time.Now()
		ok, err := h.shows(ctx)
		if r.reads == 0 {
			r.first = time.Since(t0)
		}
		r.reads++
		if ok {
			return r, nil
		}
		if ctx.Err() != nil {
			return r, fmt.Errorf("%d reads, the last: %v", r.reads, err)
		}
	}
}

// pageShown says an answer is a read of pg whole, down to its last
// section's heading, with no Document saying it could not be read
// (showsPage, which fails the benchmark instead).
func pageShown(root *mapping.Element, pg Page) bool {
	if elemtest.First(root, func(e *mapping.Element) bool { return e.Role == "Document" && e.Description != "" }) != nil {
		return false
	}
	last := lastHeading(pg)
	return elemtest.First(root, func(e *mapping.Element) bool { return e.Title == last }) != nil
}

// lastHeading is the text of pg's last section's heading.
func lastHeading(pg Page) string {
	return fmt.Sprintf("Section %d: %s", pg.Sections-1, words(pg.Sections-1, 2))
}

// rawReader is the floor a provider is measured against: a client that
// knows which tab to read and what to look for, over one connection of
// its own to the browser (cdp/wire), attached to its first page, asking
// getFullAXTree of it until the last heading is there. What it takes
// after /json/version answers is the browser's own start: the page's
// load and its accessibility tree.
type rawReader struct {
	debug, heading string
	c              *wire.Conn
	s              *wire.Session
}

// shows reads the page's tree, connecting and attaching first when the
// connection is gone (a restart), and says whether it has the heading.
func (r *rawReader) shows(ctx context.Context) (bool, error) {
	if r.c != nil && !r.c.Alive() {
		r.close()
	}
	if r.c == nil {
		if err := r.connect(ctx); err != nil {
			return false, err
		}
	}
	if r.s == nil {
		infos, err := cdproto.Call(ctx, r.c.Browser(), target.GetTargets, target.GetTargetsParams{})
		if err != nil {
			return false, err
		}
		for _, ti := range infos.TargetInfos {
			if ti.Type != "page" {
				continue
			}
			a, err := cdproto.Call(ctx, r.c.Browser(), target.AttachToTarget, target.AttachToTargetParams{TargetID: ti.TargetID, Flatten: ptr(true)})
			if err != nil {
				return false, err
			}
			r.s = r.c.Session(a.SessionID, &wire.Owner{Life: ctx, Log: quiet, Changed: func(string, target.SessionID) {}}, nil)
			break
		}
		if r.s == nil {
			return false, nil // no tab yet
		}
	}
	nodes, err := rawTree(ctx, r.s)
	if err != nil {
		return false, err
	}
	for _, n := range nodes {
		if n.Name != nil && strings.Contains(string(n.Name.Value), r.heading) {
			return true, nil
		}
	}
	return false, nil
}

// connect dials the browser's websocket, as /json/version names it.
func (r *rawReader) connect(ctx context.Context) error {
	resp, err := http.Get(r.debug + "/json/version")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return err
	}
	c, _, err := wire.StartDial(ctx, v.WS, nil, false).Wait(ctx)
	if err != nil {
		return err
	}
	r.c = c
	return nil
}

func (r *rawReader) close() {
	if r.c != nil {
		r.c.Close()
	}
	r.c, r.s = nil, nil
}

func ptr[T any](v T) *T { return &v }

// chromeFor returns the browser to start, skipping without one (failing
// under CI=true), as setup does.
func chromeFor(b *testing.B) string {
	b.Helper()
	path, err := browsers.FindChrome("")
	if err != nil {
		if os.Getenv("CI") == "true" {
			b.Fatalf("no Chromium to measure (CI=true: failing instead of skipping): %v", err)
		}
		b.Skipf("no Chromium to measure (set $CHROME to a Chromium or Chrome binary, or put chromium on PATH): %v", err)
	}
	return path
}

// freePort is a port on 127.0.0.1 that nothing listens on now.
func freePort(b *testing.B) int {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// chrome is a browser the benchmark started on a port of its choosing,
// as a person starts one with --remote-debugging-port.
type chrome struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

// startChrome starts the browser at path, headless, on port with the
// profile, showing url.
func startChrome(b *testing.B, path string, port int, profile, url string) *chrome {
	b.Helper()
	args := []string{
		"--remote-debugging-port=" + strconv.Itoa(port),
		"--remote-debugging-address=127.0.0.1",
		"--user-data-dir=" + profile,
		"--headless=new", "--disable-gpu", "--window-size=1280,800",
		"--no-first-run", "--no-default-browser-check", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-default-apps",
		"--password-store=basic", "--use-mock-keychain",
	}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	cmd := exec.Command(path, append(args, url)...)
	if err := cmd.Start(); err != nil {
		b.Fatalf("start %s: %v", path, err)
	}
	c := &chrome{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(c.done) }()
	return c
}

// kill kills the browser, as a crash or an update does, and waits for
// it to exit, so that its port is free for the next one.
func (c *chrome) kill() {
	c.cmd.Process.Kill()
	<-c.done
}

// removeProfile removes a browser's profile directory once its helpers
// have let go of it, trying for a few seconds.
func removeProfile(dir string) {
	for range 50 {
		if os.RemoveAll(dir) == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Fprintln(os.Stderr, "bench: could not remove", dir)
}

// waitVersion polls the browser's /json/version until it answers, and
// returns when it first did.
func waitVersion(b *testing.B, debug string) time.Time {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := client.Get(debug + "/json/version")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Now()
			}
		}
		if time.Now().After(deadline) {
			b.Errorf("%s/json/version did not answer in 2 minutes: %v", debug, err)
			return time.Now()
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// binaryAlone builds cmd/cdpprovider into the benchmark's own temporary
// directory (binary's is the shared browser's setup's).
func binaryAlone(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "cdpprovider")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/cdpprovider/cdpprovider/cmd/cdpprovider").CombinedOutput()
	if err != nil {
		b.Fatalf("go build ./cmd/cdpprovider: %v\n%s", err, out)
	}
	return bin
}

// serveAt runs `cdpprovider serve --connect debug` and starts an MCP
// session on its stdin and stdout with opts, as startServe does for the
// shared browser.
func serveAt(b *testing.B, bin, debug string, opts *mcp.ClientOptions) *served {
	b.Helper()
	return serveArgs(b, bin, opts, "--connect", debug)
}

// current reads uicontext://current over MCP.
func (s *served) current(ctx context.Context) (*mapping.Current, error) {
	res, err := s.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "uicontext://current"})
	if err != nil {
		return nil, err
	}
	if len(res.Contents) != 1 {
		return nil, fmt.Errorf("%d contents, want one", len(res.Contents))
	}
	var cur mapping.Current
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &cur); err != nil {
		return nil, err
	}
	return &cur, nil
}
