package bench

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/systeminfo"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/cdp"
	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	axwarm "github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
	"github.com/cdpprovider/cdpprovider/internal/wiresize"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// settle bounds the wait, after a provider's first read, for it to become
// warm: a provider that builds its tree in the background
// (docs/warm-tree.md) is timed only after that work is done, or after this
// long.
var settle = flag.Duration("settle", 90*time.Second,
	"after a provider's first read, wait at most this long for reads to become fast before timing warm reads")

// loadSettle is the pause after a page's load event before anything is
// timed, as bench/peers waits before timing the peers.
const loadSettle = 300 * time.Millisecond

// opTimeout bounds one timed operation; a 50k page's cold read takes
// seconds on a loaded 2-core machine.
const opTimeout = 2 * time.Minute

// quiet drops the provider's logs: they would interleave with the
// benchmark output.
var quiet = slog.New(slog.DiscardHandler)

// env is the state the benchmarks share: one browser, one page server and
// the benchmark's own CDP connection to the browser's only tab. It is set
// up by the first benchmark that needs it, never by a plain go test.
var env struct {
	once sync.Once
	// skip or fail is why every benchmark skips or fails.
	skip, fail string

	browser *browsers.Launched
	server  *httptest.Server
	// tab drives the browser's only tab, as its user would: navigates,
	// edits text, and makes the raw getFullAXTree call. Being the only
	// page, it is what the provider reads.
	tab     context.Context
	product string // "Chrome/156.0.8078.108"
	tmp     string

	binOnce sync.Once
	bin     string // the built cdpprovider, for BenchmarkServe
	binErr  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	teardown()
	if len(results.rows) > 0 {
		printSummary(os.Stdout)
	}
	os.Exit(code)
}

// setup starts the shared browser and page server once, and skips (no
// Chromium) or fails (setup broke) the benchmark when it cannot.
func setup(b *testing.B) {
	b.Helper()
	env.once.Do(start)
	if env.fail != "" {
		b.Fatal(env.fail)
	}
	if env.skip != "" {
		b.Skip(env.skip)
	}
}

func start() {
	path, err := browsers.FindChrome("")
	if err != nil {
		msg := "no Chromium to measure (set $CHROME to a Chromium or Chrome binary, or put chromium on PATH): " + err.Error()
		if os.Getenv("CI") == "true" {
			env.fail = msg + " (CI=true: failing instead of skipping)"
		} else {
			env.skip = msg
		}
		return
	}
	env.tmp, err = os.MkdirTemp("", "cdpprovider-bench-")
	if err != nil {
		env.fail = err.Error()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	env.browser, err = browsers.Launch(ctx, browsers.LaunchOptions{Path: path, Logger: quiet})
	if err != nil {
		env.fail = err.Error()
		return
	}
	env.server = httptest.NewServer(Handler())
	alloc, _ := remote.NewAllocator(context.Background(), env.browser.DebugURL())
	// The first Do attaches to the tab the browser started with and binds
	// the connection to this context: no timeout here.
	env.tab, _ = chromedp.NewContext(alloc)
	if err := chromedp.Do(env.tab); err != nil {
		env.fail = fmt.Sprintf("attach to the browser at %s: %v", env.browser.DebugURL(), err)
		return
	}
	// chromedp made a tab of its own: close the one the browser started
	// with, so that a read, like the raw call, has one window to read.
	infos, err := chromedp.CallBrowser(env.tab, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		env.fail = fmt.Sprintf("Target.getTargets: %v", err)
		return
	}
	for _, ti := range infos.TargetInfos {
		if ti.Type == "page" && ti.TargetID != chromedp.FromContext(env.tab).Target.TargetID {
			if _, err := chromedp.CallBrowser(env.tab, target.CloseTarget, target.CloseTargetParams{TargetID: ti.TargetID}); err != nil {
				env.fail = fmt.Sprintf("Target.closeTarget: %v", err)
				return
			}
		}
	}
	v, err := chromedp.CallBrowser(env.tab, browser.GetVersion, cdproto.Empty{})
	if err != nil {
		env.fail = fmt.Sprintf("Browser.getVersion: %v", err)
		return
	}
	env.product = v.Product
}

func teardown() {
	if env.tab != nil {
		chromedp.Cancel(env.tab)
	}
	if env.browser != nil {
		if err := env.browser.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
	}
	if env.server != nil {
		env.server.Close()
	}
	if env.tmp != "" {
		os.RemoveAll(env.tmp)
	}
}

// binary builds cmd/cdpprovider once into the temporary directory.
func binary(b *testing.B) string {
	b.Helper()
	env.binOnce.Do(func() {
		env.bin = filepath.Join(env.tmp, "cdpprovider")
		out, err := exec.Command("go", "build", "-o", env.bin, "github.com/cdpprovider/cdpprovider/cmd/cdpprovider").CombinedOutput()
		if err != nil {
			env.binErr = fmt.Errorf("go build ./cmd/cdpprovider: %v\n%s", err, out)
		}
	})
	if env.binErr != nil {
		b.Fatal(env.binErr)
	}
	return env.bin
}

// open loads the page in the tab, brings the tab to the front, waits as
// bench/peers does, and makes the first (tree-building) getFullAXTree call
// and one more, so that every timed call finds the tree built. It records
// the page's AX node count.
func open(b *testing.B, pg Page) {
	b.Helper()
	ctx, cancel := context.WithTimeout(env.tab, opTimeout)
	defer cancel()
	url := env.server.URL + "/" + pg.File
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		b.Fatalf("navigate to %s: %v", url, err)
	}
	id := chromedp.FromContext(env.tab).Target.TargetID
	if _, err := chromedp.CallBrowser(ctx, target.ActivateTarget, target.ActivateTargetParams{TargetID: id}); err != nil {
		b.Fatalf("activate the tab: %v", err)
	}
	time.Sleep(loadSettle)
	if _, err := rawTree(ctx, chromedp.FromContext(env.tab).Target); err != nil {
		b.Fatalf("Accessibility.getFullAXTree of %s: %v", url, err)
	}
	nodes, err := rawTree(ctx, chromedp.FromContext(env.tab).Target)
	if err != nil {
		b.Fatalf("Accessibility.getFullAXTree of %s: %v", url, err)
	}
	results.row(pg.Name).nodes = len(nodes)
}

// rawTree is the call every read is compared with: the main frame's whole
// accessibility tree, Accessibility.getFullAXTree, on session s (the
// benchmark's own connection to the tab), decoded as a read decodes it
// (warm.FullAXTree: the nodes without the sources of their names and
// values, which a read skips), so that the two do the same work. It is
// the same call as bench/peers times for its raw column (which parses the
// whole JSON instead).
func rawTree(ctx context.Context, s cdproto.Session) ([]*accessibility.Node, error) {
	return axwarm.FullAXTree(ctx, s, accessibility.GetFullAXTreeParams{})
}

// newProvider returns a provider for the shared browser, as the binary
// makes it, with its logs dropped, except that it never rests: the
// benchmarks wait for its walks without reading (-settle, up to 90 s),
// and a provider that rested meanwhile would stop them (the light
// benchmark, bench/peers/light.sh, measures the rest).
func newProvider(b *testing.B) *cdp.Provider {
	b.Helper()
	p, err := cdp.NewProvider(cdp.Options{Connect: env.browser.DebugURL(), Logger: quiet, RestAfter: -1})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkRead times, per page size, in this order and on the one
// browser: the raw getFullAXTree; a cold read (a new provider's first
// Current, connecting included); a settled provider's read of the
// unchanged page again (from its warm tree, or from its last full fetch
// while its walk still runs); its read right after the benchmark edited
// one text node (that document read cold); locate; and the
// raw call again, which shows how much the machine's load drifted while
// the page was measured. Each reports its median in ms and, after raw,
// that median as a multiple of raw's.
func BenchmarkRead(b *testing.B) {
	setup(b)
	for _, pg := range Pages {
		b.Run(pg.Name, func(b *testing.B) {
			open(b, pg)
			w := &warm{pg: pg}
			defer w.close()
			b.Run("raw", func(b *testing.B) { benchRaw(b, pg) })
			b.Run("raw-first", func(b *testing.B) { benchRawFirst(b, pg) })
			b.Run("load", func(b *testing.B) { benchLoad(b, pg) })
			b.Run("cold", func(b *testing.B) { benchCold(b, pg) })
			b.Run("changed-1s-new", func(b *testing.B) { benchChangedNew(b, pg) })
			b.Run("warm", func(b *testing.B) { benchWarm(b, w) })
			b.Run("screen", func(b *testing.B) { benchScreen(b, w) })
			b.Run("scrolled", func(b *testing.B) { benchScrolled(b, w, false) })
			b.Run("scrolled-painted", func(b *testing.B) { benchScrolled(b, w, true) })
			b.Run("changed-1s", func(b *testing.B) { benchChanged(b, w, time.Second) })
			b.Run("changed-100ms", func(b *testing.B) { benchChanged(b, w, 100*time.Millisecond) })
			b.Run("locate", func(b *testing.B) { benchLocate(b, w) })
			b.Run("at", func(b *testing.B) { benchAt(b, w) })
			b.Run("after-load", func(b *testing.B) { benchAfterLoad(b, w) })
			b.Run("screen-after-load", func(b *testing.B) { benchScreenAfterLoad(b, w) })
			w.close()
			b.Run("raw-again", func(b *testing.B) { benchRaw(b, pg) })
		})
	}
}

func benchRaw(b *testing.B, pg Page) {
	var s samples
	for b.Loop() {
		ctx, cancel := context.WithTimeout(env.tab, opTimeout)
		t0 := time.Now()
		_, err := rawTree(ctx, chromedp.FromContext(env.tab).Target)
		s.add(time.Since(t0))
		cancel()
		if err != nil {
			b.Fatalf("Accessibility.getFullAXTree: %v", err)
		}
	}
	r := results.row(pg.Name)
	if r.raw == 0 {
		r.raw = s.median()
		b.ReportMetric(float64(r.nodes), "ax-nodes")
	} else {
		r.rawAgain = s.median()
	}
	s.report(b, r.raw)
}

// benchRawFirst times getFullAXTree as the first call of a new session
// on the tab: Chrome builds the session's accessibility tree of the page
// first, which the repeated calls of raw do not pay and the first read of
// a new provider does. A cold read is compared with this.
func benchRawFirst(b *testing.B, pg Page) {
	var s samples
	for b.Loop() {
		b.StopTimer()
		d, err := rawFirst(b)
		b.StartTimer()
		if err != nil {
			b.Fatalf("Accessibility.getFullAXTree: %v", err)
		}
		s.add(d)
	}
	r := results.row(pg.Name)
	r.rawFirst = s.median()
	s.report(b, r.raw)
}

// rawFirst times getFullAXTree as the first call of a new session on the
// benchmark's tab.
func rawFirst(b *testing.B) (time.Duration, error) {
	id := chromedp.FromContext(env.tab).Target.TargetID
	sctx, cancel := chromedp.NewContext(env.tab, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	defer cancel()
	if err := chromedp.Do(sctx); err != nil {
		b.Fatalf("attach a session: %v", err)
	}
	ctx, cancelOp := context.WithTimeout(sctx, opTimeout)
	defer cancelOp()
	t0 := time.Now()
	_, err := rawTree(ctx, chromedp.FromContext(sctx).Target)
	return time.Since(t0), err
}

// benchCold times a new provider's first read. Next to each, untimed, it
// times a raw first call too (before the read one time, after it the
// next): the machine's speed drifts over seconds, so the cold read is
// compared with the raw call pair by pair.
func benchCold(b *testing.B, pg Page) {
	var s samples
	var ratios []float64
	r := results.row(pg.Name)
	i := 0
	for b.Loop() {
		b.StopTimer()
		var raw time.Duration
		var err error
		if i%2 == 0 {
			if raw, err = rawFirst(b); err != nil {
				b.Fatalf("Accessibility.getFullAXTree: %v", err)
			}
		}
		p := newProvider(b)
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		if _, err := p.App(ctx); err != nil { // connected, as a running provider is
			b.Fatalf("connect: %v", err)
		}
		b.StartTimer()
		t0 := time.Now()
		cur, err := p.Current(ctx)
		d := time.Since(t0)
		b.StopTimer()
		cancel()
		p.Close()
		if err != nil {
			b.Fatalf("cold Current: %v", err)
		}
		if i%2 == 1 {
			if raw, err = rawFirst(b); err != nil {
				b.Fatalf("Accessibility.getFullAXTree: %v", err)
			}
		}
		showsPage(b, cur.Root, pg)
		s.add(d)
		ratios = append(ratios, float64(d)/float64(raw))
		r.elements = elemtest.Count(cur.Root)
		i++
		b.StartTimer()
	}
	r.cold = s.median()
	r.coldRatio = medianOf(ratios)
	s.report(b, r.raw)
	b.ReportMetric(r.coldRatio, "x-raw-first")
	b.ReportMetric(float64(r.elements), "elements")
}

// benchWarm times a settled provider's read of the page it has read
// before, unchanged: answered from the warm tree once the walk has ended,
// from the last full fetch until then.
func benchWarm(b *testing.B, w *warm) {
	p := w.provider(b)
	var s samples
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		t0 := time.Now()
		cur, err := p.Current(ctx)
		s.add(time.Since(t0))
		cancel()
		if err != nil {
			b.Fatalf("warm Current: %v", err)
		}
		b.StopTimer()
		showsPage(b, cur.Root, w.pg)
		b.StartTimer()
	}
	r := results.row(w.pg.Name)
	r.warm = s.median()
	s.report(b, r.raw)
}

// benchScreen times a read of the screen (Provider.Screen) of the
// unchanged page, against warm: the same read of the whole page. The
// page is at its top: the answer must hold the first section's heading
// and not the last's.
func benchScreen(b *testing.B, w *warm) {
	p := w.provider(b)
	scrollTo(b, 0)
	var s samples
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		t0 := time.Now()
		cur, err := p.Screen(ctx)
		s.add(time.Since(t0))
		cancel()
		if err != nil {
			b.Fatalf("Screen: %v", err)
		}
		b.StopTimer()
		showsScreen(b, cur.Root, w.pg, 0)
		b.StartTimer()
	}
	r := results.row(w.pg.Name)
	r.screen = s.median()
	s.report(b, r.raw)
	b.ReportMetric(float64(r.screen)/float64(r.warm), "x-warm")
}

// benchScrolled times the reads right after a scroll: each turn scrolls
// a section's heading to the top and reads the whole page (timed), then
// scrolls the next one there and reads the screen (timed). The screen
// must show that heading and not the first section's. It reports both
// medians and the screen's as a multiple of the page's. painted: each
// read starts once the page has painted the scroll (two animation
// frames), as a person sees a scroll, rather than at once, racing the
// paint.
func benchScrolled(b *testing.B, w *warm, painted bool) {
	p := w.provider(b)
	var page, screen samples
	k := 0
	for b.Loop() {
		b.StopTimer()
		k = k%(w.pg.Sections-4) + 2
		scrollTo(b, k)
		if painted {
			waitPaint(b)
		}
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		b.StartTimer()
		t0 := time.Now()
		_, err := p.Current(ctx)
		page.add(time.Since(t0))
		b.StopTimer()
		if err != nil {
			b.Fatalf("Current after a scroll: %v", err)
		}
		k++
		scrollTo(b, k)
		if painted {
			waitPaint(b)
		}
		b.StartTimer()
		t0 = time.Now()
		cur, err := p.Screen(ctx)
		screen.add(time.Since(t0))
		b.StopTimer()
		if err != nil {
			cancel()
			b.Fatalf("Screen after a scroll: %v", err)
		}
		// The page works for the provider after a screen read (the
		// elements near the screen numbered): done before the person's
		// next scroll, as it is seconds later.
		if err := p.TakeNear(ctx); err != nil {
			cancel()
			b.Fatalf("TakeNear: %v", err)
		}
		cancel()
		showsScreen(b, cur.Root, w.pg, k)
		b.StartTimer()
	}
	scrollTo(b, 0) // as the benchmarks after it expect the page
	b.ReportMetric(ms(page.median()), "page-ms")
	b.ReportMetric(ms(screen.median()), "screen-ms")
	b.ReportMetric(float64(screen.median())/float64(page.median()), "x-page")
}

// benchScreenAfterLoad times the first read of the screen 300 ms after a
// load of the page, as a host with tools reads the page it asked for.
// The answer must be of the new document (not show an edit made before
// the load) and show the first section's heading.
func benchScreenAfterLoad(b *testing.B, w *warm) {
	p := w.provider(b)
	var s samples
	for b.Loop() {
		b.StopTimer()
		w.edits++
		edited := fmt.Sprintf("Section 0: before load %d", w.edits)
		editAndRead(b, p, edited)
		scrollTo(b, 0) // the load keeps the scroll
		ctx, cancel := context.WithTimeout(env.tab, opTimeout)
		if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
			cancel()
			b.Fatalf("reload: %v", err)
		}
		time.Sleep(300 * time.Millisecond)
		b.StartTimer()
		t0 := time.Now()
		cur, err := p.Screen(ctx)
		s.add(time.Since(t0))
		b.StopTimer()
		cancel()
		if err != nil {
			b.Fatalf("Screen after a load: %v", err)
		}
		if elemtest.First(cur.Root, func(e *mapping.Element) bool { return e.Title == edited }) != nil {
			b.Fatalf("the screen after the load shows %q, from the document before it: a stale answer", edited)
		}
		showsScreen(b, cur.Root, w.pg, 0)
		for start := time.Now(); p.Walking() && time.Since(start) < *settle; {
			time.Sleep(20 * time.Millisecond)
		}
		b.StartTimer()
	}
	r := results.row(w.pg.Name)
	r.screenAfterLoad = s.median()
	s.report(b, r.raw)
}

// waitPaint waits until the benchmark's page has painted: two animation
// frames.
func waitPaint(b *testing.B) {
	b.Helper()
	ctx, cancel := context.WithTimeout(env.tab, opTimeout)
	defer cancel()
	expr := `new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr, chromedp.EvalAwaitPromise)); err != nil {
		b.Fatalf("wait for the paint: %v", err)
	}
}

// scrollTo scrolls the benchmark's page so that section k's heading is
// at the top (0: the page's top).
func scrollTo(b *testing.B, k int) {
	b.Helper()
	ctx, cancel := context.WithTimeout(env.tab, opTimeout)
	defer cancel()
	expr := "scrollTo(0, 0)"
	if k > 0 {
		expr = fmt.Sprintf(`document.getElementById("h-%d").scrollIntoView()`, k)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](expr)); err != nil {
		b.Fatalf("scroll to section %d: %v", k, err)
	}
}

// showsScreen fails the benchmark when the screen answer does not show
// section k's heading at the top, or shows the first section's heading
// with k past it (a stale screen), or holds the whole page (the last
// section's heading, three sections or more below k).
func showsScreen(b *testing.B, root *mapping.Element, pg Page, k int) {
	b.Helper()
	heading := func(i int) bool { // (the loops before edit section 0's text)
		want := fmt.Sprintf("Section %d: ", i)
		return elemtest.First(root, func(e *mapping.Element) bool { return e.Role == "Heading" && strings.HasPrefix(e.Title, want) }) != nil
	}
	outline := func() string {
		var sb strings.Builder
		mapping.Outline(&sb, root)
		return sb.String()
	}
	switch {
	case !heading(k):
		b.Fatalf("the screen scrolled to section %d does not show its heading:\n%s", k, outline())
	case k > 1 && heading(0):
		b.Fatalf("the screen scrolled to section %d shows section 0's heading: a stale screen", k)
	case pg.Sections-1-k >= 3 && heading(pg.Sections-1):
		b.Fatalf("the screen at section %d shows the last section's heading: not the screen", k)
	}
}

// benchChanged is the agent loop: it edits the text of the first
// section's heading through the benchmark's own connection, reads at once
// (timed), then pauses (an agent thinking; not timed). The read must show
// the new text (a fast but stale answer fails the benchmark). It reports
// the share of the documents read that the kept trees answered.
func benchChanged(b *testing.B, w *warm, pause time.Duration) {
	p := w.provider(b)
	var s samples
	before := p.Answers()
	for b.Loop() {
		w.edits++
		turnOfLoop(b, p, &s, fmt.Sprintf("Section 0: edited %d", w.edits), pause)
	}
	r := results.row(w.pg.Name)
	if pause >= time.Second {
		r.changed = s.median()
	} else {
		r.changedFast = s.median()
	}
	s.report(b, r.raw)
	reportKept(b, p.Answers().Minus(before))
}

// turnOfLoop is one turn of the agent loop: it sets the first section's
// heading to text, then reads at once (timed, into s), checks that the
// answer shows text, and pauses. The timer runs for the read only.
func turnOfLoop(b *testing.B, p *cdp.Provider, s *samples, text string, pause time.Duration) {
	b.StopTimer()
	defer b.StartTimer()
	ctx, cancel := context.WithTimeout(env.tab, opTimeout)
	defer cancel()
	editHeading(b, ctx, text)
	b.StartTimer()
	t0 := time.Now()
	cur, err := p.Current(ctx)
	s.add(time.Since(t0))
	b.StopTimer()
	if err != nil {
		b.Fatalf("Current after a change: %v", err)
	}
	if elemtest.First(cur.Root, func(e *mapping.Element) bool { return e.Title == text }) == nil {
		b.Errorf("the read after the edit does not show the heading %q: a stale answer", text)
	}
	time.Sleep(pause)
}

// benchChangedNew is the agent loop from a new provider's first read of
// the page (untimed), as bench/peers times it: its walk of the page has
// just begun, and the turns run while it goes on. Each operation is a
// turn: an edit, a read at once (timed), a 1 s pause. The answer must
// show the edit.
func benchChangedNew(b *testing.B, pg Page) {
	p := newProvider(b)
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	_, err := p.Current(ctx)
	cancel()
	if err != nil {
		b.Fatalf("first Current: %v", err)
	}
	var s samples
	before := p.Answers()
	turn, walked := 0, 0
	for b.Loop() {
		turn++
		if walked == 0 && !p.Walking() {
			walked = turn
		}
		turnOfLoop(b, p, &s, fmt.Sprintf("Section 0: new %d", turn), time.Second)
	}
	r := results.row(pg.Name)
	r.changedNew = s.median()
	s.report(b, r.raw)
	reportKept(b, p.Answers().Minus(before))
	if walked > 0 {
		b.Logf("%s: the walk had ended before turn %d of %d", pg.Name, walked, turn)
	} else {
		b.Logf("%s: the walk had not ended before the last turn (%d)", pg.Name, turn)
	}
}

// benchAfterLoad loads the page again in the tab (a person browsing), waits
// a second (the person reading, then asking), and times the provider's
// first read of the new document; the answer must be of it. Untimed, it
// then waits for the provider's walk of the new document to end, and
// reports the renderers' CPU time from the reload to there: the page's
// load, the provider's fetch at the load, the read and the walk (benchLoad
// measures the load alone).
func benchAfterLoad(b *testing.B, w *warm) {
	p := w.provider(b)
	var s samples
	var cpu time.Duration
	var reused int64
	before := p.Answers()
	for b.Loop() {
		b.StopTimer()
		// The page as the provider last read it differs from the page
		// the load brings back: an answer of the document before the
		// load is stale, and fails the benchmark.
		w.edits++
		edited := fmt.Sprintf("Section 0: before load %d", w.edits)
		editAndRead(b, p, edited)
		cpu0 := rendererCPU(b)
		ctx, cancel := context.WithTimeout(env.tab, opTimeout)
		if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
			cancel()
			b.Fatalf("reload: %v", err)
		}
		time.Sleep(afterLoad)
		reused0 := p.Reused()
		b.StartTimer()
		t0 := time.Now()
		cur, err := p.Current(ctx)
		s.add(time.Since(t0))
		b.StopTimer()
		reused += p.Reused() - reused0
		cancel()
		if err != nil {
			b.Fatalf("Current after a load: %v", err)
		}
		showsPage(b, cur.Root, w.pg)
		if elemtest.First(cur.Root, func(e *mapping.Element) bool { return e.Title == edited }) != nil {
			b.Fatalf("the read after the load shows %q, from the document before it: a stale answer", edited)
		}
		for start := time.Now(); p.Walking() && time.Since(start) < *settle; {
			time.Sleep(20 * time.Millisecond)
		}
		cpu += rendererCPU(b) - cpu0
		b.StartTimer()
	}
	r := results.row(w.pg.Name)
	r.afterLoad = s.median()
	r.loadCPUWalked = cpu / time.Duration(b.N)
	s.report(b, r.raw)
	reportKept(b, p.Answers().Minus(before))
	// The share of the timed reads answered with the Document element a
	// read in the background had mapped after the load (not mapped again).
	b.ReportMetric(float64(reused)/float64(b.N), "mapped-ahead-share")
	b.ReportMetric(ms(r.loadCPUWalked), "renderer-cpu-ms/load")
}

// editAndRead sets the first section's heading to text and reads once:
// the answer must show it. Untimed.
func editAndRead(b *testing.B, p *cdp.Provider, text string) {
	ctx, cancel := context.WithTimeout(env.tab, opTimeout)
	defer cancel()
	editHeading(b, ctx, text)
	cur, err := p.Current(ctx)
	if err != nil {
		b.Fatalf("Current after an edit: %v", err)
	}
	if elemtest.First(cur.Root, func(e *mapping.Element) bool { return e.Title == text }) == nil {
		b.Fatalf("the read after the edit does not show the heading %q: a stale answer", text)
	}
}

// editHeading sets the text of the first section's heading through the
// benchmark's own connection, as a script of the page would.
func editHeading(b *testing.B, ctx context.Context, text string) {
	expr := fmt.Sprintf(`document.getElementById("h-0").firstChild.data = %q`, text)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](expr)); err != nil {
		b.Fatalf("edit the heading: %v", err)
	}
}

// benchLoad measures what a load costs the browser with no provider
// attached: the renderers' CPU time from a reload of the page to a second
// after it loaded. benchAfterLoad measures the same with the provider's
// work at the load added; the difference is what that work costs.
func benchLoad(b *testing.B, pg Page) {
	var cpu time.Duration
	for b.Loop() {
		cpu0 := rendererCPU(b)
		ctx, cancel := context.WithTimeout(env.tab, opTimeout)
		err := chromedp.Do(ctx, chromedp.Reload())
		cancel()
		if err != nil {
			b.Fatalf("reload: %v", err)
		}
		time.Sleep(afterLoad)
		cpu += rendererCPU(b) - cpu0
	}
	r := results.row(pg.Name)
	r.loadCPU = cpu / time.Duration(b.N)
	b.ReportMetric(ms(r.loadCPU), "renderer-cpu-ms/load")
}

// rendererCPU is the CPU time the browser's renderer processes have used
// since they started, summed (SystemInfo.getProcessInfo).
func rendererCPU(b *testing.B) time.Duration {
	ctx, cancel := context.WithTimeout(env.tab, opTimeout)
	defer cancel()
	r, err := chromedp.CallBrowser(ctx, systeminfo.GetProcessInfo, cdproto.Empty{})
	if err != nil {
		b.Fatalf("SystemInfo.getProcessInfo: %v", err)
	}
	var sec float64
	for _, pi := range r.ProcessInfo {
		if pi.Type == "renderer" {
			sec += pi.CPUTime
		}
	}
	return time.Duration(sec * float64(time.Second))
}

// afterLoad is how long after a page loaded benchAfterLoad reads it.
const afterLoad = time.Second

// reportKept adds the share of the documents read that the kept trees
// answered, and that the last full fetch answered again (a fetch made
// after a load, say): a fast path that did not answer is not measured by
// the time.
func reportKept(b *testing.B, t axwarm.Tally) {
	if t.All() > 0 {
		b.ReportMetric(float64(t.Kept())/float64(t.All()), "kept-share")
		b.ReportMetric(float64(t.Fetched)/float64(t.All()), "fetched-share")
	}
	b.Logf("documents read: %v", t)
}

// benchLocate locates, in turn, up to 25 buttons and links spread over the
// whole page (most of them off screen), with ids from a warm read.
func benchLocate(b *testing.B, w *warm) {
	p := w.provider(b)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	cur, err := p.Current(ctx)
	cancel()
	if err != nil {
		b.Fatalf("Current: %v", err)
	}
	var ids []string
	for e := range elemtest.All(cur.Root) {
		if e.Role == "Button" || e.Role == "Link" {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) == 0 {
		b.Fatal("no button or link to locate")
	}
	ids = spread(ids, 25)
	var s samples
	i := 0
	for b.Loop() {
		for range locatesPerOp {
			id := ids[i%len(ids)]
			i++
			ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
			t0 := time.Now()
			loc, err := p.Locate(ctx, id)
			s.add(time.Since(t0))
			cancel()
			if err != nil {
				b.Fatalf("Locate %s: %v", id, err)
			}
			if loc.State == mapping.Gone {
				b.Fatalf("Locate %s: gone, on an unchanged page", id)
			}
		}
	}
	r := results.row(w.pg.Name)
	r.locate = s.median()
	s.report(b, r.raw)
}

// benchAt times at on the unchanged page: at the centre of spread
// buttons and links, each answer checked to be the element or one inside
// it.
func benchAt(b *testing.B, w *warm) {
	p := w.provider(b)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	cur, err := p.Current(ctx)
	if err != nil {
		b.Fatalf("Current: %v", err)
	}
	type point struct {
		id   string
		x, y float64
	}
	var pts []point
	for e := range elemtest.All(cur.Root) {
		if e.Role != "Button" && e.Role != "Link" {
			continue
		}
		loc, err := p.Locate(ctx, e.ID)
		if err != nil {
			b.Fatalf("Locate %s: %v", e.ID, err)
		}
		if v := loc.Visible; loc.State == mapping.OnScreen && v != nil && v.Width >= 4 && v.Height >= 4 {
			pts = append(pts, point{e.ID, v.X + v.Width/2, v.Y + v.Height/2})
		}
	}
	if len(pts) == 0 {
		b.Fatal("no button or link on screen")
	}
	var s samples
	i := 0
	for b.Loop() {
		for range atsPerOp {
			pt := pts[i%len(pts)]
			i++
			ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
			t0 := time.Now()
			h, err := p.At(ctx, pt.x, pt.y)
			s.add(time.Since(t0))
			cancel()
			if err != nil {
				b.Fatalf("At %v,%v: %v", pt.x, pt.y, err)
			}
			if el := h.Match.Element; el == nil || el.ID != pt.id && !slices.ContainsFunc(h.Match.Ancestors, func(a *mapping.Element) bool { return a.ID == pt.id }) {
				b.Fatalf("At %v,%v, the centre of %s: %+v", pt.x, pt.y, pt.id, h)
			}
		}
	}
	r := results.row(w.pg.Name)
	r.at = s.median()
	s.report(b, r.raw)
}

// atsPerOp is how many ats one benchmark operation makes.
const atsPerOp = 20

// locatesPerOp is how many locates one benchmark operation makes: a
// locate takes a millisecond or two, so a median of a few would say little.
const locatesPerOp = 50

// warm is the long-lived provider of one page: created on first use,
// read once, then given time to finish any background work.
type warm struct {
	pg    Page
	p     *cdp.Provider
	edits int // the heading's edits so far
}

func (w *warm) provider(b *testing.B) *cdp.Provider {
	b.Helper()
	if w.p != nil {
		return w.p
	}
	p := newProvider(b)
	read := func() (time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		t0 := time.Now()
		_, err := p.Current(ctx)
		return time.Since(t0), err
	}
	first, err := read()
	if err != nil {
		p.Close()
		b.Fatalf("first Current: %v", err)
	}
	n, waited, err := settleReads(first, read)
	if err != nil {
		p.Close()
		b.Fatalf("Current while settling: %v", err)
	}
	// The reads after a change are of the kept trees: wait for the walk
	// too (a read of the unchanged page is fast before it ends).
	for start := time.Now(); p.Walking() && time.Since(start) < *settle; {
		time.Sleep(50 * time.Millisecond)
	}
	b.Logf("%s: warm provider's first read %v; %d more reads in %v until warm or -settle", w.pg.Name, first.Round(time.Millisecond), n, waited.Round(time.Millisecond))
	w.p = p
	return p
}

// close closes the provider, if any; a second close does nothing.
func (w *warm) close() {
	if w.p != nil {
		w.p.Close()
		w.p = nil
	}
}

// settleReads reads every 250 ms after a first read that took first,
// until two reads in a row take less than half of it (the provider has
// warmed up) or -settle has passed. It returns how many reads it made and
// how long it waited.
func settleReads(first time.Duration, read func() (time.Duration, error)) (int, time.Duration, error) {
	start := time.Now()
	n, fast := 0, 0
	for fast < 2 && time.Since(start) < *settle {
		time.Sleep(250 * time.Millisecond)
		d, err := read()
		if err != nil {
			return n, time.Since(start), err
		}
		n++
		if d < first/2 {
			fast++
		} else {
			fast = 0
		}
	}
	return n, time.Since(start), nil
}

// BenchmarkServe runs the real binary, `cdpprovider serve --connect`, per
// page size, reads uicontext://current over MCP (go-sdk's client on its
// stdin and stdout) and reports the median read, its size, and the
// process's peak resident memory (VmHWM, Linux) after a cold read, the
// settle time and the timed reads.
func BenchmarkServe(b *testing.B) {
	setup(b)
	bin := binary(b)
	for _, pg := range Pages {
		b.Run(pg.Name, func(b *testing.B) {
			open(b, pg)
			s := startServe(b, bin)
			defer s.close(b)
			first, _ := s.read(b)
			n, waited, _ := settleReads(first, func() (time.Duration, error) { d, _ := s.read(b); return d, nil })
			b.Logf("%s: served first read %v; %d more reads in %v until warm or -settle", pg.Name, first.Round(time.Millisecond), n, waited.Round(time.Millisecond))
			// The peak memory is of the page walked: the walk's tree and the
			// last full fetch are held together until the walk ends. The
			// provider logs each walk it kept (at debug level).
			docs := 1
			if pg.Iframe {
				docs = 2
			}
			start := time.Now()
			for countLines(s.stderr.String(), "document walked") < docs && time.Since(start) < *settle {
				time.Sleep(50 * time.Millisecond)
			}
			if got := countLines(s.stderr.String(), "document walked"); got < docs {
				b.Logf("%s: %d of %d documents walked after -settle: peak RSS measured before the walk ended", pg.Name, got, docs)
			}
			var samples samples
			var answer string
			for b.Loop() {
				var d time.Duration
				d, answer = s.read(b)
				samples.add(d)
			}
			size, err := wiresize.Measure([]byte(answer))
			if err != nil {
				b.Fatalf("measure the answer: %v", err)
			}
			r := results.row(pg.Name)
			r.served, r.size = samples.median(), size
			samples.report(b, r.raw)
			b.ReportMetric(float64(size.Bytes), "answer-bytes")
			b.ReportMetric(size.BeyondFields(), "B/elem-beyond-text-fields")
			b.ReportMetric(size.BeyondText(), "B/elem-beyond-text")
			if hwm, rss, ok := Memory(s.cmd.Process.Pid); ok {
				r.hwm, r.rss = hwm, rss
				b.ReportMetric(hwm, "peak-rss-MB")
				b.ReportMetric(rss, "rss-MB")
			} else {
				b.Logf("no /proc/%d/status on %s: peak RSS not measured", s.cmd.Process.Pid, runtime.GOOS)
			}
		})
	}
}

// served is one running `cdpprovider serve` and the MCP session on it.
type served struct {
	cmd     *exec.Cmd
	session *mcp.ClientSession
	stderr  syncbuf.Buffer
}

// countLines counts the lines of text that have s.
func countLines(text, s string) int {
	n := 0
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

func startServe(b *testing.B, bin string) *served {
	b.Helper()
	return serveAt(b, bin, env.browser.DebugURL(), nil)
}

// read reads uicontext://current and returns how long it took and the
// answer's JSON.
func (s *served) read(b *testing.B) (time.Duration, string) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	t0 := time.Now()
	res, err := s.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "uicontext://current"})
	d := time.Since(t0)
	if err != nil {
		b.Fatalf("read uicontext://current: %v\nstderr:\n%s", err, s.stderr.String())
	}
	if len(res.Contents) != 1 || res.Contents[0].Text == "" {
		b.Fatalf("read uicontext://current: want one JSON text content, got %d items", len(res.Contents))
	}
	return d, res.Contents[0].Text
}

func (s *served) close(b *testing.B) {
	if err := s.session.Close(); err != nil && !strings.Contains(err.Error(), "signal") {
		b.Logf("close the provider: %v\nstderr:\n%s", err, s.stderr.String())
	}
}

// showsPage fails the benchmark unless an answer is a read of the page,
// whole, down to the heading of its last section: a fast answer that is
// not must not pass for one. A tab whose renderer is busy past the
// provider's deadline (a 50k page just after its load, on a loaded
// machine) is answered as not responding, with the page as last read:
// its Document says so in its description.
func showsPage(b *testing.B, root *mapping.Element, pg Page) {
	b.Helper()
	if d := elemtest.First(root, func(e *mapping.Element) bool { return e.Role == "Document" && e.Description != "" }); d != nil {
		b.Fatalf("the %s page was not read: its Document says %q", pg.Name, d.Description)
	}
	last := fmt.Sprintf("Section %d: %s", pg.Sections-1, words(pg.Sections-1, 2))
	if elemtest.First(root, func(e *mapping.Element) bool { return e.Title == last }) == nil {
		b.Fatalf("the answer, %d elements, does not show the %s page's last heading %q", elemtest.Count(root), pg.Name, last)
	}
}

// spread returns at most n items of xs, evenly spaced, first included.
func spread(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	out := make([]string, n)
	for i := range out {
		out[i] = xs[i*len(xs)/n]
	}
	return out
}
