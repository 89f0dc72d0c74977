package cdp

import (
	"context"
	"slices"
	"strings"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpprovider/cdpprovider/cdp/wire"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// A read asks the page for its focus chain only when an element has focus
// and it is not the one of the last read, and for its hover chain only
// when elements are hovered and they are not those of the last read: the
// page state script finds the chains, and compares them with those kept
// at the last read, element by element. A focus move reads the
// focus chain alone; a pointer move the hover chain alone; a read with
// neither reads no chain (counted at the transport: each chain read
// releases its object group). A change that no focus event tells (the
// focused element removed) is read all the same, and every answer is
// right.
func TestChainsAreReadOnlyWhenTheyChanged(t *testing.T) {
	url := serve(t, map[string]string{"/": `<!doctype html><title>Chains</title>
<p><a href="#one" id="one">One</a> <a href="#two" id="two">Two</a></p>
<p><button id="a" style="width:200px;height:80px">Box A</button></p><p><button id="b" style="width:200px;height:80px">Box B</button></p>`})
	ctx, p, u := launchFor(t, url+"/", Options{RestAfter: -1, WalkFrom: -1})
	us := u.session(t, u.tabs[0])
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	conn := p.conn
	p.mu.Unlock()
	if n := conn.Traffic().Calls["Runtime.releaseObjectGroup"]; n != 0 {
		t.Errorf("the first read, nothing focused or hovered, read %d chains, want none", n)
	}
	// states are the deepest elements in a state (the focused element's
	// ancestors are focused too).
	states := func(cur *mapping.Current, state string) []string {
		in := elementsOf(cur.Root, func(e *mapping.Element) bool { return slices.Contains(e.States, state) })
		if len(in) > 0 && strings.HasPrefix(in[len(in)-1], "Document ") {
			return nil
		}
		return in[max(len(in)-1, 0):]
	}
	// read reads, and returns the answer with how many chains it read and
	// how many scripts it ran.
	read := func(what string) (*mapping.Current, uint64, uint64) {
		t.Helper()
		before := conn.Traffic()
		cur, err := p.Current(ctx)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		after := conn.Traffic()
		return cur, after.Calls["Runtime.releaseObjectGroup"] - before.Calls["Runtime.releaseObjectGroup"],
			after.Calls["Runtime.evaluate"] - before.Calls["Runtime.evaluate"]
	}
	if _, chains, scripts := read("unchanged"); chains != 0 || scripts != 1 {
		t.Errorf("a read of an unchanged page read %d chains and ran %d scripts, want none but the page state", chains, scripts)
	}

	// The person presses Tab: the focus moves, the pointer does not.
	pressTab(t, ctx, us)
	waitEval(t, u, us, `document.activeElement.id`, "one")
	cur, chains, _ := read("after Tab")
	if chains != 1 {
		t.Errorf("the read after a focus move read %d chains, want the focus chain alone", chains)
	}
	if got := states(cur, "focused"); !slices.Equal(got, []string{"Link One"}) {
		t.Errorf("focused after Tab: %q, want the first link", got)
	}

	// The pointer moves over box B: the hover chain alone is read.
	moveOver(t, ctx, u, us, "b")
	cur, chains, _ = read("after the pointer moved")
	if chains != 1 {
		t.Errorf("the read after a pointer move read %d chains, want the hover chain alone", chains)
	}
	if got := states(cur, "hovered"); len(got) != 1 || !strings.Contains(got[0], "Box B") {
		t.Errorf("hovered: %q, want box B", got)
	}
	if got := states(cur, "focused"); !slices.Equal(got, []string{"Link One"}) {
		t.Errorf("focused after the pointer moved: %q, want the first link still", got)
	}

	// The focused link is removed: no focus event tells, the chain differs.
	u.eval(t, us, `document.getElementById('one').remove(); ''`)
	waitEval(t, u, us, `document.activeElement === document.body ? 'body' : 'element'`, "body")
	cur, _, _ = read("after the focused element went")
	if got := states(cur, "focused"); len(got) != 0 {
		t.Errorf("focused after the focused link was removed: %q, want none", got)
	}
	if got := states(cur, "hovered"); len(got) != 1 || !strings.Contains(got[0], "Box B") {
		t.Errorf("hovered after the focused link was removed: %q, want box B still", got)
	}
	warmIsCold(t, ctx, p, "the chains taken again", false)
}

// waitEval waits until expr, evaluated in the page, gives want.
func waitEval(t *testing.T, u *user, s *wire.Session, expr, want string) {
	t.Helper()
	if err := waitFor(u.ctx, func() bool { return u.eval(t, s, expr) == want }); err != nil {
		t.Fatalf("%s did not become %q: %v", expr, want, err)
	}
}

// moveOver moves the pointer to the middle of the element of that id, and
// waits until it is hovered.
func moveOver(t *testing.T, ctx context.Context, u *user, s *wire.Session, id string) {
	t.Helper()
	var xy [2]float64
	if err := jsonv2.Unmarshal([]byte(u.eval(t, s, `(() => { const r = document.getElementById('`+id+`').getBoundingClientRect(); return JSON.stringify([r.x + r.width / 2, r.y + r.height / 2]); })()`)), &xy); err != nil {
		t.Fatal(err)
	}
	if _, err := cdproto.Call(ctx, s, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: xy[0], Y: xy[1]}); err != nil {
		t.Fatal(err)
	}
	waitEval(t, u, s, `document.getElementById('`+id+`').matches(':hover') ? 'yes' : 'no'`, "yes")
}

// A small document whose frame's document before was read after changes
// rereadsToWalk times is walked at its load, with no read asking and no
// getFullAXTree first: the host that read the one reads the next as it
// changes too, and a read meanwhile waits for the walk. One whose
// document before was not read after a change is not walked.
func TestSmallDocumentWalkedAtLoadWhenReadsFollowedTheOneBefore(t *testing.T) {
	url := serve(t, map[string]string{"/a": sectionsPage("A", 10), "/b": sectionsPage("B", 10), "/c": sectionsPage("C", 10)})
	ctx, p, u := launchFor(t, url+"/a", Options{RestAfter: -1})
	if _, err := p.Current(ctx); err != nil {
		t.Fatal(err)
	}
	a := sessionOf(t, p, u.tabs[0]).ax.Load()
	frame := cdproto.FrameID(u.tabs[0])
	us := u.session(t, u.tabs[0])
	for i := range 2 {
		u.eval(t, us, `document.querySelector('h2').textContent = 'A, changed `+string(rune('0'+i))+`'; ''`)
		if _, err := p.Current(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := waitFor(ctx, func() bool { return a.WalkedDocument(frame) != "" }); err != nil {
		t.Fatalf("the small document read twice after changes was not walked: %v", err)
	}
	loaderOf := func() cdproto.LoaderID {
		tree, err := cdproto.Call(ctx, us, page.GetFrameTree, cdproto.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		return tree.FrameTree.Frame.LoaderID
	}
	navigate := func(path string) cdproto.LoaderID {
		u.eval(t, us, `window.__reloaded = true; location.href = '`+path+`'; ''`)
		u.waitNewDocument(t, us)
		u.waitLoaded(t, 0)
		return loaderOf()
	}

	// The person goes to /b: walked at its load, no read asking, and not
	// read whole first: a host's read as the walk goes waits for it.
	p.mu.Lock()
	conn := p.conn
	p.mu.Unlock()
	fulls := conn.Traffic().Calls["Accessibility.getFullAXTree"]
	loader := navigate("/b")
	if err := waitFor(ctx, func() bool { return a.WalkAsked(frame) || a.WalkedDocument(frame) == loader }); err != nil {
		t.Fatalf("the small document after one read as it changed was not walked at its load: %v", err)
	}
	answers := p.Answers()
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Answers().Minus(answers); got.Kept() != 1 || got.All() != 1 {
		t.Errorf("the read as the walk at the load went: %v, want it answered from the walked tree", got)
	}
	if outline := strings.Join(outlineOf(cur.Root), "\n"); !strings.Contains(outline, "Part 9") || !strings.Contains(outline, `"B"`) {
		t.Errorf("the read after the load does not show /b:\n%s", outline)
	}
	if err := waitFor(ctx, func() bool { return a.WalkedDocument(frame) == loader }); err != nil {
		t.Fatalf("the small document after one read as it changed was not walked at its load: %v", err)
	}
	if n := conn.Traffic().Calls["Accessibility.getFullAXTree"] - fulls; n != 0 {
		t.Errorf("the small document walked at its load was read whole %d times", n)
	}
	// Then to /c: /b was not read after a change, so /c is not walked:
	// fetched at its load, its walk declined as small. (A read ahead may
	// ask for a walk meanwhile, which is declined the same way: what
	// counts is that none began at the load, nor after.)
	small, atLoad := p.answers.Small.Load(), p.answers.AtLoad.Load()
	loader = navigate("/c")
	if err := waitFor(ctx, func() bool { return p.answers.Small.Load() > small }); err != nil {
		t.Fatalf("the load of /c was not fetched: %v", err)
	}
	if a.WalkedDocument(frame) == loader || a.Walking() || p.answers.AtLoad.Load() != atLoad {
		t.Error("the small document after one not read as it changed was walked at its load")
	}
}
