package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/cdp"
	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// fakeSource answers with a fixed tree, and records how it was opened.
type fakeSource struct {
	opts    cdp.Options
	closed  bool
	screens atomic.Int64 // the reads of Screen
	// onCurrent runs at each read of current, for checks against the
	// launched browser while it runs.
	onCurrent func() error
}

// Screen answers as Current (the fake's page is all on screen), counted.
func (f *fakeSource) Screen(ctx context.Context) (*mapping.Current, error) {
	f.screens.Add(1)
	return f.Current(ctx)
}

func (f *fakeSource) Current(ctx context.Context) (*mapping.Current, error) {
	if f.onCurrent != nil {
		if err := f.onCurrent(); err != nil {
			return nil, err
		}
	}
	return &mapping.Current{Protocol: mapping.Protocol, Instance: "00000000-0000-4000-8000-000000000000", Root: &mapping.Element{
		ID: "a1", Role: "Application", Title: "Chromium", States: []string{"focused"},
		Children: []*mapping.Element{{ID: "w1", Role: "Window", Title: "Harbor Books: checkout"}},
	}}, nil
}

func (f *fakeSource) Locate(ctx context.Context, id string) (*mapping.Location, error) {
	return nil, mapping.ErrCannotPlace
}

func (f *fakeSource) App(ctx context.Context) (mapping.App, error) {
	return mapping.App{Title: "Chromium", Bundle: "org.chromium.Chromium"}, nil
}

func (f *fakeSource) Watch(changed func()) (stop func()) { return func() {} }

func (f *fakeSource) Screenshot(ctx context.Context, doc string) ([]byte, error) {
	return nil, errors.New("no screenshots here")
}

// At answers the Window's frame on the screen's quarter of positive
// coordinates, and no window elsewhere.
func (f *fakeSource) At(ctx context.Context, x, y float64) (*mapping.Hit, error) {
	cur, err := f.Current(ctx)
	if err != nil {
		return nil, err
	}
	if x < 0 || y < 0 {
		return mapping.HitAt(cur.Root, x, y, mapping.OffWindows, nil), nil
	}
	return mapping.HitAt(cur.Root, x, y, mapping.InWindowFrame, []string{"w1"}), nil
}

func (f *fakeSource) Close() error { f.closed = true; return nil }

// opener returns an openSource that hands out f.
func opener(f *fakeSource) openSource {
	return func(opts cdp.Options) (source, error) {
		f.opts = opts
		return f, nil
	}
}

func TestRunVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), Config{Command: PrintVersion}, nil, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if got, want := stdout.String(), "cdpprovider "+Version+"\n"; got != want {
		t.Errorf("version printed %q, want %q", got, want)
	}
}

func TestRunInvalid(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), Config{Command: Serve, Connect: "http://127.0.0.1:9222", Launch: true}, nil, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("Run(--connect and --launch) = %v, want an error naming the fix", err)
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

func TestRunCurrentJSON(t *testing.T) {
	f := &fakeSource{}
	var stdout, stderr bytes.Buffer
	cfg := Config{Command: Current, Connect: "127.0.0.1:9222", JSON: true, MaxText: 100, BundleID: "com.example.B"}
	if err := run(context.Background(), cfg, nil, &stdout, &stderr, opener(f)); err != nil {
		t.Fatal(err)
	}
	want, _ := f.Current(context.Background())
	wantJSON, _ := json.Marshal(want)
	if got := stdout.String(); got != string(wantJSON)+"\n" {
		t.Errorf("current --json printed\n%s\nwant\n%s", got, wantJSON)
	}
	if f.opts.Connect != "127.0.0.1:9222" || f.opts.Budget.MaxText != 100 || f.opts.Budget.MaxElements != mapping.DefaultBudget.MaxElements ||
		f.opts.BundleID != "com.example.B" || f.opts.Logger == nil {
		t.Errorf("source opened with %+v", f.opts)
	}
	if !f.closed {
		t.Error("source not closed")
	}
}

func TestRunCurrentOutline(t *testing.T) {
	var stdout, stderr bytes.Buffer
	cfg := Config{Command: Current, Connect: "127.0.0.1:9222"}
	if err := run(context.Background(), cfg, nil, &stdout, &stderr, opener(&fakeSource{})); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Application", "Chromium", "Window", "Harbor Books: checkout"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("outline lacks %q:\n%s", want, stdout.String())
		}
	}
}

// --screen makes current and watch read the screen, not the page.
func TestRunScreen(t *testing.T) {
	for _, screen := range []bool{false, true} {
		var stdout, stderr bytes.Buffer
		f := &fakeSource{}
		if err := run(context.Background(), Config{Command: Current, Connect: "127.0.0.1:9222", Screen: screen}, nil, &stdout, &stderr, opener(f)); err != nil {
			t.Fatal(err)
		}
		if got := f.screens.Load() > 0; got != screen || !strings.Contains(stdout.String(), "Harbor Books: checkout") {
			t.Errorf("current, Screen %v: read the screen %d times, printed:\n%s", screen, f.screens.Load(), stdout.String())
		}
	}
	f := &fakeSource{}
	runWatchOnce(t, Config{Command: Watch, Connect: "127.0.0.1:9222", Screen: true}, f)
	if f.screens.Load() == 0 {
		t.Error("watch --screen printed without reading the screen")
	}
	if err := (Config{Command: Find, Text: "x", Screen: true}).Validate(); err == nil || !strings.Contains(err.Error(), "--screen is for current and watch only") {
		t.Errorf("find --screen: %v, want refused", err)
	}
}

func TestRunServe(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	clientToServer, serverIn := io.Pipe()
	serverOut, serverToClient := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		cfg := Config{Command: Serve, Connect: "http://127.0.0.1:9222"}
		done <- run(ctx, cfg, clientToServer, serverToClient, &stderr, opener(&fakeSource{}))
		serverToClient.Close()
	}()

	client := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "test", Version: "0"}, nil)
	session, err := client.Connect(ctx, &sdkmcp.IOTransport{Reader: serverOut, Writer: serverIn}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if got := session.InitializeResult().ServerInfo; got.Name != Name || got.Version != Version {
		t.Errorf("server info = %+v, want %s %s", got, Name, Version)
	}
	res, err := session.ReadResource(ctx, &sdkmcp.ReadResourceParams{URI: "uicontext://current"})
	if err != nil {
		t.Fatalf("read current: %v", err)
	}
	if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, `"role":"Application"`) {
		t.Errorf("current = %+v", res.Contents)
	}
	session.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after the client left = %v, want nil", err)
		}
	case <-ctx.Done():
		t.Fatal("Run did not return after the client disconnected")
	}
}

// TestRunLaunch runs current --launch against a real browser on the demo
// page, with a fake source that looks at the browser while it runs.
func TestRunLaunch(t *testing.T) {
	if _, err := browsers.FindChrome(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and no browser: %v", err)
		}
		t.Skipf("no browser (set $CHROME to run this test): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := &fakeSource{}
	f.onCurrent = func() error {
		resp, err := http.Get(f.opts.Connect + "/json/list")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var targets []struct{ Type, Title, URL string }
		if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
			return err
		}
		for _, tg := range targets {
			if tg.Type == "page" && strings.HasPrefix(tg.URL, "http://127.0.0.1:") {
				return nil
			}
		}
		return errors.New("the demo page is not open")
	}
	var stdout, stderr bytes.Buffer
	if err := run(ctx, Config{Command: Current, Launch: true, JSON: true}, nil, &stdout, &stderr, opener(f)); err != nil {
		t.Fatalf("current --launch: %v\nstderr:\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(f.opts.Connect, "http://127.0.0.1:") {
		t.Errorf("source opened on %q, want the launched browser on loopback", f.opts.Connect)
	}
	if _, err := http.Get(f.opts.Connect + "/json/version"); err == nil {
		t.Error("the launched browser still answers after Run returned")
	}
}

// answersSource answers current with each of its answers in turn, then
// the last one again.
type answersSource struct {
	fakeSource
	answers []*mapping.Current
	reads   int
}

func (a *answersSource) Current(ctx context.Context) (*mapping.Current, error) {
	cur := a.answers[min(a.reads, len(a.answers)-1)]
	a.reads++
	return cur, nil
}

func (a *answersSource) Screen(ctx context.Context) (*mapping.Current, error) { return a.Current(ctx) }

// browserShowing is an answer with one window whose selected tab has url
// and whose Document has docURL and states.
func browserShowing(url, docURL string, states ...string) *mapping.Current {
	return &mapping.Current{Protocol: mapping.Protocol, Instance: "00000000-0000-4000-8000-000000000000", Root: &mapping.Element{
		ID: "a1", Role: "Application", Title: "Chromium", States: []string{"focused"},
		Children: []*mapping.Element{{ID: "w1", Role: "Window", States: []string{"focused"}, Children: []*mapping.Element{
			{ID: "l1", Role: "TabList", Children: []*mapping.Element{{ID: "t1", Role: "Tab", URL: url, States: []string{"selected"}}}},
			{ID: "d1", Role: "Document", URL: docURL, States: append([]string{"focused"}, states...)},
		}}},
	}}
}

// With --launch and URLs, current reads again until the pages look
// loaded: past a window still showing its initial empty document (no URL,
// then about:blank) and a busy one, to the first that shows a document of
// the tab's own (here Chrome's error page); then it prints the read after
// that one, since a read takes the page's focus before its tree and the
// first loaded read may hold the focus from before the page's scripts
// ran. With --connect it prints the first answer.
func TestCurrentWaitsForLaunchedPages(t *testing.T) {
	const url = "http://127.0.0.1:1/page.html"
	empty, blank, busy := browserShowing(url, ""), browserShowing(url, "about:blank"), browserShowing(url, url, "busy")
	loadedFirst := browserShowing(url, "chrome-error://chromewebdata/")
	loaded := browserShowing(url, "chrome-error://chromewebdata/", "hovered")
	launch := Config{Command: Current, Launch: true, URLs: []string{url}, JSON: true}
	for _, c := range []struct {
		what      string
		cfg       Config
		answers   []*mapping.Current
		wantReads int
	}{
		{"launched", launch, []*mapping.Current{empty, blank, busy, loadedFirst, loaded}, 5},
		{"loaded at once", launch, []*mapping.Current{loadedFirst, loaded}, 2},
		{"loaded, then busy again (a script navigated)", launch, []*mapping.Current{busy, loadedFirst, busy, loadedFirst, loaded}, 5},
		{"connected", Config{Command: Current, Connect: "127.0.0.1:9222", JSON: true}, []*mapping.Current{loaded, empty}, 1},
	} {
		src := &answersSource{answers: c.answers}
		var stdout bytes.Buffer
		if err := current(context.Background(), c.cfg, src, &stdout, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(loaded)
		if src.reads != c.wantReads || stdout.String() != string(want)+"\n" {
			t.Errorf("%s: %d reads, printed\n%s\nwant %d reads and\n%s", c.what, src.reads, stdout.String(), c.wantReads, want)
		}
	}
}

// --depth cuts what current prints, as an outline or as JSON.
func TestRunCurrentDepth(t *testing.T) {
	for _, tc := range []struct {
		json bool
		want string
	}{
		{false, `Application Chromium [focused] (+1 omitted) #a1` + "\n"},
		{true, `{"protocol":"0.2.0","instance":"00000000-0000-4000-8000-000000000000",` +
			`"root":{"id":"a1","role":"Application","title":"Chromium","states":["focused"],"omitted":1}}` + "\n"},
	} {
		var stdout, stderr bytes.Buffer
		cfg := Config{Command: Current, Connect: "127.0.0.1:9222", JSON: tc.json, Depth: new(0)}
		if err := run(context.Background(), cfg, nil, &stdout, &stderr, opener(&fakeSource{})); err != nil {
			t.Fatal(err)
		}
		if got := stdout.String(); got != tc.want {
			t.Errorf("current --depth 0 (json %v):\n%s\nwant:\n%s", tc.json, got, tc.want)
		}
	}
}
