package cdp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// atPage has controls, a link whose text is a child of it, text in a
// paragraph, a same-site and a cross-site iframe (an out-of-process frame:
// 127.0.0.1 and localhost are two sites) with a border and padding.
func atPage(t *testing.T) string {
	inner := `<!doctype html><title>Inner</title><body style="margin:8px">
<button style="width:120px;height:40px">Inner button</button><p><a href="#x">Inner link text</a></p></body>`
	url := serve(t, map[string]string{
		"/inner.html": inner,
	})
	cross := strings.Replace(url, "127.0.0.1", "localhost", 1)
	return serve(t, map[string]string{
		"/at.html": `<!doctype html><title>At</title><body style="margin:10px">
<h1>Heading at the top</h1>
<p>Some text, then <a href="#a">a link in the text</a> and more.</p>
<button style="width:160px;height:50px">Order</button>
<input aria-label="Name" value="Ada" style="width:200px">
<iframe title="Same" src="/inner.html" style="width:300px;height:140px;border:7px solid gray;padding:5px"></iframe>
<iframe title="Cross" src="` + cross + `/inner.html" style="width:300px;height:140px;border:7px solid gray;padding:5px"></iframe>
</body>`,
		"/inner.html": inner,
	}) + "/at.html"
}

// At the centre of every element the page shows, at least 4 by 4 points,
// is that element or one inside it; in both iframes too, the cross-site
// one answered by its own process.
func TestAtEveryElement(t *testing.T) {
	ctx, _, p := browserWith(t, atPage(t))
	var cur *mapping.Current
	if err := waitFor(ctx, func() bool {
		c, err := p.Current(ctx)
		if err != nil {
			return false
		}
		cur = c
		return len(elementsOf(c.Root, func(e *mapping.Element) bool { return e.Title == "Inner link text" && e.Role == "Link" })) == 2
	}); err != nil {
		t.Fatalf("the two iframes' documents were not read: %v", err)
	}
	parent := map[string]string{}
	var all []*mapping.Element
	var visit func(e *mapping.Element)
	visit = func(e *mapping.Element) {
		all = append(all, e)
		for _, c := range e.Children {
			parent[c.ID] = e.ID
			visit(c)
		}
	}
	visit(cur.Root)
	inside := func(id, of string) bool {
		for ; id != ""; id = parent[id] {
			if id == of {
				return true
			}
		}
		return false
	}
	checked := map[string]int{}
	for _, e := range all {
		if e.Role == "Application" || e.Role == "Window" || e.Role == "TabList" || e.Role == "Tab" {
			continue
		}
		loc, err := p.Locate(ctx, e.ID)
		if err != nil || loc.State != mapping.OnScreen || loc.Visible == nil || loc.Visible.Width < 4 || loc.Visible.Height < 4 {
			continue
		}
		v := loc.Visible
		x, y := v.X+v.Width/2, v.Y+v.Height/2
		h, err := p.At(ctx, x, y)
		if err != nil {
			t.Fatalf("at %v,%v (the centre of %s %q): %v", x, y, e.Role, e.Title, err)
		}
		checked[e.Role]++
		if h.Where != mapping.InPage || h.Match.Element == nil || !inside(h.Match.Element.ID, e.ID) {
			got := "nothing"
			if h.Match.Element != nil {
				got = h.Match.Element.Role + " " + h.Match.Element.Title
			}
			t.Errorf("at %v,%v, the centre of %s %q (%s): %s %s, want it or an element inside it", x, y, e.Role, e.Title, e.ID, h.Where, got)
		}
	}
	t.Logf("checked: %v", checked)
	p.mu.Lock()
	sessions := len(p.state.sessions)
	p.mu.Unlock()
	if sessions < 2 {
		t.Errorf("the provider has %d session, want the tab's and the cross-site frame's", sessions)
	}
	for _, role := range []string{"Button", "Link", "TextField", "Heading", "Document"} {
		if checked[role] == 0 {
			t.Errorf("no %s was checked", role)
		}
	}
}

// Off every window, at says so.
func TestAtOffEveryWindow(t *testing.T) {
	ctx, _, p := browserWith(t, atPage(t))
	for _, pt := range [][2]float64{{-50, -50}, {100000, 100000}} {
		h, err := p.At(ctx, pt[0], pt[1])
		if err != nil {
			t.Fatal(err)
		}
		if h.Where != mapping.OffWindows || h.Match.Element != nil {
			t.Errorf("at %v: %s %v, want none", pt, h.Where, h.Match.Element)
		}
	}
	if _, err := p.At(context.Background(), 0, nanOf()); err == nil {
		t.Error("at NaN: no error")
	}
}

func nanOf() float64 { var z float64; return z / z }

// A point on an element the budget cut from the answer names that
// element, with its id, beside the innermost element the answer keeps
// there; it does not pass for the Document, or for no window. A wide
// provider locates every button; a second, on the same browser with a
// budget of 20 elements, is asked what is at each one's centre.
func TestAtNamesWhatTheBudgetCut(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Cut</title><body style="margin:0">`)
	for i := range 60 {
		fmt.Fprintf(&b, `<button style="position:absolute;left:%dpx;top:%dpx;width:70px;height:30px">B%d</button>`, 10+(i%10)*75, 10+(i/10)*40, i)
	}
	url := serve(t, map[string]string{"/": b.String()})
	ctx, wide, _ := launchFor(t, url+"/", Options{RestAfter: -1, WalkFrom: -1})
	tight, err := NewProvider(Options{Connect: wide.opts.Connect, RestAfter: -1, WalkFrom: -1, Budget: mapping.Budget{MaxElements: 20}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tight.Close() })
	cur, err := wide.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	buttons := elemtest.WithRole(cur.Root, "Button")
	if len(buttons) != 60 {
		t.Fatalf("the wide read has %d buttons, want 60", len(buttons))
	}
	var kept, cut int
	for _, e := range buttons {
		loc, err := wide.Locate(ctx, e.ID)
		if err != nil || loc.Visible == nil {
			t.Fatalf("locate %s %q: %v %+v", e.Role, e.Title, err, loc)
		}
		x, y := loc.Visible.X+loc.Visible.Width/2, loc.Visible.Y+loc.Visible.Height/2
		h, err := tight.At(ctx, x, y)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case h.Match.Element != nil && h.Match.Element.Role == "Button" && h.Match.Element.Title == e.Title:
			kept++
			if h.Note != "" {
				t.Errorf("at %q, kept: a note %q", e.Title, h.Note)
			}
		case strings.HasPrefix(h.Note, "the element there, Button "+mapping.Title(e.Title)+" #") && strings.HasSuffix(h.Note, ", was cut from the answer by the budget"):
			cut++
			if h.Where != mapping.InPage {
				t.Errorf("at %q, cut: where %q, want %q", e.Title, h.Where, mapping.InPage)
			}
		default:
			t.Errorf("at the centre of %q: %s %v, note %q: want the button, or a note that the budget cut it", e.Title, h.Where, h.Match.Element, h.Note)
		}
	}
	if kept == 0 || cut == 0 {
		t.Errorf("%d buttons kept and %d cut under a budget of 20 elements: want some of each", kept, cut)
	}
}

// A hit test that fails while the browser is still connected (the page
// went away between the read and the hit test) says so, with the
// innermost element it found before failing, rather than answering as if
// nothing were wrong.
func TestAtSaysTheHitTestFailed(t *testing.T) {
	url := serve(t, map[string]string{"/": `<!doctype html><title>Going</title><p>Soon gone</p>`})
	ctx, p, u := launchFor(t, url+"/", Options{RestAfter: -1, WalkFrom: -1})
	u.openSecondTab(t, url+"/")
	u.front(t, 0)
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	docs := elemtest.WithRole(cur.Root, "Document")
	var loc *mapping.Location
	for _, d := range docs {
		if l, err := p.Locate(ctx, d.ID); err == nil && l.State == mapping.OnScreen && l.Visible != nil {
			loc = l
			break
		}
	}
	if loc == nil {
		t.Fatalf("no Document of %d is on screen", len(docs))
	}
	x, y := loc.Visible.X+loc.Visible.Width/2, loc.Visible.Y+loc.Visible.Height/2

	rctx, c, done, err := p.begin(ctx)
	defer done()
	if err != nil {
		t.Fatal(err)
	}
	cur, seen, err := p.read(rctx, c, readWarm, false)
	if err != nil {
		t.Fatal(err)
	}
	// The person closes the tab the read saw in front.
	if _, err := cdproto.Call(ctx, u.c.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: u.tabs[0]}); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, func() bool {
		r, err := cdproto.Call(ctx, u.c.Browser(), target.GetTargets, target.GetTargetsParams{})
		return err == nil && !slices.ContainsFunc(r.TargetInfos, func(i *target.Info) bool { return i.TargetID == u.tabs[0] })
	}); err != nil {
		t.Fatalf("the tab did not close: %v", err)
	}
	h, err := p.hitOf(rctx, c, cur, seen, x, y)
	if err != nil {
		t.Fatalf("hit with the browser connected: %v", err)
	}
	if h.Where != mapping.InPage || h.Match.Element == nil || h.Match.Element.Role != "Document" ||
		!strings.HasPrefix(h.Note, "the page's hit test failed (") || !strings.HasSuffix(h.Note, "): this is the innermost element found before it failed") {
		t.Errorf("at %v,%v of a page gone: %s %v, note %q: want the Document, and that the hit test failed", x, y, h.Where, h.Match.Element, h.Note)
	}
}
