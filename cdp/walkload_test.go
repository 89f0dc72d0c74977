package cdp

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
)

// A page that loads again in a tab a host has read is walked at once in
// the background, with no read asking, and so is its iframe (of which
// Chrome sends no loadComplete), and read in the background once its
// fetch is in: the first read after the load is answered from the kept
// trees, not with getFullAXTree, and with what the background read
// mapped, not mapped again.
func TestWalkAfterLoad(t *testing.T) {
	path := testChrome(t)
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Walked</title><main>`)
	for i := range 60 {
		fmt.Fprintf(&b, `<section><h2>Part %d</h2><p>Text <a href="#%d">link %d</a></p><button>Button %d</button></section>`, i, i, i, i)
	}
	b.WriteString(`<iframe src="/frame" title="Inner" width="400" height="200"></iframe></main><script>window.__reloaded = false</script>`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/frame" {
			fmt.Fprint(w, `<!doctype html><title>Inner</title><p>Inside <button>Inner button</button></p>`)
			return
		}
		fmt.Fprint(w, b.String())
	}))
	defer srv.Close()

	ctx, p, u := walkedOnLaunch(t, path, srv.URL)
	ahead, _ := p.readsAhead()

	// The person loads the page again; the provider is not asked.
	frame, loader := u.reload(t, 0)
	s := u.session(t, u.tabs[0])
	tree, err := cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.FrameTree.ChildFrames) != 1 {
		t.Fatalf("the page has %d iframes, want 1", len(tree.FrameTree.ChildFrames))
	}
	inner := tree.FrameTree.ChildFrames[0].Frame
	p.mu.Lock()
	a := p.state.sessions[u.tabs[0]].ax.Load()
	p.mu.Unlock()
	if a == nil {
		t.Fatal("the tab has no warm trees after a read")
	}
	// The walks are the provider's own work in the background: only its
	// state tells when they are done.
	if err := waitFor(ctx, func() bool { return a.WalkedDocument(frame) == loader }); err != nil {
		t.Fatalf("the new document was not walked without a read: %v", err)
	}
	if err := waitFor(ctx, func() bool { return a.WalkedDocument(inner.ID) == inner.LoaderID }); err != nil {
		t.Fatalf("the new document's iframe was not walked without a read: %v", err)
	}

	readKeptAfterLoad(t, ctx, p, ahead, "Button 59", "Inner button")
}

// walkedOnLaunch launches a browser showing url, reads it with a new
// provider until its documents are walked, and returns them with a user
// of the browser, all closed when the test ends. What the warm trees did
// is logged if the test fails.
func walkedOnLaunch(t *testing.T, path, url string, args ...string) (context.Context, *Provider, *user) {
	t.Helper()
	ctx, p, u := launchFor(t, url, Options{WalkFrom: -1, RestAfter: -1}, args...)
	waitWalked(t, ctx, p)
	return ctx, p, u
}

// An out-of-process iframe is a target of its own, and a new one each
// time its page loads: the page's reload makes a new target that no read
// has attached to. The provider reads in the background when one appears,
// so the first read after the load is answered from the kept trees, the
// iframe's included.
func TestWalkAfterLoadOfAnOutOfProcessIframe(t *testing.T) {
	path := testChrome(t)
	mux := http.NewServeMux()
	var other string
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString(`<!doctype html><title>Outer</title><main>`)
		for i := range 30 {
			fmt.Fprintf(&b, `<section><h2>Part %d</h2><p>Text <a href="#%d">link %d</a></p></section>`, i, i, i)
		}
		fmt.Fprintf(&b, `<iframe src="%s/frame" title="Cross" width="400" height="200"></iframe></main><script>window.__reloaded = false</script>`, other)
		fmt.Fprint(w, b.String())
	})
	mux.HandleFunc("/frame", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Cross</title><p>Across sites <button>Cross button</button></p>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	// The iframe is reached as localhost: another site, so out of process.
	other = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

	ctx, p, u := walkedOnLaunch(t, path, srv.URL, "--site-per-process")
	ahead, _ := p.readsAhead()
	iframes := func() map[target.ID]bool {
		infos, err := cdproto.Call(ctx, u.c.Browser(), target.GetTargets, target.GetTargetsParams{})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[target.ID]bool{}
		for _, ti := range infos.TargetInfos {
			if ti.Type == "iframe" {
				ids[ti.TargetID] = true
			}
		}
		return ids
	}
	old := iframes()
	if len(old) != 1 {
		t.Fatalf("%d out-of-process iframes, want 1", len(old))
	}

	// The person loads the page again; the provider is not asked.
	s := u.session(t, u.tabs[0])
	u.eval(t, s, `window.__reloaded = true; location.reload(); ''`)
	u.waitNewDocument(t, s)
	u.waitLoaded(t, 0)
	var inner target.ID
	if err := waitFor(ctx, func() bool {
		for id := range iframes() {
			if !old[id] {
				inner = id
			}
		}
		return inner != ""
	}); err != nil {
		t.Fatalf("the reload made no new iframe target: %v", err)
	}
	tree, err := cdproto.Call(ctx, u.session(t, inner), page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	frame, loader := tree.FrameTree.Frame.ID, tree.FrameTree.Frame.LoaderID
	walked := func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.state == nil || p.state.sessions[inner] == nil {
			return false
		}
		a := p.state.sessions[inner].ax.Load()
		return a != nil && a.WalkedDocument(frame) == loader
	}
	// The provider's own read and walk in the background: only its state
	// tells when they are done.
	if err := waitFor(ctx, walked); err != nil {
		done, _ := p.readsAhead()
		p.mu.Lock()
		state := "no session"
		if s := p.state.sessions[inner]; s != nil {
			state = "no trees"
			if a := s.ax.Load(); a != nil {
				state = fmt.Sprintf("walked %q (want %q), walking %v, asked %v", a.WalkedDocument(frame), loader, a.Walking(), a.WalkAsked(frame))
			}
		}
		var have []target.ID
		for id := range p.state.sessions {
			have = append(have, id)
		}
		p.mu.Unlock()
		t.Fatalf("the new iframe target %s was not read and walked without a read (%d background reads; its session: %s; sessions %v; iframes now %v, before %v): %v", inner, done, state, have, iframes(), old, err)
	}
	top, err := cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	// The same for the page's walk.
	if err := waitFor(ctx, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		s := p.state.sessions[u.tabs[0]]
		if s == nil {
			return false
		}
		a := s.ax.Load()
		return a != nil && a.WalkedDocument(top.FrameTree.Frame.ID) == top.FrameTree.Frame.LoaderID
	}); err != nil {
		t.Fatalf("the new document was not walked without a read: %v", err)
	}

	readKeptAfterLoad(t, ctx, p, ahead, "Part 29", "Cross button")
}

// readKeptAfterLoad waits for the background reads after the load (more
// than ahead were made before it, none is under way), then reads once and
// checks that the read was answered from the kept trees alone, of a page
// and its one iframe, with the page's Document element a background read
// mapped, and that it shows the page's text and its iframe's.
func readKeptAfterLoad(t *testing.T, ctx context.Context, p *Provider, ahead int64, pageText, iframeText string) {
	t.Helper()
	// Reads in the background: only the provider's state tells when they end.
	if err := waitFor(ctx, func() bool { done, running := p.readsAhead(); return done > ahead && !running }); err != nil {
		t.Fatalf("no read in the background after the load: %v", err)
	}
	waitQuiet(t, ctx, p)
	before, reused := p.Answers(), p.Reused()
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Answers().Minus(before)
	if got.Kept() != 2 || got.All() != 2 {
		t.Errorf("the first read after the load: %v, want the kept trees alone, of the page and its iframe", got)
	}
	if n := p.Reused() - reused; n != 1 {
		t.Errorf("the first read after the load took %d documents as mapped before, want the page's (mapped by the read in the background)", n)
	}
	if outline := fmt.Sprint(outlineOf(cur.Root)); !strings.Contains(outline, pageText) || !strings.Contains(outline, iframeText) {
		t.Errorf("the read does not show the page and its iframe: %v", outline)
	}
}

// waitQuiet waits until no document the provider has a session for has
// changed for warm.Settle, as the provider's own watchers tell: a read
// then is one long after the last change, which the kept trees answer
// whatever Chrome's throttle held back. A page can change once more after
// its read in the background (the watchers once counted a mutation
// there after the fetch); a read within Settle of that is rightly read
// whole when that is quicker than waiting for Chrome's events, and these
// tests are not about that read.
func waitQuiet(t *testing.T, ctx context.Context, p *Provider) {
	t.Helper()
	quiet := func() bool {
		p.mu.Lock()
		var sessions []*session
		if p.state != nil {
			for _, s := range p.state.sessions {
				sessions = append(sessions, s)
			}
		}
		p.mu.Unlock()
		for _, s := range sessions {
			tree, err := cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
			if err != nil {
				continue // not a page's session, or gone
			}
			frames := []*page.FrameTree{tree.FrameTree}
			for len(frames) > 0 {
				f := frames[0]
				frames = append(frames[1:], f.ChildFrames...)
				// A frame of another process is not answered here, but
				// by its own session.
				if ps := readPageState(ctx, s, f.Frame.ID); ps.ok && ps.quiet < warm.Settle {
					return false
				}
			}
		}
		return true
	}
	if err := waitFor(ctx, quiet); err != nil {
		t.Fatalf("the pages did not stay unchanged for %v: %v", warm.Settle, err)
	}
}

// waitFor polls cond until it holds, for at most two minutes. The tests
// poll the browser through their own sessions with it, and the provider's
// state only for its work in the background; a read of the provider is
// made once, after the state it must show is reached.
func waitFor(ctx context.Context, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// A tab the person opens after a host has read is read in the background
// at once, and walked, with no read asking: the host's next read answers
// it from the kept tree, not with getFullAXTree. And a page a read found
// shown that its watchers then tell is hidden (a tab switch, a window
// minimised) starts a background read too.
func TestReadInTheBackgroundWhenATabIsOpenedOrHidden(t *testing.T) {
	path := testChrome(t)
	doc := func(title string) string {
		var b strings.Builder
		fmt.Fprintf(&b, `<!doctype html><title>%s</title><main>`, title)
		for i := range 40 {
			fmt.Fprintf(&b, `<section><h2>%s part %d</h2><p>Text <a href="#%d">link %d</a></p><button>%s button %d</button></section>`, title, i, i, i, title, i)
		}
		b.WriteString(`</main>`)
		return b.String()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, doc(strings.TrimPrefix(r.URL.Path, "/")))
	}))
	defer srv.Close()

	ctx, p, u := walkedOnLaunch(t, path, srv.URL+"/First")
	done0, _ := p.readsAhead()

	// The person opens a tab, in a window of its own (the first tab stays
	// shown, its watchers have nothing to tell); the provider is not asked.
	r, err := cdproto.Call(ctx, u.c.Browser(), target.CreateTarget, target.CreateTargetParams{URL: srv.URL + "/Second", NewWindow: ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	u.tabs = append(u.tabs, r.TargetID)
	u.waitLoaded(t, 1)
	tree, err := cdproto.Call(ctx, u.session(t, u.tabs[1]), page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	frame, loader := tree.FrameTree.Frame.ID, tree.FrameTree.Frame.LoaderID
	walked := func() bool {
		if done, running := p.readsAhead(); done == done0 || running {
			return false
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.state == nil || p.state.sessions[u.tabs[1]] == nil {
			return false
		}
		a := p.state.sessions[u.tabs[1]].ax.Load()
		return a != nil && a.WalkedDocument(frame) == loader
	}
	// The provider's own read and walk in the background: only its state
	// tells when they are done.
	if err := waitFor(ctx, walked); err != nil {
		done, _ := p.readsAhead()
		t.Fatalf("the new tab was not read and walked without a read (%d background reads): %v", done-done0, err)
	}
	waitQuiet(t, ctx, p)
	before := p.Answers()
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Answers().Minus(before)
	if got.Kept() != got.All() || got.All() == 0 {
		t.Errorf("the first read after the tab opened: %v, want the kept trees alone", got)
	}
	if !strings.Contains(fmt.Sprint(outlineOf(cur.Root)), "Second button 39") {
		t.Errorf("the read does not show the new tab: %v", outlineOf(cur.Root))
	}

	// The first tab's window is minimised: its page is hidden, and its
	// watchers say so.
	done1, _ := p.readsAhead()
	u.minimize(t, 0)
	// The read the watchers' signal starts, in the background: only the
	// provider's state tells when it has begun.
	if err := waitFor(ctx, func() bool { done, _ := p.readsAhead(); return done > done1 }); err != nil {
		t.Fatalf("no background read after the page was hidden: %v", err)
	}
}

// Close waits for a read in the background under way: nothing of the
// provider runs once it is closed.
func TestCloseWaitsForTheReadAhead(t *testing.T) {
	path := testChrome(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Closing</title><p>Some text <button>A button</button></p>`)
	}))
	defer srv.Close()
	_, p, _ := walkedOnLaunch(t, path, srv.URL)
	done, _ := p.readsAhead()
	p.readAhead()
	if _, running := p.readsAhead(); !running {
		t.Fatal("no read in the background after readAhead")
	}
	p.Close()
	if _, running := p.readsAhead(); running {
		t.Error("a read in the background still runs after Close")
	}
	p.readAhead()
	if now, running := p.readsAhead(); running || now != done+1 {
		t.Errorf("after Close, readAhead started a read (running %v, %d made since, want 1)", running, now-done)
	}
}

// A read in the background that finds a shown tab's document still
// loading (here its load held by an image the server does not send)
// leaves it to its load: it asks Chrome for none of its accessibility
// tree and keeps nothing (counted: leftToLoad), whether the tab is the
// one the last read read or one shown in its place since; the read the
// load starts reads it, and the host's first read after the load is
// answered with what that read mapped.
func TestABackgroundReadLeavesALoadingDocumentToItsLoad(t *testing.T) {
	path := testChrome(t)
	// /slow/N is a page whose load waits for its image, /held/N, until
	// free(N).
	held := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	var freed [2]sync.Once
	free := func(n int) { freed[n].Do(func() { close(held[n]) }) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]; {
		case strings.HasPrefix(r.URL.Path, "/held/"):
			select {
			case <-held[map[string]int{"0": 0, "1": 1}[n]]:
			case <-r.Context().Done():
			}
			http.NotFound(w, r)
		case strings.HasPrefix(r.URL.Path, "/slow/"):
			fmt.Fprintf(w, `%s<img src="/held/%s" alt="Held">`, sectionsPage("Slow", 40), n)
		default:
			fmt.Fprint(w, sectionsPage("First", 20))
		}
	}))
	defer srv.Close()
	defer free(1) // before srv.Close, which waits for the images' handlers
	defer free(0)

	ctx, p, u := walkedOnLaunch(t, path, srv.URL+"/")
	p.mu.Lock()
	conn := p.conn
	p.mu.Unlock()
	treeCalls := func() map[string]uint64 {
		calls := conn.Traffic().Calls
		n := map[string]uint64{}
		// (Not getPartialAXTree: a read sends one, its barrier, to the
		// tab it read last, shown or not: readTabs.)
		for _, m := range []string{"Accessibility.getFullAXTree", "Accessibility.getRootAXNode", "Accessibility.getChildAXNodes", "Accessibility.queryAXTree"} {
			n[m] = calls[m]
		}
		return n
	}
	// loadHeld has tab i go to /slow/i and waits until the provider's
	// session knows its document loads.
	loadHeld := func(i int) {
		t.Helper()
		s := u.session(t, u.tabs[i])
		u.eval(t, s, `window.__reloaded = true; ''`)
		if _, err := cdproto.Call(ctx, s, page.Navigate, page.NavigateParams{URL: fmt.Sprintf("%s/slow/%d", srv.URL, i)}); err != nil {
			t.Fatal(err)
		}
		u.waitNewDocument(t, s)
		if err := waitFor(ctx, func() bool { return u.eval(t, s, `document.readyState`) == "interactive" }); err != nil {
			t.Fatalf("tab %d's page was not parsed: %v", i, err)
		}
		ps := sessionOf(t, p, u.tabs[i])
		if err := waitFor(ctx, ps.DocumentLoading); err != nil {
			t.Fatalf("the provider's session of tab %d does not know its document loads: %v", i, err)
		}
	}
	sent := func() (n uint64) {
		for _, c := range conn.Traffic().Calls {
			n += c
		}
		return n
	}
	// leftAlone runs a read in the background and fails unless it left
	// the loading document to its load, asking nothing of its tree (and,
	// with nothing, asking the pages nothing at all).
	leftAlone := func(what string, nothing bool) {
		t.Helper()
		done0, _ := p.readsAhead()
		left, calls, answers, before := p.leftToLoad.Load(), treeCalls(), p.Answers(), sent()
		p.readAhead()
		if err := waitFor(ctx, func() bool { done, running := p.readsAhead(); return done > done0 && !running }); err != nil {
			t.Fatalf("%s: the read in the background did not end: %v", what, err)
		}
		if p.leftToLoad.Load() == left {
			t.Errorf("%s: the read in the background did not leave the loading document to its load", what)
		}
		if now := treeCalls(); !maps.Equal(now, calls) {
			t.Errorf("%s: the read in the background asked for the loading document's accessibility tree: calls %v, before it %v", what, now, calls)
		}
		if got := p.Answers().Minus(answers); got.All() != 0 {
			t.Errorf("%s: the warm trees answered the read in the background: %v, want nothing", what, got)
		}
		if n := sent() - before; nothing && n != 0 {
			t.Errorf("%s: the read in the background sent the pages %d calls, want none", what, n)
		}
	}

	// The person goes to a page whose load is held: it is parsed, its
	// load does not come.
	loadHeld(0)
	leftAlone("the tab read last", true)

	// Its load comes: the read it starts reads it, for the host's next read.
	done1, _ := p.readsAhead()
	free(0)
	u.waitLoaded(t, 0)
	if err := waitFor(ctx, func() bool { done, running := p.readsAhead(); return done > done1 && !running }); err != nil {
		t.Fatalf("no read in the background after the load: %v", err)
	}
	waitQuiet(t, ctx, p)
	reused := p.Reused()
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Reused() - reused; n != 1 {
		t.Errorf("the first read after the load took %d documents as mapped before, want the page's (mapped by the read the load started)", n)
	}
	if outline := fmt.Sprint(outlineOf(cur.Root)); !strings.Contains(outline, "Button 39") {
		t.Errorf("the read does not show the loaded page: %v", outline)
	}

	// A second tab, read once, goes in the background to a page whose
	// load is held, and the person switches to it as it loads.
	u.openSecondTab(t, srv.URL+"/")
	u.front(t, 0)
	waitWalked(t, ctx, p) // reads, tab 0 shown, until no walk runs: its calls are not counted below
	loadHeld(1)
	u.front(t, 1)
	leftAlone("a tab shown in the place of the one read last", false)
}

// Chrome's loadComplete of a tab's page ends its events for every node of
// the tab's documents a client fetched before it, the iframes' too. A
// same-site iframe walked while its page still loaded (a host read then)
// is walked again after the load: a change in it later shows in the
// read, answered from the kept tree. Before, its tree stayed kept,
// followed by nothing, and the read after the change, made once Chrome's
// events should have come, answered the iframe as it was.
func TestAnIframeWalkedWhileItsPageLoadsIsFollowedAfterItsLoad(t *testing.T) {
	path := testChrome(t)
	// /top is a page whose load waits for its image, /held, until free;
	// its iframe, /inner, loads at once.
	held := make(chan struct{})
	var freed sync.Once
	free := func() { freed.Do(func() { close(held) }) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/held":
			select {
			case <-held:
			case <-r.Context().Done():
			}
			http.NotFound(w, r)
		case "/top":
			fmt.Fprint(w, `<!doctype html><title>Top</title><h1>Top</h1><iframe src="/inner"></iframe><img src="/held" alt="Held"><script>window.__reloaded = false</script>`)
		case "/inner":
			fmt.Fprint(w, `<!doctype html><title>Inner</title><ul><li>First item</li></ul><button>Inner button</button>`)
		default:
			fmt.Fprint(w, sectionsPage("First", 5))
		}
	}))
	defer srv.Close()
	defer free() // before srv.Close, which waits for the image's handler

	ctx, p, u := walkedOnLaunch(t, path, srv.URL+"/")
	s := u.session(t, u.tabs[0])
	u.eval(t, s, `window.__reloaded = true; ''`)
	if _, err := cdproto.Call(ctx, s, page.Navigate, page.NavigateParams{URL: srv.URL + "/top"}); err != nil {
		t.Fatal(err)
	}
	u.waitNewDocument(t, s)
	inner := `document.querySelector('iframe').contentDocument`
	if err := waitFor(ctx, func() bool {
		return u.eval(t, s, `document.readyState + ' ' + `+inner+`.readyState + ' ' + `+inner+`.location.pathname`) == "interactive complete /inner"
	}); err != nil {
		t.Fatalf("the iframe did not load while its page waited for its image: %v", err)
	}
	ps := sessionOf(t, p, u.tabs[0])
	tree, err := cdproto.Call(ctx, ps, page.GetFrameTree, cdproto.Empty{})
	if err != nil || len(tree.FrameTree.ChildFrames) != 1 {
		t.Fatalf("the page's frames: %v, %v", tree, err)
	}
	iframe := tree.FrameTree.ChildFrames[0].Frame.ID

	// The host reads while the page loads: the iframe is walked.
	waitWalked(t, ctx, p)
	a := ps.ax.Load()
	if a == nil || !a.Walked(iframe) {
		t.Fatal("the iframe was not walked while its page loaded")
	}

	// The page loads; the read its load starts ends.
	done, _ := p.readsAhead()
	free()
	u.waitLoaded(t, 0)
	if err := waitFor(ctx, func() bool { n, running := p.readsAhead(); return n > done && !running }); err != nil {
		t.Fatalf("no read in the background after the load: %v", err)
	}
	waitWalked(t, ctx, p)

	// The iframe changes; the host reads once Chrome's events for the
	// change have had their time.
	u.eval(t, s, inner+`.querySelector('ul').insertAdjacentHTML('beforeend', '<li>Added after the load</li>'); ''`)
	waitQuiet(t, ctx, p)
	answers := p.Answers()
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if outline := strings.Join(outlineOf(cur.Root), "\n"); !strings.Contains(outline, "Added after the load") {
		t.Errorf("the read after the iframe changed does not show the change:\n%s", outline)
	}
	if got := p.Answers().Minus(answers); got.Changed+got.Waited != 1 || got.Whole != 0 {
		t.Errorf("the read after the change: %v; want the iframe from its kept tree, right after a change", got)
	}
}
