package cdp

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// sectionsPage is a page of n sections, each a heading, a paragraph with
// a link and a button: about nine accessibility nodes each.
func sectionsPage(title string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><title>%s</title><main>`, title)
	for i := range n {
		fmt.Fprintf(&b, `<section><h2>Part %d</h2><p>Text <a href="#%d">link %d</a></p><button>Button %d</button></section>`, i, i, i, i)
	}
	b.WriteString(`</main><script>window.__reloaded = false</script>`)
	return b.String()
}

// launchFor launches a browser showing url, and returns a provider with
// opts on it and a user of it, all closed when the test ends; args go to
// the browser. What the warm trees did is logged if the test fails.
func launchFor(t testing.TB, url string, opts Options, args ...string) (context.Context, *Provider, *user) {
	t.Helper()
	path := testChrome(t)
	traceWarm(t) // first: its cleanup runs after the provider's
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	br, err := browsers.Launch(ctx, browsers.LaunchOptions{Path: path, URLs: []string{url}, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close() })
	opts.Connect = br.DebugURL()
	p, err := NewProvider(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	u := newUser(t, ctx, br.DebugURL())
	t.Cleanup(u.close)
	u.waitLoaded(t, 0)
	return ctx, p, u
}

// sessionOf returns the provider's session of a tab and its connection.
func sessionOf(t testing.TB, p *Provider, tab target.ID) *session {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == nil || p.state.sessions[tab] == nil {
		t.Fatalf("the provider has no session of tab %s", tab)
	}
	return p.state.sessions[tab]
}

// waitResting waits until the provider says it rests (or not): the rest
// is its own work in the background, which only its state tells.
func waitResting(t *testing.T, ctx context.Context, p *Provider, want bool) {
	t.Helper()
	if err := waitFor(ctx, func() bool { r, _, _ := p.Resting(); return r == want }); err != nil {
		t.Fatalf("the provider did not come to resting=%v: %v", want, err)
	}
}

// After RestAfter with no read of a host's, the provider rests: while the
// person changes the page, loads it again and moves the focus, no command
// of the provider's reaches the page, and no accessibility event and no
// call of its watchers comes to it (counted at the transport). A host's
// read then wakes it: the answer is right, read whole, and the background
// work starts again (the document walked, its events coming).
func TestRest(t *testing.T) {
	url := serve(t, map[string]string{"/": sectionsPage("Resting", 40)})
	ctx, p, u := launchFor(t, url+"/", Options{RestAfter: 200 * time.Millisecond, WalkFrom: -1})
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	s := sessionOf(t, p, u.tabs[0])
	waitResting(t, ctx, p, true)
	if s.ax.Load() != nil {
		t.Error("the provider rests with the tab's warm trees kept")
	}
	// Once is enough: awake again, it stays awake until the test ends.
	p.rest.mu.Lock()
	p.rest.after = time.Hour
	p.rest.mu.Unlock()
	p.mu.Lock()
	conn := p.conn
	p.mu.Unlock()
	before := conn.Traffic()

	// The person changes the page the provider's watchers are in, moves
	// the focus, then loads the page again.
	us := u.session(t, u.tabs[0])
	u.eval(t, us, `document.querySelector('h2').textContent = 'Changed at rest'; document.querySelector('button').focus(); ''`)
	u.eval(t, us, `window.__reloaded = true; location.reload(); ''`)
	u.waitNewDocument(t, us)
	u.waitLoaded(t, 0)
	u.eval(t, us, `document.querySelector('main').append(Object.assign(document.createElement('button'), {textContent: 'Added at rest'})); ''`)
	// Then a tab opens in the background: its targetCreated comes to the
	// provider's connection after what the pages sent before it.
	created := before.BrowserEvents["Target.targetCreated"]
	if _, err := cdproto.Call(ctx, u.c.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank", Background: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, func() bool { return conn.Traffic().BrowserEvents["Target.targetCreated"] > created }); err != nil {
		t.Fatalf("the provider's connection was not told of the new tab: %v", err)
	}
	after := conn.Traffic()
	if n := after.Sent - before.Sent; n != 0 {
		sent := map[string]uint64{}
		for m, c := range after.Calls {
			if d := c - before.Calls[m]; d > 0 {
				sent[m] = d
			}
		}
		t.Errorf("the resting provider sent %d commands to pages: %v", n, sent)
	}
	for method, n := range after.Events {
		if (strings.HasPrefix(method, "Accessibility.") || method == "Runtime.bindingCalled") && n != before.Events[method] {
			t.Errorf("the resting provider was sent %d %s events", n-before.Events[method], method)
		}
	}

	// A host reads: the provider wakes, and reads the page whole.
	answers := p.Answers()
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	outline := strings.Join(outlineOf(cur.Root), "\n")
	if !strings.Contains(outline, "Added at rest") || strings.Contains(outline, "Changed at rest") {
		t.Errorf("the read after the rest does not show the page as loaded again and changed:\n%s", outline)
	}
	if resting, rests, wakes := p.Resting(); resting || rests != 1 || wakes != 1 {
		t.Errorf("after the read: resting %v, %d rests, %d wakes; want awake after one rest", resting, rests, wakes)
	}
	if got := p.Answers().Minus(answers); got.Whole != 1 || got.All() != 1 {
		t.Errorf("the read after the rest: %v, want the page read whole", got)
	}
	// The background work is back: the page is walked, and its
	// accessibility events come again.
	a := s.ax.Load()
	if a == nil {
		t.Fatal("the read after the rest made no warm trees")
	}
	tree, err := cdproto.Call(ctx, us, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	frame, loader := tree.FrameTree.Frame.ID, tree.FrameTree.Frame.LoaderID
	if err := waitFor(ctx, func() bool { return a.WalkedDocument(frame) == loader }); err != nil {
		t.Fatalf("the page was not walked after the read that woke the provider: %v", err)
	}
	updated := conn.Traffic().Events["Accessibility.nodesUpdated"]
	u.eval(t, us, `document.querySelector('h2').textContent = 'Changed awake'; ''`)
	if err := waitFor(ctx, func() bool { return conn.Traffic().Events["Accessibility.nodesUpdated"] > updated }); err != nil {
		t.Fatalf("no accessibility event after the provider woke: %v", err)
	}
}

// A subscribed host keeps the provider awake, however long it does not
// read; the rest comes RestAfter after the subscription ends.
func TestSubscriptionKeepsAwake(t *testing.T) {
	url := serve(t, map[string]string{"/": sectionsPage("Watched", 10)})
	ctx, p, u := launchFor(t, url+"/", Options{RestAfter: 100 * time.Millisecond})
	stop := p.Watch(func() {})
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	// The rest came due while the host was subscribed: the state says so.
	if err := waitFor(ctx, func() bool {
		p.rest.mu.Lock()
		defer p.rest.mu.Unlock()
		return p.rest.held > 0 || p.rest.rests > 0
	}); err != nil {
		t.Fatalf("no rest came due: %v", err)
	}
	if resting, rests, _ := p.Resting(); resting || rests != 0 {
		t.Errorf("a subscribed provider rested (%d rests)", rests)
	}
	if sessionOf(t, p, u.tabs[0]).ax.Load() == nil {
		t.Error("a subscribed provider let go of the tab's warm trees")
	}
	stop()
	waitResting(t, ctx, p, true)
}

// A document smaller than WalkFrom is read whole when it changed, and not
// walked until reads have read it whole after a change twice; a bigger
// one that loads in the same tab is walked after its load.
func TestSmallDocumentIsNotWalked(t *testing.T) {
	url := serve(t, map[string]string{"/small": sectionsPage("Small", 10), "/big": sectionsPage("Big", 400)})
	ctx, p, u := launchFor(t, url+"/small", Options{RestAfter: -1})
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	a := sessionOf(t, p, u.tabs[0]).ax.Load()
	frame := cdproto.FrameID(u.tabs[0])
	if a.WalkAsked(frame) || p.answers.Small.Load() == 0 {
		t.Fatalf("the small document's walk was asked for (%d not walked as small)", p.answers.Small.Load())
	}
	us := u.session(t, u.tabs[0])
	u.eval(t, us, `document.querySelector('h2').textContent = 'Small, changed'; ''`)
	answers := p.Answers()
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Answers().Minus(answers); got.Whole != 1 || got.All() != 1 || got.Unwalked != 1 {
		t.Errorf("the read of the changed small document: %v, want it read whole, counted as left unwalked", got)
	}
	if outline := strings.Join(outlineOf(cur.Root), "\n"); !strings.Contains(outline, "Small, changed") {
		t.Errorf("the read does not show the change:\n%s", outline)
	}
	if a.WalkAsked(frame) || a.Walked(frame) {
		t.Error("the small document was walked")
	}
	// Read whole after a change a second time, it is walked: a host that
	// reads it as it changes pays less for the walk.
	u.eval(t, us, `document.querySelector('h2').textContent = 'Small, changed again'; ''`)
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, func() bool { return a.WalkedDocument(frame) != "" }); err != nil {
		t.Fatalf("the small document read whole twice after changes was not walked: %v", err)
	}
	// Walked, its reads are no longer counted as left unwalked, whether
	// the kept tree answers or reading it whole is quicker.
	u.eval(t, us, `document.querySelector('h2').textContent = 'Small, walked'; ''`)
	answers = p.Answers()
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	if got := p.Answers().Minus(answers); got.All() != 1 || got.Unwalked != 0 {
		t.Errorf("the read of the walked small document after a change: %v, want one read, not counted as left unwalked", got)
	}

	// The person goes to a big page in the tab: it is walked after its load.
	u.eval(t, us, `window.__reloaded = true; location.href = '/big'; ''`)
	u.waitNewDocument(t, us)
	u.waitLoaded(t, 0)
	tree, err := cdproto.Call(ctx, us, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	loader := tree.FrameTree.Frame.LoaderID
	if err := waitFor(ctx, func() bool { return a.WalkedDocument(frame) == loader }); err != nil {
		t.Fatalf("the big document was not walked after its load: %v", err)
	}
}

// Only what a host can be shown is kept warm: a tab no window shows any
// more lets go of its warm trees at the next read (its Accessibility
// domain off), and is read whole when it is shown again.
func TestHiddenTabIsNotKeptWarm(t *testing.T) {
	url := serve(t, map[string]string{"/one": sectionsPage("One", 10), "/two": sectionsPage("Two", 10)})
	ctx, p, u := launchFor(t, url+"/one", Options{RestAfter: -1, WalkFrom: -1})
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	one := sessionOf(t, p, u.tabs[0])
	if one.ax.Load() == nil {
		t.Fatal("the tab read has no warm trees")
	}
	u.openSecondTab(t, url+"/two")
	u.front(t, 1)
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if outline := strings.Join(outlineOf(cur.Root), "\n"); !strings.Contains(outline, "Two") {
		t.Fatalf("the read does not show the second tab:\n%s", outline)
	}
	if one.ax.Load() != nil {
		t.Error("the tab no window shows kept its warm trees")
	}
	if sessionOf(t, p, u.tabs[1]).ax.Load() == nil {
		t.Error("the tab shown has no warm trees")
	}
	// Shown again, it is read whole: by the read in the background its
	// showing starts, or by the host's.
	answers := p.Answers()
	u.front(t, 0)
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	if got := p.Answers().Minus(answers); got.Whole == 0 || got.Kept() != 0 {
		t.Errorf("the reads of the tab shown again: %v, want it read whole, not from kept trees", got)
	}
}

// A frame that navigates loses the provider's isolated world with its
// document: the provider forgets it at Page.frameNavigated, so the next
// script there makes the world at once instead of failing first in the
// old one's context (a round trip, and a failed call, in every first read
// after a load, the read that wakes a resting provider included).
func TestNavigationForgetsTheWorld(t *testing.T) {
	url := serve(t, map[string]string{"/": sectionsPage("World", 5)})
	// At rest, so that nothing of the provider's makes a world in the
	// new document.
	ctx, p, u := launchFor(t, url+"/", Options{RestAfter: 100 * time.Millisecond})
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	waitResting(t, ctx, p, true)
	s := sessionOf(t, p, u.tabs[0])
	frame := cdproto.FrameID(u.tabs[0])
	hasWorld := func() bool {
		s.worldsMu.Lock()
		defer s.worldsMu.Unlock()
		_, ok := s.worlds[frame]
		return ok
	}
	if !hasWorld() {
		t.Fatal("the read made no isolated world in the page")
	}
	us := u.session(t, u.tabs[0])
	u.eval(t, us, `window.__reloaded = true; location.reload(); ''`)
	u.waitNewDocument(t, us)
	// The event reaches the provider on its read loop: its state tells.
	if err := waitFor(ctx, func() bool { return !hasWorld() }); err != nil {
		t.Fatalf("the provider kept the world of the document before the navigation: %v", err)
	}
}

// A page whose session's events stop reaching the provider (seen under
// load, when a tab's first navigation overlapped the provider's first
// calls to it) leaves a walked tree as it was. Here the provider's
// binding is unsubscribed (Runtime.removeBinding leaves the function in
// the page, and its calls send nothing) and its Accessibility domain
// turned off behind its back (no nodesUpdated): a change of the page is
// then told by nobody. The read after it must not answer from the kept
// tree, but read the page whole; and the tree is dropped, so that once
// the binding and the domain are back, a change told by both does not
// make it answer again, missing what changed meanwhile.
func TestUnheardChangeIsReadWhole(t *testing.T) {
	url := serve(t, map[string]string{"/p": sectionsPage("Heard", 20)})
	logged := new(syncbuf.Buffer)
	ctx, p, u := launchFor(t, url+"/p", Options{RestAfter: -1, WalkFrom: -1, Logger: slog.New(slog.NewTextHandler(logged, nil))})
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	s := sessionOf(t, p, u.tabs[0])
	a := s.ax.Load()
	frame := cdproto.FrameID(u.tabs[0])
	if err := waitFor(ctx, func() bool { return a.WalkedDocument(frame) != "" }); err != nil {
		t.Fatalf("the page was not walked: %v", err)
	}
	answers := p.Answers()
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	if got := p.Answers().Minus(answers); got.Kept() != 1 {
		t.Fatalf("the read of the walked page: %v, want the kept tree's", got)
	}
	if err := s.Call(ctx, runtime.CommandRemoveBinding, runtime.RemoveBindingParams{Name: bindingName}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Call(ctx, accessibility.CommandDisable, cdproto.Empty{}, nil); err != nil {
		t.Fatal(err)
	}
	us := u.session(t, u.tabs[0])
	for i, text := range []string{"Changed, unheard", "Changed again"} {
		// The change, then the page's own clock past Settle: Chrome's
		// events for it would have come by then, and the watchers' call
		// long before.
		u.eval(t, us, fmt.Sprintf(`document.querySelector('h2').textContent = %q;
			new Promise((done) => setTimeout(() => done(''), %d))`, text, (warm.Settle+100*time.Millisecond).Milliseconds()))
		answers = p.Answers()
		cur, err := p.Current(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if outline := strings.Join(outlineOf(cur.Root), "\n"); !strings.Contains(outline, text) {
			t.Errorf("the read does not show the change to %q:\n%s", text, outline)
		}
		// The first finds the kept tree unheard, and drops it; the walk
		// asked for then fails (Chrome's domain is off), so the second
		// has no tree to find unheard.
		if got := p.Answers().Minus(answers); got.Unheard != int64(1-i) || got.Whole != 1 || got.All() != 1 {
			t.Errorf("the read after the unheard change to %q: %v, want it read whole, the watchers unheard %d times", text, got, 1-i)
		}
	}
	// The person running the provider is told, once for the document.
	if n := strings.Count(logged.String(), "its watchers' call to the provider never came"); n != 1 {
		t.Errorf("the log says %d times that the page's changes went unheard, want once:\n%s", n, logged.String())
	}

	// Heard again: the binding and Accessibility back. The tree kept from
	// before the unheard changes is gone, so the next change, told by its
	// signal and Chrome's events, does not make it answer again: the read
	// shows every change, and is not a kept tree's.
	if err := s.Call(ctx, runtime.CommandAddBinding, runtime.AddBindingParams{Name: bindingName, ExecutionContextName: worldName}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Call(ctx, accessibility.CommandEnable, cdproto.Empty{}, nil); err != nil {
		t.Fatal(err)
	}
	// Read past Settle: the signal come, a kept tree would answer as it is.
	u.eval(t, us, fmt.Sprintf(`document.querySelector('button').textContent = 'Heard again';
		new Promise((done) => setTimeout(() => done(''), %d))`, (warm.Settle+100*time.Millisecond).Milliseconds()))
	answers = p.Answers()
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	outline := strings.Join(outlineOf(cur.Root), "\n")
	for _, text := range []string{"Changed again", "Heard again"} {
		if !strings.Contains(outline, text) {
			t.Errorf("the read once heard again does not show %q:\n%s", text, outline)
		}
	}
	if got := p.Answers().Minus(answers); got.Kept() != 0 || got.All() != 1 {
		t.Errorf("the first read once heard again: %v, want it not answered by a kept tree", got)
	}
	warmIsCold(t, ctx, p, "the read after", false)
}

// A host subscribed that never reads, on a page that changes every 20 ms
// (a ticker): for a minute the events queued for the kept trees stay
// within their bound (past it the trees are dropped), and the read after
// is right, read whole.
func TestEventsOfAPageNobodyReadsAreBounded(t *testing.T) {
	ticker := sectionsPage("Ticker", 20) + `<script>let n = 0; window.ticker = setInterval(() => { document.querySelector('h2').textContent = 'Tick ' + (n++) }, 20)</script>`
	url := serve(t, map[string]string{"/": ticker})
	ctx, p, u := launchFor(t, url+"/", Options{RestAfter: -1, WalkFrom: -1})
	stop := p.Watch(func() {})
	defer stop()
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	a := sessionOf(t, p, u.tabs[0]).ax.Load()
	frame := cdproto.FrameID(u.tabs[0])
	if err := waitFor(ctx, func() bool { return a.WalkedDocument(frame) != "" }); err != nil {
		t.Fatalf("the page was not walked: %v", err)
	}
	most := 0
	minute := time.NewTimer(time.Minute)
	sample := time.NewTicker(20 * time.Millisecond)
	defer sample.Stop()
sampling:
	for {
		select {
		case <-minute.C:
			break sampling
		case <-sample.C:
			most = max(most, a.Queued())
		}
	}
	t.Logf("at most %d events queued in a minute; the queue passed its bound %d times", most, p.answers.Overflows.Load())
	if most > warm.MaxEvents {
		t.Errorf("%d events queued, want at most %d", most, warm.MaxEvents)
	}
	if p.answers.Overflows.Load() == 0 {
		t.Error("the queue never came to its bound: the test did not try it")
	}
	u.eval(t, u.session(t, u.tabs[0]), `clearInterval(window.ticker); ''`)
	answers := p.Answers()
	warmIsCold(t, ctx, p, "the read after a minute unread", false)
	if got := p.Answers().Minus(answers); got.Kept() != 0 {
		t.Errorf("the read after a minute unread: %v, want it read whole", got)
	}
}

// Every DevTools client that names the provider's isolated world gets
// the same one: two providers attached to one browser (two hosts, or a
// host and the command line) share the page watchers in it. One that
// rests, and one that closes, no longer keep them awake, but they must
// not silence them for another: a provider still awake keeps being told
// of a change by the page. (The watchers stopping once every provider
// rests is TestRest's.)
func TestProvidersShareThePageWatchers(t *testing.T) {
	url := serve(t, map[string]string{"/": sectionsPage("Shared", 10)})
	ctx, awake, u := launchFor(t, url+"/", Options{RestAfter: time.Hour, WalkFrom: -1})
	if _, err := awake.Current(ctx); err != nil {
		t.Fatal(err)
	}
	resting, err := NewProvider(Options{Connect: awake.opts.Connect, RestAfter: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer resting.Close()
	closing, err := NewProvider(Options{Connect: awake.opts.Connect, RestAfter: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Provider{resting, closing} {
		if _, err := p.Current(ctx); err != nil {
			t.Fatal(err)
		}
	}
	waitResting(t, ctx, resting, true)
	closing.Close()

	// The watchers are awake for the awake provider alone: the closing
	// one told them as it closed (its last message), the resting one
	// when it rested.
	s := sessionOf(t, awake, u.tabs[0])
	frame := cdproto.FrameID(u.tabs[0])
	var ids string
	if err := waitFor(ctx, func() bool {
		return evalIn(ctx, s, frame, `[...globalThis.__cdpprovider.awake].join(' ')`, &ids) == nil && ids == strconv.FormatInt(awake.watchID, 10)
	}); err != nil {
		t.Fatalf("the page watchers are awake for %q, want the awake provider's %d alone: %v", ids, awake.watchID, err)
	}

	awake.mu.Lock()
	conn := awake.conn
	awake.mu.Unlock()
	called := conn.Traffic().Events["Runtime.bindingCalled"]
	us := u.session(t, u.tabs[0])
	u.eval(t, us, `document.querySelector('h2').textContent = 'Changed'; ''`)
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := waitFor(tctx, func() bool { return conn.Traffic().Events["Runtime.bindingCalled"] > called }); err != nil {
		t.Fatalf("the page's watchers did not tell the awake provider of a change after another provider rested and another closed: %v", err)
	}
}

// The focus and hover chains a provider keeps in the shared world carry
// its token; another provider (another process, which numbers its
// chains from 1 as well) keeps its own chain there under the same
// number. The first must not take the other's chain, found the same
// elements, for its own: it reads the chain again, and says what is
// focused now.
func TestAnotherProvidersChainIsNotTaken(t *testing.T) {
	url := serve(t, map[string]string{"/": `<!doctype html><title>Chains</title><input aria-label="First"><input aria-label="Second">`})
	ctx, first, u := launchFor(t, url+"/", Options{RestAfter: time.Hour, WalkFrom: -1})
	us := u.session(t, u.tabs[0])
	focused := func(cur *mapping.Current) []string {
		return elementsOf(cur.Root, func(e *mapping.Element) bool { return e.Role == "TextField" && slices.Contains(e.States, "focused") })
	}
	u.eval(t, us, `document.querySelector('input').focus(); ''`)
	start := chainTokens.Load()
	cur, err := first.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := focused(cur); !slices.Equal(got, []string{"TextField First"}) {
		t.Fatalf("focused: %q, want the first field", got)
	}

	// Another process's provider: its numbers start where this one's did.
	u.eval(t, us, `document.querySelectorAll('input')[1].focus(); ''`)
	other, err := NewProvider(Options{Connect: first.opts.Connect, RestAfter: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	chainTokens.Store(start)
	if cur, err = other.Current(ctx); err != nil {
		t.Fatal(err)
	}
	if got := focused(cur); !slices.Equal(got, []string{"TextField Second"}) {
		t.Fatalf("the other provider: focused %q, want the second field", got)
	}
	if cur, err = first.Current(ctx); err != nil {
		t.Fatal(err)
	}
	if got := focused(cur); !slices.Equal(got, []string{"TextField Second"}) {
		t.Errorf("the first provider after the other read: focused %q, want the second field", got)
	}
}
