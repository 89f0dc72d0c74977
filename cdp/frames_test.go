package cdp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/google/go-cmp/cmp"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// A read fetches every frame of the tab at once, before it knows which
// <iframe> elements are shown; the documents of hidden ones are left out
// of the answer and get no warm tree (nothing would read it).
func TestHiddenFramesAreNotReportedOrWalked(t *testing.T) {
	url := serve(t, map[string]string{
		"/main.html": `<!doctype html><title>Main</title><h1>Main</h1>
<iframe src="/shown.html" title="Shown"></iframe>
<iframe src="/hidden.html" title="Hidden" style="display:none"></iframe>`,
		"/shown.html":  `<!doctype html><title>shown frame</title><button>shown button</button>`,
		"/hidden.html": `<!doctype html><title>hidden frame</title><button>hidden button</button>`,
	})
	ctx, u, p := browserWith(t, url+"/main.html")

	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	docs := elementsOf(cur.Root, func(e *mapping.Element) bool { return e.Role == "Document" })
	if want := []string{"Document Main", "Document shown frame"}; !slices.Equal(docs, want) {
		t.Errorf("documents reported: %q, want %q", docs, want)
	}

	waitWalked(t, ctx, p)
	ft, err := cdproto.Call(ctx, u.session(t, u.tabs[0]), page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	frames := map[string]cdproto.FrameID{}
	for _, ch := range ft.FrameTree.ChildFrames {
		frames[ch.Frame.URL[strings.LastIndex(ch.Frame.URL, "/")+1:]] = ch.Frame.ID
	}
	p.mu.Lock()
	var a *warm.Trees
	if s := p.state.sessions[u.tabs[0]]; s != nil {
		a = s.ax.Load()
	}
	p.mu.Unlock()
	if a == nil {
		t.Fatal("the tab has no warm trees")
	}
	if !a.Walked(frames["shown.html"]) {
		t.Error("the shown frame's document was not walked")
	}
	if a.Walked(frames["hidden.html"]) || a.WalkAsked(frames["hidden.html"]) {
		t.Error("the hidden frame's document was walked")
	}
}

// List items move between lists in bursts, read at once (the events wait
// for a later read) and after Chrome has sent them: the warm tree follows
// them (a moved item comes back as a new accessibility node; see
// settleMoves and TestTwinParents in package warm).
func TestWarmTreeFollowsMoves(t *testing.T) {
	pages := newExactPages(t, 30)
	ctx, u, p := browserWith(t, pages.main+"/main.html")
	waitWalked(t, ctx, p)
	main := u.session(t, u.tabs[0])
	for i := range 16 {
		// Items move between lists, and back, in bursts; half the time a
		// read comes at once (the events wait for a later read).
		for j := range 1 + i%3 {
			from, to := (i*5+j*3)%30, (i*11+j*7+1)%30
			u.eval(t, main, fmt.Sprintf(`(() => { const l = document.querySelectorAll('ul'); const li = l[%d].querySelector('li:last-child'); if (li) l[%d].insertBefore(li, l[%d].firstChild); return ''; })()`, from, to, to))
		}
		if i%2 == 0 {
			warmIsCold(t, ctx, p, fmt.Sprintf("burst %d, at once", i), false)
		}
		time.Sleep(warm.Settle + 300*time.Millisecond)
		warmIsCold(t, ctx, p, fmt.Sprintf("burst %d", i), true)
	}
}

// What changed in a tab while it was in the background is in the answer
// when the tab comes back to the front. A tab no window shows is not kept
// warm (TestHiddenTabIsNotKeptWarm): it is read whole then, and its
// frames with it.
func TestReadAfterChangesInTheBackground(t *testing.T) {
	pages := newExactPages(t, 30)
	ctx, u, p := browserWith(t, pages.main+"/main.html")
	u.openSecondTab(t, pages.main+"/other.html")
	u.front(t, 0)
	waitWalked(t, ctx, p)
	main := u.session(t, u.tabs[0])
	for i := range 6 {
		u.front(t, 1)
		if _, err := p.current(ctx, readWarm); err != nil {
			t.Fatal(err)
		}
		u.eval(t, main, fmt.Sprintf(`(() => { const c = document.querySelectorAll('input[type=checkbox]'); c[%d].click(); document.querySelectorAll('li')[%d].textContent = 'Changed %d'; return ''; })()`, i, i*3, i))
		time.Sleep(warm.Settle + 300*time.Millisecond)
		u.front(t, 0)
		warmIsCold(t, ctx, p, fmt.Sprintf("change %d", i), false)
	}
}

// The hovered element is the nearest one the answer has at or above the
// deepest element under the pointer, which the accessibility tree may
// not have (the shapes inside an SVG image).
func TestHoverBelowWhatTheTreeHas(t *testing.T) {
	url := serve(t, map[string]string{"/main.html": `<!doctype html><title>Hover</title><h1>Hover</h1>
<svg role="img" aria-label="Chart" width="200" height="200"><g><rect id="b" x="20" y="20" width="160" height="160" fill="red"/></g></svg>`})
	ctx, u, p := browserWith(t, url+"/main.html")
	main := u.session(t, u.tabs[0])
	var xy [2]float64
	if err := jsonv2.Unmarshal([]byte(u.eval(t, main, `(() => { const r = document.getElementById('b').getBoundingClientRect(); return JSON.stringify([r.x + r.width / 2, r.y + r.height / 2]); })()`)), &xy); err != nil {
		t.Fatal(err)
	}
	if _, err := cdproto.Call(ctx, main, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: xy[0], Y: xy[1]}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); u.eval(t, main, `document.getElementById('b').matches(':hover') ? 'yes' : 'no'`) != "yes"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the test did not get the pointer over the shape")
		}
	}
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hovered := func(e *mapping.Element) bool { return slices.Contains(e.States, "hovered") }
	if got, want := elementsOf(cur.Root, hovered), []string{"Image Chart"}; !slices.Equal(got, want) {
		t.Errorf("hovered: %q, want %q", got, want)
	}
}

// browserWith launches a headless browser on url and returns the person
// at it, with the page loaded, and a new provider for it.
func browserWith(t *testing.T, url string) (context.Context, *user, *Provider) {
	t.Helper()
	path := testChrome(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	b, err := browsers.Launch(ctx, browsers.LaunchOptions{Path: path, URLs: []string{url}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	u := newUser(t, ctx, b.DebugURL())
	t.Cleanup(u.close)
	u.waitLoaded(t, 0)
	p, err := NewProvider(Options{Connect: b.DebugURL(), WalkFrom: -1, RestAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return ctx, u, p
}

// serve serves the pages, by path, on loopback and returns the server's
// URL.
func serve(t testing.TB, pages map[string]string) string {
	t.Helper()
	mux := http.NewServeMux()
	for path, html := range pages {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, html) })
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// warmIsCold fails the test when the provider's warm read differs from a
// cold read, or, with kept, when the kept trees did not answer each of its
// documents: a read of every document whole would pass the comparison.
func warmIsCold(t *testing.T, ctx context.Context, p *Provider, what string, kept bool) {
	t.Helper()
	before := p.Answers()
	warm, err := p.current(ctx, readWarm)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Answers().Minus(before); kept && (got.Kept() == 0 || got.Kept() != got.All()) {
		t.Errorf("%s: the documents were not all answered from the kept trees: %v", what, got)
	}
	cold, err := p.current(ctx, readCold)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(outlineOf(cold.Root), outlineOf(warm.Root)); d != "" {
		t.Fatalf("%s: the warm read differs from a cold read (-cold +warm):\n%s", what, d)
	}
}

// elementsOf returns the role and title of the elements under e that
// keep keeps, in order.
func elementsOf(e *mapping.Element, keep func(*mapping.Element) bool) []string {
	var out []string
	if keep(e) {
		out = append(out, e.Role+" "+e.Title)
	}
	for _, c := range e.Children {
		out = append(out, elementsOf(c, keep)...)
	}
	return out
}

// A page that makes and removes iframes all day (a rotating
// advertisement, a widget) leaves nothing of them in the provider: its
// worlds, chains, warm trees and document numbers are those of the
// frames alive, and the ids of a removed frame's elements answer gone.
func TestFramesGoneAreForgotten(t *testing.T) {
	url := serve(t, map[string]string{
		"/p": `<!doctype html><title>Rotating</title><main><h1>Host</h1><div id=box><iframe src="/f?0"></iframe></div></main><script>
let n = 1;
window.cycle = () => { const b = document.getElementById('box'); b.innerHTML = ''; const f = document.createElement('iframe'); f.src = '/f?' + (n++); b.appendChild(f); return new Promise(r => f.onload = () => r('loaded')); };
</script>`,
		"/f": sectionsPage("Advert", 20),
	})
	ctx, p, u := launchFor(t, url+"/p", Options{RestAfter: -1})
	us := u.session(t, u.tabs[0])
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first := find(cur.Root, "Button 3")
	if first == nil {
		t.Fatal("the iframe's button is not in the answer")
	}
	if loc, err := p.Locate(ctx, first.ID); err != nil || loc.State == mapping.Gone {
		t.Fatalf("locate of the iframe's button: %v, %v", loc, err)
	}
	const cycles = 12
	for range cycles {
		if got := u.eval(t, us, `cycle()`); got != "loaded" {
			t.Fatalf("cycle: %q", got)
		}
		for range 2 { // read after a change, with the focus in the iframe: its world and chains are made
			u.eval(t, us, `document.querySelector('iframe').contentDocument.querySelectorAll('button')[3].focus(); ''`)
			if _, err := p.Current(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	ft, err := cdproto.Call(ctx, us, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	alive := map[cdproto.FrameID]bool{ft.FrameTree.Frame.ID: true}
	for _, ch := range ft.FrameTree.ChildFrames {
		alive[ch.Frame.ID] = true
	}
	s := sessionOf(t, p, u.tabs[0])
	s.worldsMu.Lock()
	for f := range s.worlds {
		if !alive[f] {
			t.Errorf("a world is kept in frame %s, gone", f)
		}
	}
	s.worldsMu.Unlock()
	s.chainsMu.Lock()
	for k := range s.chains {
		if !alive[k.frame] {
			t.Errorf("a %s chain is kept of frame %s, gone", k.key, k.frame)
		}
	}
	s.chainsMu.Unlock()
	if held := s.ax.Load().Held(); held.Frames > len(alive) || held.Signals > len(alive) {
		t.Errorf("the warm trees keep something of %d frames, and the signals of %d documents' watchers, after %d iframes came and went; %d are alive", held.Frames, held.Signals, cycles, len(alive))
	}
	p.mu.Lock()
	for _, d := range p.state.docs {
		if d.key.target == u.tabs[0] && !alive[d.key.frame] {
			t.Errorf("document %s of frame %s, gone, still has a number", d.key.loader, d.key.frame)
		}
	}
	p.mu.Unlock()
	if loc, err := p.Locate(ctx, first.ID); err != nil || loc.State != mapping.Gone {
		t.Errorf("locate of the first iframe's button, its iframe removed: %v, %v; want gone", loc, err)
	}
	cur, err = p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if e := find(cur.Root, "Button 3"); e == nil {
		t.Error("the live iframe's button is not in the answer")
	} else if loc, err := p.Locate(ctx, e.ID); err != nil || loc.State == mapping.Gone {
		t.Errorf("locate of the live iframe's button: %v, %v", loc, err)
	}
}

// An iframe that loads document after document (a rotating
// advertisement in one frame) makes more documents' watchers signal than
// the warm trees keep the signals of (64), while the host reads: making
// room looks at the kept trees' documents' watchers, which the reads
// note. Under -race the two keep to the trees' lock rules; the answer is
// right, and the signals kept stay bounded.
func TestReadsWhileAnIframeLoadsDocumentAfterDocument(t *testing.T) {
	url := serve(t, map[string]string{
		"/p": `<!doctype html><title>Rotating</title><main><h1>Host</h1><iframe src="/f?0"></iframe></main><script>
let n = 1;
window.cycle = () => { const f = document.querySelector('iframe'); f.src = '/f?' + (n++); return new Promise(r => f.onload = () => r('loaded')); };
</script>`,
		"/f": sectionsPage("Advert", 5),
	})
	ctx, p, u := launchFor(t, url+"/p", Options{RestAfter: -1, WalkFrom: -1})
	us := u.session(t, u.tabs[0])
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	const cycles = 80
	for range cycles {
		if got := u.eval(t, us, `cycle()`); got != "loaded" {
			t.Fatalf("cycle: %q", got)
		}
		// A read installs the new document's watchers; the focus moved
		// into it makes them signal.
		if _, err := p.Current(ctx); err != nil {
			t.Fatal(err)
		}
		u.eval(t, us, `document.querySelector('iframe').contentDocument.querySelector('button').focus(); ''`)
		if _, err := p.Current(ctx); err != nil {
			t.Fatal(err)
		}
	}
	held := sessionOf(t, p, u.tabs[0]).ax.Load().Held()
	t.Logf("after %d documents in the iframe: %+v kept", cycles, held)
	if held.Signals > 64 || held.Frames > 2 {
		t.Errorf("after %d documents in the iframe: the warm trees keep the signals of %d documents' watchers, and something of %d frames", cycles, held.Signals, held.Frames)
	}
	warmIsCold(t, ctx, p, "after the iframe's documents", false)
}

// The hovered element is the last in tree order that is :hover: the
// deepest under the pointer, or the field of a label under it when the
// field comes after (Chrome gives it :hover: pointing at a label points
// at its field), through a wide parent and into an open shadow root. It
// is found a level at a time, not among every element of the page.
func TestHoverIsUnderThePointer(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Hover</title><input id="before"><label id="l0" for="before" style="display:block;height:40px">Field before</label>
<label id="l" for="name" style="display:block;height:40px">Your name</label><div>`)
	for i := range 300 {
		fmt.Fprintf(&b, `<p>Row %d</p>`, i)
	}
	b.WriteString(`</div><input id="name"><label id="wrap" style="display:block;height:40px">Wrapped <input id="inside"></label><div id="host"></div>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<button id="inner" style="height:40px">In the shadow</button>';</script>`)
	url := serve(t, map[string]string{"/main.html": b.String()})
	ctx, u, p := browserWith(t, url+"/main.html")
	main := u.session(t, u.tabs[0])
	hoverOver := func(el string) []string {
		t.Helper()
		var xy [2]float64
		expr := `(() => { const el = ` + el + `; el.scrollIntoView(); const r = el.getBoundingClientRect(); return JSON.stringify([r.x + 5, r.y + r.height / 2]); })()`
		if err := jsonv2.Unmarshal([]byte(u.eval(t, main, expr)), &xy); err != nil {
			t.Fatal(err)
		}
		if _, err := cdproto.Call(ctx, main, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: xy[0], Y: xy[1]}); err != nil {
			t.Fatal(err)
		}
		waitEval(t, u, main, `String((`+el+`).matches(':hover'))`, "true")
		cur, err := p.Current(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return elementsOf(cur.Root, func(e *mapping.Element) bool { return slices.Contains(e.States, "hovered") })
	}
	for _, c := range []struct{ el, what, want string }{
		{`document.getElementById('l')`, "a label whose field comes after it", "TextField Your name"},
		{`document.getElementById('wrap')`, "a label around its field", "TextField Wrapped"},
		{`document.getElementById('host').shadowRoot.getElementById('inner')`, "a button in a shadow root", "Button In the shadow"},
		{`document.getElementById('l0')`, "a label whose field comes before it", "Document Hover"},
	} {
		if got := hoverOver(c.el); !slices.Equal(got, []string{c.want}) {
			t.Errorf("the pointer over %s: hovered %q, want %q", c.what, got, c.want)
		}
	}
}
