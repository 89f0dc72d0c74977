package cdp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// samplerPage is a page built to catch a screen found by sampling points:
// links of 4×4 pixels between the points of any 16-pixel grid, a sticky
// header, a button scrolled half in, an iframe scrolled partly into view,
// links in an open shadow root, one under visibility: hidden, one clipped
// away by its scrolling box, one scrolled out of a row, and many below
// the screen.
func samplerPage(frameURL string) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Sampler</title><style>
body { margin: 0; font: 14px sans-serif; }
header { position: sticky; top: 0; background: #eee; height: 40px; z-index: 2; }
.dot { position: absolute; width: 4px; height: 4px; overflow: hidden; font-size: 2px; background: #00f; }
#grid { position: relative; height: 200px; }
#half { position: absolute; left: 300px; top: calc(100vh - 10px); }
#frame { position: absolute; left: 600px; top: calc(100vh - 100px); width: 300px; height: 400px; border: 0; }
#clip { width: 100px; height: 30px; overflow: hidden; }
#row { width: 300px; overflow-x: auto; white-space: nowrap; }
#row a { display: inline-block; width: 140px; }
.below { display: block; height: 40px; }
</style></head><body>
<header><a href="#top" id="home">Home</a> <button id="menu">Menu</button></header>
<div id="grid">`)
	for i := range 6 {
		for j := range 4 {
			fmt.Fprintf(&b, `<a class="dot" href="#d%d-%d" style="left:%dpx;top:%dpx">d%d-%d</a>`, i, j, 10+16*i*3, 10+16*j*3, i, j)
		}
	}
	b.WriteString(`</div>
<div id="clip"><a href="#c1">Clipped in</a><br><br><br><a href="#c2">Clipped out</a></div>
<div id="row"><a href="#r1">Row one</a><a href="#r2">Row two</a><a href="#r3">Row three</a><a href="#r4">Row four</a></div>
<div style="transform: translateZ(0); overflow: hidden; width: 300px; height: 30px"><a href="#f1" style="position: fixed; left: 0; top: 0">Fixed in</a><a href="#f2" style="position: fixed; left: 0; top: 60px">Fixed out</a></div>
<div style="overflow: hidden; width: 300px; height: 30px"><div style="filter: opacity(1)"><a href="#a1" style="position: absolute; top: 0">Absolute in</a><a href="#a2" style="position: absolute; top: 60px">Absolute out</a></div></div>
<p><a href="#h" style="visibility:hidden">Hidden link</a></p>
<div id="host"></div>
<script>
const root = document.getElementById('host').attachShadow({mode: 'open'});
root.innerHTML = '<a href="#s1">Shadow in</a><div style="height:2000px"></div><a href="#s2">Shadow out</a>';
document.getElementById('row').addEventListener('scroll', () => { window.rowScrolled = true; });
</script>
`)
	for i := range 30 {
		fmt.Fprintf(&b, `<a class="below" href="#b%d">Below %d</a>`, i, i)
	}
	fmt.Fprintf(&b, `<iframe id="frame" src="%s"></iframe>
<button id="half">Half in</button>
<dialog id="dlg"><p>Sure?</p><button>Confirm</button></dialog>
</body></html>`, frameURL)
	return b.String()
}

const samplerFrame = `<!doctype html><html><head><title>Inner</title><style>body{margin:0}</style></head><body>
<a href="#i1">Inner top</a><div style="height:60px"></div><a href="#i2">Inner middle</a><div style="height:200px"></div><a href="#i3">Inner bottom</a>
</body></html>`

// TestScreenIsWhatLocateSays: every element of the page that has a box
// (a Link, a Button) is in the screen answer exactly when locate says it
// is onscreen: none missed between the points of a grid, none clipped
// or scrolled away kept, in the page, an iframe and a shadow root. Then
// the page scrolls: the watcher is told, the next screen is the new one,
// walked again; a read with nothing changed takes the last walk. Last, a
// modal <dialog> opens: its button is on screen (what is behind it is
// inert, and Chrome leaves it out of the page's tree).
func TestScreenIsWhatLocateSays(t *testing.T) {
	t.Parallel()
	url := serve(t, map[string]string{"/": samplerPage("/frame.html"), "/frame.html": samplerFrame})
	ctx, u, p := browserWith(t, url)
	s := u.session(t, u.tabs[0])
	waitEval(t, u, s, `document.getElementById('frame').contentDocument?.readyState ?? 'cross'`, "complete")

	check := func(what string) []string {
		t.Helper()
		on, wrong := screenAndLocate(t, ctx, p)
		if len(wrong) > 0 {
			t.Errorf("%s: the screen answer and locate disagree on %d elements:\n%s", what, len(wrong), strings.Join(wrong, "\n"))
		}
		return on
	}

	on := check("at the top")
	for _, want := range []string{"Home", "Menu", "d5-3", "Clipped in", "Row one", "Fixed in", "Absolute in", "Shadow in", "Half in", "Inner top"} {
		if !slices.Contains(on, want) {
			t.Errorf("at the top: %q is not on screen; on screen: %q", want, on)
		}
	}
	for _, gone := range []string{"Clipped out", "Row four", "Fixed out", "Absolute out", "Shadow out", "Inner bottom", "Below 29", "Hidden link"} {
		if slices.Contains(on, gone) {
			t.Errorf("at the top: %q is on screen, want it off", gone)
		}
	}

	// Nothing changed: the last walk answers, counted; the script sent
	// ahead for the tab said so ("same").
	walks, reuses, aheads := p.screenWalks.Load(), p.screenReuses.Load(), p.screenAheads.Load()
	if _, err := p.Screen(ctx); err != nil {
		t.Fatal(err)
	}
	if w, r := p.screenWalks.Load()-walks, p.screenReuses.Load()-reuses; w != 0 || r == 0 {
		t.Errorf("an unchanged screen read walked %d documents and took %d last walks again, want 0 and some", w, r)
	}
	if p.screenAheads.Load() == aheads {
		t.Error("an unchanged screen read did not take the screen script sent ahead with the tab's state")
	}

	told, stop := watchTold(p)
	defer stop()
	u.eval(t, s, `scrollBy(0, 300), String(scrollY)`)
	select {
	case <-told:
	case <-ctx.Done():
		t.Fatal("the watcher was not told of the scroll")
	}
	walks, scrolls, aheads := p.screenWalks.Load(), p.screenScrolls.Load(), p.screenAheads.Load()
	on = check("scrolled by 300")
	if p.screenWalks.Load() == walks {
		t.Error("the screen read after a scroll took the last answer again")
	}
	if p.screenScrolls.Load() == scrolls {
		t.Error("the screen read after the page's scroll walked the page again, want the last walk shifted by the scroll")
	}
	if p.screenAheads.Load() == aheads {
		t.Error("the screen read after a scroll did not take the screen script sent ahead with the tab's state")
	}
	if slices.Contains(on, "d0-0") || !slices.Contains(on, "Home") || !slices.Contains(on, "Inner bottom") {
		t.Errorf("scrolled by 300: on screen %q, want the sticky Home and the iframe's bottom, not the grid's first dot", on)
	}

	// An element scrolled (once its scroll event came, as it has when a
	// person scrolled it): a walk, not the last one shifted.
	u.eval(t, s, `scrollTo(0, 0), 'top'`)
	check("back at the top")
	scrolls = p.screenScrolls.Load()
	u.eval(t, s, `document.getElementById('row').scrollLeft = 200, 'scrolled'`)
	waitEval(t, u, s, `String(window.rowScrolled === true)`, "true")
	on = check("the row scrolled")
	if p.screenScrolls.Load() != scrolls {
		t.Error("the screen read after an element scrolled took the page's last walk shifted")
	}
	if slices.Contains(on, "Row one") || !slices.Contains(on, "Row three") {
		t.Errorf("the row scrolled by 200: on screen %q, want Row three and not Row one", on)
	}

	u.eval(t, s, `document.getElementById('dlg').showModal(), 'open'`)
	if on = check("a modal dialog open"); !slices.Contains(on, "Confirm") {
		t.Errorf("a modal dialog open: on screen %q, want its Confirm button", on)
	}
}

// An answer of the screen script that nobody took (sent ahead for a
// read that ended first) numbered the elements it found new on screen:
// the script does not return them again, and the provider has no id of
// them. The next screen read must still show them: it starts a new
// numbering and walks again.
func TestScreenAfterAnAnswerLostShowsAll(t *testing.T) {
	t.Parallel()
	url := serve(t, map[string]string{"/": samplerPage("/frame.html"), "/frame.html": samplerFrame})
	ctx, u, p := browserWith(t, url)
	s := u.session(t, u.tabs[0])
	waitEval(t, u, s, `document.getElementById('frame').contentDocument?.readyState ?? 'cross'`, "complete")
	if _, err := p.Screen(ctx); err != nil {
		t.Fatal(err)
	}
	u.eval(t, s, `document.querySelector('.below').scrollIntoView(), String(scrollY)`)

	// The answer lost: sent as a read sends it, its elements numbered in
	// the page, then dropped.
	tab := u.tabs[0]
	p.mu.Lock()
	sess := p.state.sessions[tab]
	expr := p.screenExpr(p.state.topScreen(tab, sess.ShownDocument()), nil)
	p.mu.Unlock()
	a := sendScreen(ctx, sess, cdproto.FrameID(tab), expr, false)
	if a == nil {
		t.Fatal("no world known in the tab after a read")
	}
	_, items, err := a.answer(ctx)
	a.drop()
	if err != nil || len(items) < 2 {
		t.Fatalf("the answer dropped numbered no element: %v, %d items: %s", err, len(items), items[0].text())
	}

	on, wrong := screenAndLocate(t, ctx, p)
	if len(wrong) > 0 {
		t.Errorf("the screen read after an answer was lost and locate disagree:\n%s", strings.Join(wrong, "\n"))
	}
	if !slices.Contains(on, "Below 0") {
		t.Errorf("locate says %q are on screen, not the first link below: the test shows nothing", on)
	}
}

// screenAndLocate reads the page, then the screen, and locates each Link
// and Button of the page: it returns the titles of those locate says are
// on screen, and a line for each that the screen answer holds or leaves
// out against what locate says.
func screenAndLocate(t *testing.T, ctx context.Context, p *Provider) (on, wrong []string) {
	t.Helper()
	page, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	scr, err := p.Screen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	inScreen := map[string]bool{}
	walkTree(scr.Root, func(e *mapping.Element) { inScreen[e.ID] = true })
	walkTree(page.Root, func(e *mapping.Element) {
		if e.Role != "Link" && e.Role != "Button" {
			return
		}
		loc, err := p.Locate(ctx, e.ID)
		if err != nil {
			t.Fatalf("locate %s %q: %v", e.Role, e.Title, err)
		}
		located := loc.State == mapping.OnScreen
		if located != inScreen[e.ID] {
			wrong = append(wrong, fmt.Sprintf("%s %q: locate says %s, in the screen answer: %v", e.Role, e.Title, loc.State, inScreen[e.ID]))
		}
		if located {
			on = append(on, e.Title)
		}
	})
	return on, wrong
}

// walkTree calls f for e and every element below it.
func walkTree(e *mapping.Element, f func(*mapping.Element)) {
	f(e)
	for _, c := range e.Children {
		walkTree(c, f)
	}
}

// A document whose walk failed is kept whole by a screen read (marked
// ScreenUnknown), and left to reading order by the budget (not marked).
func TestSetScreenMarksWhatFailed(t *testing.T) {
	shown, failed := &doc{n: 1}, &doc{n: 2}
	sc := screenFinds{on: map[*doc][]cdproto.BackendNodeID{shown: {5, 6}}, failed: map[*doc]bool{failed: true}}
	for _, screen := range []bool{true, false} {
		frames := map[*doc]*mapping.Frame{shown: {Doc: 1}, failed: {Doc: 2}}
		setScreen(sc, frames, screen)
		if got := frames[shown]; len(got.OnScreen) != 2 || got.ScreenUnknown {
			t.Errorf("screen %v: the document walked: OnScreen %v, unknown %v", screen, got.OnScreen, got.ScreenUnknown)
		}
		if got := frames[failed]; got.ScreenUnknown != screen || got.OnScreen != nil {
			t.Errorf("screen %v: the document whose walk failed: unknown %v, OnScreen %v; want unknown %v", screen, got.ScreenUnknown, got.OnScreen, screen)
		}
	}
}

// Once a host has read the screen, the reads in the background after a
// load find what is on screen too: the host's first read of the screen
// after the load takes that walk, walking nothing itself, and shows the
// new document.
func TestScreenAfterALoadTakesTheWalkAhead(t *testing.T) {
	path := testChrome(t)
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Ahead</title><main>`)
	for i := range 40 {
		fmt.Fprintf(&b, `<section><h2>Part %d</h2><p>Text <a href="#%d">link %d</a></p></section>`, i, i, i)
	}
	b.WriteString(`</main><script>document.querySelector('h2').textContent += ' at ' + performance.timeOrigin</script>`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, b.String()) }))
	defer srv.Close()

	ctx, p, u := walkedOnLaunch(t, path, srv.URL)
	if _, err := p.Screen(ctx); err != nil {
		t.Fatal(err)
	}
	s := u.session(t, u.tabs[0])
	first := u.eval(t, s, `document.querySelector('h2').textContent`)
	ahead, _ := p.readsAhead()
	u.eval(t, s, `location.reload(); ''`)
	u.waitNewDocument(t, s)
	u.waitLoaded(t, 0)
	// Reads in the background: only the provider's state tells when they end.
	if err := waitFor(ctx, func() bool { done, running := p.readsAhead(); return done > ahead && !running }); err != nil {
		t.Fatalf("no read in the background after the load: %v", err)
	}
	waitQuiet(t, ctx, p)
	walks, reuses := p.screenWalks.Load(), p.screenReuses.Load()
	cur, err := p.Screen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w, r := p.screenWalks.Load()-walks, p.screenReuses.Load()-reuses; w != 0 || r != 1 {
		t.Errorf("the first screen read after the load walked %d documents and took %d walks made before, want 0 and 1", w, r)
	}
	now := u.eval(t, s, `document.querySelector('h2').textContent`)
	if now == first || elementsOf(cur.Root, func(e *mapping.Element) bool { return e.Title == now }) == nil {
		t.Errorf("the screen after the load does not show the new document's heading %q (before: %q)", now, first)
	}
}

// A large page that loads after a host has read the screen is walked at
// its load, not fetched whole, though the page before it was small, and
// its screen is read meanwhile from what Chrome gives of the elements on
// screen alone: by the read in the background that the load starts, then
// by the host's, which takes those nodes again (counted) as nothing
// moved. It shows the same elements as the screen read of the whole tree
// once the walk is kept (the focus, off screen, marked as there), and it
// says more is below without a number. A read of the whole page
// meanwhile is not partial.
func TestScreenFirstOfALargePage(t *testing.T) {
	srv := smallAndLarge(t)

	// WalkFrom as a user has it: the small page is read whole, not walked.
	ctx, p, u := launchFor(t, srv.URL+"/small", Options{RestAfter: -1, ScreenFirstFrom: 1000})
	s := u.session(t, u.tabs[0])
	var partial *mapping.Current
	var frame cdproto.FrameID
	var loader cdproto.LoaderID
	var a *warm.Trees
	// The walk runs on its own: when it has ended before the host reads,
	// the person goes back to the small page and loads the large one again.
	for attempt := 0; attempt < 5 && partial == nil; attempt++ {
		if attempt > 0 {
			u.navigate(t, s, 0, srv.URL+"/small")
		}
		if _, err := p.Screen(ctx); err != nil { // the page before, read as a host reads it
			t.Fatal(err)
		}
		waitQuiet(t, ctx, p)
		ahead, _ := p.readsAhead()
		made := p.screenPartials.Load()
		frame, loader, a = loadShown(t, ctx, p, u, s, srv.URL+"/")
		// Reads in the background: only the provider's state tells when they end.
		if err := waitFor(ctx, func() bool { done, running := p.readsAhead(); return done > ahead && !running }); err != nil {
			t.Fatalf("no read in the background after the load: %v", err)
		}
		if !a.LoadWalking(frame, loader) {
			continue
		}
		if p.screenPartials.Load() == made {
			t.Fatal("the read in the background after the load did not read the screen from what is on it alone")
		}
		// It held the page's walk while it asked for the nodes on screen.
		if p.answers.Holds.Load() == 0 {
			t.Fatal("the read in the background after the load read the screen without holding the page's walk")
		}
		partials, reuses := p.screenPartials.Load(), p.partialReuses.Load()
		cur, err := p.Screen(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p.partialReuses.Load() == reuses+1 && p.screenPartials.Load() == partials {
			partial = cur
		}
	}
	if partial == nil {
		t.Fatal("no read of the screen took the nodes the read in the background had read of what is on screen, while the page's walk went on")
	}
	// The screen script's walk said which elements on screen hold others
	// (<main>, the list, its items, the paragraphs), and which of them
	// text of their own: their nodes were asked for last, and only when
	// the others' answers lacked them (warm.PartialNodes).
	p.mu.Lock()
	var on, holders, texts int
	if info := p.state.docNumbered(docKey{u.tabs[0], frame, loader}); info != nil && info.screen.last != nil {
		on, holders = len(info.screen.last.on), len(info.screen.last.holders)
		for _, text := range info.screen.last.holders {
			if text {
				texts++
			}
		}
	}
	p.mu.Unlock()
	if holders == 0 || holders >= on {
		t.Errorf("the screen script named %d of the %d elements on screen as holding others", holders, on)
	}
	// The paragraphs hold text of their own; <main>, the list and its
	// items do not.
	if texts == 0 || texts >= holders {
		t.Errorf("the screen script named %d of the %d elements that hold others as holding text of their own", texts, holders)
	}
	if p.answers.AtLoad.Load() == 0 {
		t.Error("the large page was not walked at its load")
	}
	checkPartialScreen(t, ctx, p, a, frame, loader, partial)
}

// While the host's last read was of the screen, a page of
// ScreenHostFrom elements or more that loads is walked at its load, read
// screen first; after a read of the whole page, the same page loaded
// again is fetched whole at its load (under ScreenFirstFrom).
func TestScreenFirstWhileTheHostReadsTheScreen(t *testing.T) {
	srv := smallAndLarge(t) // the large page: about 10,000 elements
	ctx, p, u := launchFor(t, srv.URL+"/small", Options{RestAfter: -1, ScreenFirstFrom: 50000, ScreenHostFrom: 1000})
	s := u.session(t, u.tabs[0])
	// load loads the small page, then the large one, and tells whether
	// the large one was walked at its load, once it is walked (after a
	// fetch at its load, or as it).
	load := func() bool {
		u.navigate(t, s, 0, srv.URL+"/small")
		waitQuiet(t, ctx, p)
		atLoad := p.answers.AtLoad.Load()
		frame, loader, a := loadShown(t, ctx, p, u, s, srv.URL+"/")
		if err := waitFor(ctx, func() bool { return a.WalkedDocument(frame) == loader }); err != nil {
			t.Fatalf("the large page was not walked after its load: %v", err)
		}
		return p.answers.AtLoad.Load() > atLoad
	}

	if _, err := p.Screen(ctx); err != nil {
		t.Fatal(err)
	}
	if !load() {
		t.Error("after a read of the screen, the large page was fetched at its load, not walked")
	}
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	if load() {
		t.Error("after a read of the whole page, the large page was walked at its load, not fetched")
	}
}

// A page read screen first that is quicker fetched whole than walked
// (fewer elements than WaitWalkFrom) is walked at its load too, and its
// screen read from what is on screen alone; but a read of the whole page
// during that walk fetches the whole tree at once (counted) rather than
// wait for the walk, and is whole; and the screen is read from that tree
// after it.
func TestScreenFirstOfAMidSizePage(t *testing.T) {
	srv := smallAndLarge(t)
	ctx, p, u := launchFor(t, srv.URL+"/small", Options{RestAfter: -1, ScreenFirstFrom: 1000, WaitWalkFrom: 50000})
	s := u.session(t, u.tabs[0])
	// The walk runs on its own: when it has ended before the host reads,
	// the person goes back to the small page and loads the large one again.
	read := false
	for attempt := 0; attempt < 5 && !read; attempt++ {
		if attempt > 0 {
			u.navigate(t, s, 0, srv.URL+"/small")
		}
		if _, err := p.Screen(ctx); err != nil { // the page before, read as a host reads it
			t.Fatal(err)
		}
		waitQuiet(t, ctx, p)
		atLoad := p.answers.AtLoad.Load()
		frame, loader, a := loadShown(t, ctx, p, u, s, srv.URL+"/")
		if err := waitFor(ctx, func() bool { return a.LoadWalking(frame, loader) || a.WalkedDocument(frame) == loader }); err != nil {
			t.Fatalf("the page was neither walked nor walking after its load: %v", err)
		}
		if p.answers.AtLoad.Load() == atLoad {
			t.Fatal("the page was not walked at its load")
		}
		notAwaited, awaited := p.answers.NotAwaited.Load(), p.answers.Awaited.Load()
		all, err := p.Current(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p.answers.NotAwaited.Load() == notAwaited {
			continue // the walk was kept first, or the read waited for it
		}
		read = true
		if p.answers.Awaited.Load() != awaited {
			t.Error("the read of the page that did not wait for the walk waited for a walk")
		}
		if elementsOf(all.Root, func(e *mapping.Element) bool { return e.Title == "link 2499" }) == nil {
			t.Error("the read of the page during its walk is not the whole page")
		}
		// The screen is read from that whole tree then, not from what
		// is on screen alone, the walk over or not.
		partials := p.screenPartials.Load()
		if _, err := p.Screen(ctx); err != nil {
			t.Fatal(err)
		}
		if p.screenPartials.Load() != partials {
			t.Error("a read of the screen after a read of the page fetched its whole tree read what is on screen alone")
		}
	}
	if !read {
		t.Fatal("no read of the page during its walk at its load read it whole rather than wait for the walk")
	}
}

// smallAndLarge serves a small page at /small, which links to largePage,
// served at /.
func smallAndLarge(t *testing.T) *httptest.Server {
	large := largePage()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/small" {
			fmt.Fprint(w, `<!doctype html><title>Small</title><p>A small page <a href="/">to the large one</a></p><script>window.__reloaded = false</script>`)
			return
		}
		fmt.Fprint(w, large)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// loadShown loads url in the tab of s, the provider's first tab, and
// returns the document its top frame shows and the tab's warm trees.
func loadShown(t *testing.T, ctx context.Context, p *Provider, u *user, s *wire.Session, url string) (cdproto.FrameID, cdproto.LoaderID, *warm.Trees) {
	t.Helper()
	u.navigate(t, s, 0, url)
	tree, err := cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	a := p.state.sessions[u.tabs[0]].ax.Load()
	p.mu.Unlock()
	return tree.FrameTree.Frame.ID, tree.FrameTree.Frame.LoaderID, a
}

// largePage is a page of a paragraph of 120 links and 2,500 list items,
// the focus on a link far below the screen; its script sets
// window.__reloaded = false (user.navigate).
func largePage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Large</title><main><h1>Large page</h1><p>`)
	// A paragraph of more children than warm.PartialNodes asks a holder
	// for when it has no text of its own: its text is on screen.
	for i := range 120 {
		fmt.Fprintf(&b, `w%d <a href="#w%d">v%d</a> `, i, i, i)
	}
	b.WriteString(`</p><ul>`)
	for i := range 2500 {
		fmt.Fprintf(&b, `<li><h2>Part %d</h2><p>Text of part %d with <a href="#%d">link %d</a>.</p></li>`, i, i, i, i)
	}
	b.WriteString(`</ul></main><script>window.__reloaded = false; document.querySelector('a[href="#2400"]').focus({preventScroll: true})</script>`)
	return b.String()
}

// checkPartialScreen checks a screen of largePage read from what is on
// screen alone while the document's walk went on: it says more is below
// without a number; a read of the page meanwhile is whole; and once the
// walk is kept, the screen read is not partial and holds the same
// elements, saying more is off screen on the same ones, the same ways.
func checkPartialScreen(t *testing.T, ctx context.Context, p *Provider, a *warm.Trees, frame cdproto.FrameID, loader cdproto.LoaderID, partial *mapping.Current) {
	t.Helper()
	var out strings.Builder
	if err := mapping.Outline(&out, partial.Root); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "… more below") || !strings.Contains(out.String(), "Heading Part 0 level=2") || strings.Contains(out.String(), "Part 2499 ") {
		t.Errorf("the partial screen's outline:\n%s", out.String())
	}
	// The page meanwhile: whole, its walk waited for (it has more
	// elements than WaitWalkFrom).
	notAwaited := p.answers.NotAwaited.Load()
	all, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if elementsOf(all.Root, func(e *mapping.Element) bool { return e.Title == "link 2499" }) == nil {
		t.Error("a read of the page after the partial screen read is not the whole page")
	}
	if p.answers.NotAwaited.Load() != notAwaited {
		t.Error("a read of a page of more elements than WaitWalkFrom read it whole during its walk rather than wait for the walk")
	}
	if err := waitFor(ctx, func() bool { return a.WalkedDocument(frame) == loader }); err != nil {
		t.Fatalf("the page was not walked: %v", err)
	}
	partials := p.screenPartials.Load()
	whole, err := p.Screen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p.screenPartials.Load() != partials {
		t.Error("a read of the screen after the walk was kept asked for what is on screen alone")
	}
	shape := func(root *mapping.Element) []string {
		var lines []string
		walkTree(root, func(e *mapping.Element) {
			lines = append(lines, fmt.Sprintf("%s %s %q %q %v", e.ID, e.Role, e.Title, e.URL, e.States))
		})
		return lines
	}
	if got, want := shape(partial.Root), shape(whole.Root); !slices.Equal(got, want) {
		t.Errorf("the partial screen holds other elements than the screen of the whole tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// It says more is off screen where the whole tree's screen counts
	// some, and only there, in the same directions.
	offs := func(root *mapping.Element) []string {
		var lines []string
		walkTree(root, func(e *mapping.Element) {
			if e.Off != nil {
				lines = append(lines, fmt.Sprintf("%s above %v below %v aside %v", e.ID, e.Off.Above > 0, e.Off.Below > 0, e.Off.Aside > 0))
			}
		})
		return lines
	}
	if got, want := offs(partial.Root), offs(whole.Root); !slices.Equal(got, want) {
		t.Errorf("the partial screen says more is off screen at\n%s\nwant (the whole tree's screen):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A provider's first read of a large page, when it is of the screen,
// reads what is on screen alone and asks for the page's walk, which
// reads of the whole page then wait for; a provider whose first read is
// of the page reads it whole, and its screen reads after are not partial.
func TestScreenFirstOfALargePageOnTheFirstRead(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, largePage()) }))
	defer srv.Close()
	ctx, p, u := launchFor(t, srv.URL, Options{RestAfter: -1, ScreenFirstFrom: 1000})
	s := u.session(t, u.tabs[0])
	u.waitLoaded(t, 0)
	tree, err := cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	frame, loader := tree.FrameTree.Frame.ID, tree.FrameTree.Frame.LoaderID

	// A second provider of the same browser, whose first read is the page's.
	pageFirst, err := NewProvider(Options{Connect: p.opts.Connect, RestAfter: -1, ScreenFirstFrom: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer pageFirst.Close()
	if _, err := pageFirst.Current(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pageFirst.Screen(ctx); err != nil {
		t.Fatal(err)
	}
	if n := pageFirst.screenPartials.Load(); n != 0 {
		t.Errorf("a provider whose first read was the page's read the screen alone %d times after", n)
	}

	partial, err := p.Screen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := p.screenPartials.Load(); n != 1 {
		t.Fatalf("the first read, of the screen, of a large page read what is on screen alone %d times, want 1", n)
	}
	p.mu.Lock()
	a := p.state.sessions[u.tabs[0]].ax.Load()
	p.mu.Unlock()
	// While the walk that read asked for goes on, the next read of the
	// screen takes the nodes on screen again (nothing moved); unless the
	// walk ended first, and the read had the tree.
	reuses := p.partialReuses.Load()
	if _, err := p.Screen(ctx); err != nil {
		t.Fatal(err)
	}
	if p.partialReuses.Load() != reuses+1 && a.WalkedDocument(frame) != loader {
		t.Error("a read of the screen while the walk the first read asked for went on did not take the nodes on screen again")
	}
	checkPartialScreen(t, ctx, p, a, frame, loader, partial)
}

// After a read whose answer was new, the elements near the screen are
// numbered while the page is idle (near): a read after a scroll within
// that reach returns no element with its DOM id (counted), and still
// shows what is on screen exactly as locate says, made from the
// unchanged Document's index (counted); and so does the read after the
// next scroll, past the reach of the first read's near. A read of a
// walked page with nothing changed sends the first call of its barrier
// with the page's state (counted).
func TestScreenNumbersWhatIsNearAhead(t *testing.T) {
	t.Parallel()
	url := serve(t, map[string]string{"/": sectionsPage("Near", 80)})
	ctx, u, p := browserWith(t, url)
	s := u.session(t, u.tabs[0])
	if _, err := p.Screen(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.TakeNear(ctx); err != nil {
		t.Fatal(err)
	}
	if p.screenNear.Load() == 0 {
		t.Fatal("nothing near the screen was numbered after the first read")
	}
	before, err := p.Screen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	onBefore := map[string]bool{}
	walkTree(before.Root, func(e *mapping.Element) { onBefore[e.Title] = true })

	u.eval(t, s, `scrollBy(0, innerHeight), String(scrollY)`)
	fresh, indexed := p.screenFresh.Load(), p.screenMemo.Indexed
	on, wrong := screenAndLocate(t, ctx, p)
	if n := p.screenFresh.Load() - fresh; n != 0 {
		t.Errorf("the screen read after a scroll of one screen returned %d elements with their DOM ids, want none: those near were numbered ahead", n)
	}
	if p.screenMemo.Indexed == indexed {
		t.Error("the screen of the unchanged page after a scroll was not made from its Document's index (mapping.ScreenMemo)")
	}
	if len(wrong) > 0 {
		t.Errorf("after a scroll of one screen the screen answer and locate disagree:\n%s", strings.Join(wrong, "\n"))
	}
	newOn := 0
	for _, title := range on {
		if !onBefore[title] {
			newOn++
		}
	}
	if newOn == 0 {
		t.Error("the scroll brought no link or button on screen: the test shows nothing")
	}

	// That read found nothing new, and numbered what is near its screen
	// all the same: two screens further down, nothing is new either.
	if err := p.TakeNear(ctx); err != nil {
		t.Fatal(err)
	}
	u.eval(t, s, `scrollBy(0, 2 * innerHeight), String(scrollY)`)
	fresh = p.screenFresh.Load()
	if _, wrong := screenAndLocate(t, ctx, p); len(wrong) > 0 {
		t.Errorf("after a scroll of two more screens the screen answer and locate disagree:\n%s", strings.Join(wrong, "\n"))
	}
	if n := p.screenFresh.Load() - fresh; n != 0 {
		t.Errorf("the screen read after a scroll of three screens returned %d elements with their DOM ids, want none: the read before it, which found nothing new, numbered what was near its screen", n)
	}

	// The page unchanged: the barrier's first call went with its state.
	a := sessionOf(t, p, u.tabs[0]).ax.Load()
	if err := waitFor(ctx, func() bool { return a.WalkedDocument(cdproto.FrameID(u.tabs[0])) != "" }); err != nil {
		t.Fatalf("the page was not walked: %v", err)
	}
	if _, err := p.Current(ctx); err != nil { // the first read of the walked tree
		t.Fatal(err)
	}
	ahead := p.answers.BarriersAhead.Load()
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	if p.answers.BarriersAhead.Load() == ahead {
		t.Error("a read of the walked page, unchanged, did not take the barrier's call sent with the page's state")
	}
}

// Once the provider has a numbering of a document, a read of its screen
// sends a call of the function screen.js keeps in the page's isolated
// world, not the script (counted). When the world no longer keeps that
// numbering (here another provider's numbering replaced it, in the world
// all providers share), the call answers so, and the read sends the
// script: the answer is still the screen exactly as locate says.
func TestScreenCallsWhatTheWorldKeeps(t *testing.T) {
	t.Parallel()
	url := serve(t, map[string]string{"/": sectionsPage("Calls", 60)})
	ctx, u, p := browserWith(t, url)
	s := u.session(t, u.tabs[0])
	if _, err := p.Screen(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		u.eval(t, s, `scrollBy(0, 300), String(scrollY)`)
		calls := p.screenCalls.Load()
		if _, wrong := screenAndLocate(t, ctx, p); len(wrong) > 0 {
			t.Errorf("scroll %d: the screen answer and locate disagree:\n%s", i, strings.Join(wrong, "\n"))
		}
		if p.screenCalls.Load() == calls {
			t.Errorf("scroll %d: the screen read sent screen.js, not a call of what the world keeps", i)
		}
	}

	other, err := NewProvider(Options{Connect: p.opts.Connect})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Screen(ctx); err != nil {
		t.Fatal(err)
	}
	u.eval(t, s, `scrollBy(0, 300), String(scrollY)`)
	walks := p.screenWalks.Load()
	on, wrong := screenAndLocate(t, ctx, p)
	if len(wrong) > 0 {
		t.Errorf("after another provider's numbering replaced the provider's, the screen answer and locate disagree:\n%s", strings.Join(wrong, "\n"))
	}
	if len(on) == 0 {
		t.Error("locate says nothing is on screen: the test shows nothing")
	}
	if p.screenWalks.Load() == walks {
		t.Error("the read after another provider's numbering replaced the provider's did not walk the page again")
	}
}

// The screen script answers a read after the page scrolled from an index
// of what its last walk kept, in bands of the page (rows, js/screen.js),
// counted in the page: at every scroll position the index's answer is
// the same as a look at every kept element's, on a page with a fixed
// header, a sticky bar, a clipped scroll box, an element taller than 64
// screens, and what is clipped to nothing or not displayed.
func TestScreenRowsFromTheIndex(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Rows</title><style>body{margin:0} header{position:fixed;top:0;left:0;right:0;height:40px;background:#eee}
.sticky{position:sticky;top:40px;background:#ddd} .box{height:120px;overflow:auto} .clip{height:0;overflow:hidden}</style>
<header><a href="#h">Fixed home</a></header><main style="padding-top:40px">`)
	for i := range 40 {
		fmt.Fprintf(&b, `<section><h2>Part %d</h2><p><a href="#%d">link %d</a></p>`, i, i, i)
		switch i % 8 {
		case 1:
			fmt.Fprintf(&b, `<div class="sticky"><button>Sticky %d</button></div>`, i)
		case 3:
			fmt.Fprintf(&b, `<div class="box">%s</div>`, strings.Repeat(fmt.Sprintf(`<p><a href="#b%d">in box %d</a></p>`, i, i), 6))
		case 5:
			fmt.Fprintf(&b, `<div class="clip"><a href="#c%d">clipped %d</a></div><div style="display:none"><a href="#n">none</a></div>`, i, i)
		case 6:
			fmt.Fprintf(&b, `<div style="position:absolute;left:0;top:%dpx"><a href="#a%d">absolute %d</a></div>`, 300*i+150, i, i)
		}
		b.WriteString(`</section>`)
	}
	b.WriteString(`<div style="height:7000vh;position:relative"><a href="#tall" style="position:absolute;top:50%">In the tall one</a></div></main>`)
	url := serve(t, map[string]string{"/": b.String()})
	ctx, u, p := browserWith(t, url)
	if _, err := p.Screen(ctx); err != nil { // the walk
		t.Fatal(err)
	}
	sess := sessionOf(t, p, u.tabs[0])
	var got struct {
		Bad     []string `json:"bad"`
		Indexed int      `json:"indexed"`
		Scans   int      `json:"scans"`
		Reads   int      `json:"reads"`
		On      int      `json:"on"`
	}
	// In the world: at each position, the answer of the index, then that
	// of every kept element (the index set aside), compared.
	expr := `(() => {
  const st = globalThis.__cdpproviderScreen, k = st.kept, bad = [];
  const indexed = st.indexed, scans = st.scans, h = document.documentElement.scrollHeight;
  let on = 0, reads = 0;
  for (let t = 0; t <= 80; t++) {
    scrollTo(0, t === 80 ? h : Math.round(t * h / 80) + (t % 3) * 37);
    const a = JSON.parse(st.find(null, 0)[0]);
    const index = k.index;
    k.index = {size: 0};
    const b = JSON.parse(st.find(null, 0)[0]);
    k.index = index;
    reads++;
    on += a.on.length;
    if (a.how !== 'scroll' || b.how !== 'scroll' || JSON.stringify(a.on) !== JSON.stringify(b.on) || JSON.stringify(a.frames) !== JSON.stringify(b.frames))
      bad.push('at ' + scrollY + ': ' + a.how + ' ' + JSON.stringify(a.on) + ', every element: ' + b.how + ' ' + JSON.stringify(b.on));
  }
  return {bad, indexed: st.indexed - indexed, scans: st.scans - scans, reads, on};
})()`
	if err := evalIn(ctx, sess, cdproto.FrameID(u.tabs[0]), expr, &got); err != nil {
		t.Fatal(err)
	}
	for _, line := range got.Bad {
		t.Error("the index and a look at every element disagree " + line)
	}
	if got.Indexed != got.Reads || got.Scans != got.Reads {
		t.Errorf("of %d reads at each of two ways, %d were answered from the index and %d by a look at every element, want %d each", got.Reads, got.Indexed, got.Scans, got.Reads)
	}
	if got.On < got.Reads {
		t.Errorf("%d elements on screen over %d positions: the test shows nothing", got.On, got.Reads)
	}
}

// A screen read after the tab's page changed sends, right behind the
// tab's state script, the screen script for the new document, not a
// call of the function the document before kept in its world (which
// answers "absent", and the script goes a round trip later): the script
// sent ahead answers the read.
func TestScreenAheadOfANewDocument(t *testing.T) {
	t.Parallel()
	url := serve(t, map[string]string{
		"/":    `<!doctype html><title>One</title><a href="#a">First page</a>`,
		"/two": `<!doctype html><title>Two</title><a href="#b">Second page</a>`,
	})
	ctx, u, p := browserWith(t, url)
	s := u.session(t, u.tabs[0])
	if _, err := p.Screen(ctx); err != nil {
		t.Fatal(err)
	}
	u.navigate(t, s, 0, url+"/two")
	tree, err := cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	ps := p.state.sessions[u.tabs[0]]
	p.mu.Unlock()
	// The provider's session is told of the new document by the page's
	// events, apart from the user's.
	if err := waitFor(ctx, func() bool { return ps.ShownDocument() == tree.FrameTree.Frame.LoaderID }); err != nil {
		t.Fatalf("the provider's session was not told of the new document: %v", err)
	}
	aheads := p.screenAheads.Load()
	cur, err := p.Screen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if elementsOf(cur.Root, func(e *mapping.Element) bool { return e.Title == "Second page" }) == nil {
		t.Error("the screen read after the navigation does not show the new page's link")
	}
	if p.screenAheads.Load() == aheads {
		t.Error("the screen read after the navigation did not take the screen script sent ahead with the tab's state")
	}
}
