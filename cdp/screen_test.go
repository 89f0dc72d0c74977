package cdp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"

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

	check := func(what string) (on []string) {
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
		var wrong []string
		walkTree(page.Root, func(e *mapping.Element) {
			if e.Role != "Link" && e.Role != "Button" {
				return
			}
			loc, err := p.Locate(ctx, e.ID)
			if err != nil {
				t.Fatalf("%s: locate %s %q: %v", what, e.Role, e.Title, err)
			}
			located := loc.State == mapping.OnScreen
			if located != inScreen[e.ID] {
				wrong = append(wrong, fmt.Sprintf("%s %q: locate says %s, in the screen answer: %v", e.Role, e.Title, loc.State, inScreen[e.ID]))
			}
			if located {
				on = append(on, e.Title)
			}
		})
		if len(wrong) > 0 {
			t.Errorf("%s: the screen answer and locate disagree on %d elements:\n%s", what, len(wrong), strings.Join(wrong, "\n"))
		}
		return on
	}

	on := check("at the top")
	for _, want := range []string{"Home", "Menu", "d5-3", "Clipped in", "Row one", "Shadow in", "Half in", "Inner top"} {
		if !slices.Contains(on, want) {
			t.Errorf("at the top: %q is not on screen; on screen: %q", want, on)
		}
	}
	for _, gone := range []string{"Clipped out", "Row four", "Shadow out", "Inner bottom", "Below 29", "Hidden link"} {
		if slices.Contains(on, gone) {
			t.Errorf("at the top: %q is on screen, want it off", gone)
		}
	}

	// Nothing changed: the last walk answers, counted.
	walks, reuses := p.screenWalks.Load(), p.screenReuses.Load()
	if _, err := p.Screen(ctx); err != nil {
		t.Fatal(err)
	}
	if w, r := p.screenWalks.Load()-walks, p.screenReuses.Load()-reuses; w != 0 || r == 0 {
		t.Errorf("an unchanged screen read walked %d documents and took %d last walks again, want 0 and some", w, r)
	}

	told, stop := watchTold(p)
	defer stop()
	u.eval(t, s, `scrollBy(0, 300), String(scrollY)`)
	select {
	case <-told:
	case <-ctx.Done():
		t.Fatal("the watcher was not told of the scroll")
	}
	walks, scrolls := p.screenWalks.Load(), p.screenScrolls.Load()
	on = check("scrolled by 300")
	if p.screenWalks.Load() == walks {
		t.Error("the screen read after a scroll took the last answer again")
	}
	if p.screenScrolls.Load() == scrolls {
		t.Error("the screen read after the page's scroll walked the page again, want the last walk shifted by the scroll")
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
