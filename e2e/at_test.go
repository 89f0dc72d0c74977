package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// ui_at and the at command, through the binary.

// atAnswer is ui_at's structuredContent (and at --json's output).
type atAnswer struct {
	X, Y    float64
	Where   string
	Element *foundMatch
}

// callAt calls ui_at at (x, y) and returns its text and structuredContent.
func callAt(t testing.TB, session *mcp.ClientSession, x, y float64) (string, atAnswer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "ui_at", Arguments: map[string]any{"x": x, "y": y}})
	if err != nil {
		t.Fatalf("ui_at %v,%v: %v", x, y, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("ui_at %v,%v: %s", x, y, dump(res))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	raw, _ := json.Marshal(res.StructuredContent)
	var a atAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("ui_at %v,%v: structuredContent %s: %v", x, y, raw, err)
	}
	if a.X != x || a.Y != y || a.Element != nil && !strings.Contains(text, "#"+a.Element.ID+" ") {
		t.Errorf("ui_at %v,%v: text %q and structuredContent %s disagree", x, y, text, raw)
	}
	return text, a
}

// centre returns the centre of what locate says is visible of id, which
// must be on screen.
func centre(t testing.TB, p *provider, id, what string) (float64, float64) {
	t.Helper()
	l := p.locate(t, id)
	if l.State != mapping.OnScreen || l.Visible == nil {
		t.Fatalf("locate %s: %s, want onscreen", what, l.raw)
	}
	return l.Visible.X + l.Visible.Width/2, l.Visible.Y + l.Visible.Height/2
}

// ui_at on a button, on a link's text, in a same-site and a cross-site
// iframe, off every window; its argument errors; and the located answer
// holds the point.
func TestToolAt(t *testing.T) {
	needEnv(t)
	p := startProvider(t, env.browser.httpURL(), "--tools")
	tb := openTab(t, env.rootCtx, env.pageA+"/frames.html")
	crossURL := env.pageB + "/inner.html?site=cross"
	var root *mapping.Element
	waitFor(t, "the cross-site iframe's document", func() bool {
		root = p.current(t).Root
		return in(crossURL, "Button", "Inner button")(root) != nil
	})

	for _, c := range []struct{ what, url, role, title string }{
		{"the main button", tb.url, "Button", "Main button"},
		{"the heading", tb.url, "Heading", "Frames page"},
		{"the same-site iframe's button", env.pageA + "/inner.html?site=same", "Button", "Inner button"},
		{"the cross-site iframe's button", crossURL, "Button", "Inner button"},
		{"the cross-site iframe's heading", crossURL, "Heading", "Inner heading"},
	} {
		el := must(t, in(c.url, c.role, c.title)(root))
		x, y := centre(t, p, el.ID, c.what)
		text, a := callAt(t, p.session, x, y)
		if a.Where != mapping.InPage || a.Element == nil {
			t.Errorf("ui_at the centre of %s: %q", c.what, text)
			continue
		}
		// The heading's text is an element inside it, or the heading.
		if a.Element.ID != el.ID && !(a.Element.Title == c.title && slices.ContainsFunc(a.Element.In, func(s struct{ Role, Title string }) bool { return s.Role == c.role && s.Title == c.title })) {
			t.Errorf("ui_at the centre of %s (%s): %q", c.what, el.ID, text)
		}
		if l := p.locate(t, a.Element.ID); l.State != mapping.OnScreen || !contains(l.Visible, x, y) {
			t.Errorf("ui_at %v,%v answered %s, which locate puts at %s", x, y, a.Element.ID, l.raw)
		}
	}

	// A link's text: the link, or its text inside it.
	form := openTab(t, env.rootCtx, env.pageA+"/form.html")
	root = p.current(t).Root
	link := must(t, in(form.url, "Link", "Next page")(root))
	x, y := centre(t, p, link.ID, "the link Next page")
	text, a := callAt(t, p.session, x, y)
	inLink := a.Element != nil && slices.ContainsFunc(a.Element.In, func(s struct{ Role, Title string }) bool { return s.Role == "Link" && s.Title == "Next page" })
	if a.Where != mapping.InPage || a.Element == nil || a.Element.ID != link.ID && !inLink {
		t.Errorf("ui_at the link's text: %q, want the link or its text", text)
	}

	// Off every window.
	for _, pt := range [][2]float64{{-20000, -20000}, {1e6, 5}} {
		if text, a := callAt(t, p.session, pt[0], pt[1]); a.Where != mapping.OffWindows || a.Element != nil || !strings.HasSuffix(text, ": no window of the browser is there\n") {
			t.Errorf("ui_at %v: %q, want no window", pt, text)
		}
	}

	// The arguments.
	usage := `ui_at needs the point as {"x": number, "y": number}: screen points, as ui_locate answers (the top-left of the primary screen is 0,0)`
	for _, args := range []any{nil, map[string]any{"x": 1}, map[string]any{"x": "1", "y": 2}, map[string]any{"x": 1, "y": nil}} {
		toolError(t, p.session, "ui_at", args, "invalid-arguments", "", usage)
	}
	toolError(t, p.session, "ui_at", map[string]any{"x": 1, "y": 2, "z": 3}, "invalid-arguments", "", `ui_at takes only {"x": …, "y": …}; unknown argument "z"`)
	p.wantServing(t, "calls of ui_at")
}

// contains reports whether r holds the point.
func contains(r *mapping.Rect, x, y float64) bool {
	return r != nil && x >= r.X && y >= r.Y && x <= r.X+r.Width && y <= r.Y+r.Height
}

// cdpprovider at X Y: the line of the element there, or --json; off
// every window says so; a point that is not one is a usage error.
func TestAtCommand(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	tb := openTab(t, env.rootCtx, env.pageA+"/frames.html")
	el := must(t, in(tb.url, "Button", "Main button")(p.current(t).Root))
	x, y := centre(t, p, el.ID, "the main button")
	connect := []string{"--connect", env.browser.httpURL()}
	pt := []string{fmt.Sprint(x), fmt.Sprint(y)}

	stdout, stderr, code := runBinary(t, nil, append(append([]string{"at"}, pt...), connect...)...)
	if code != 0 || !strings.HasPrefix(stdout, "at "+pt[0]+","+pt[1]+`: Button Main button #`) || !strings.Contains(stdout, ` > Document Frames page`) {
		t.Errorf("at %v: exit status %d, stdout:\n%s\nstderr:\n%s", pt, code, stdout, stderr)
	}
	stdout, stderr, code = runBinary(t, nil, append(append([]string{"at", "--json"}, pt...), connect...)...)
	var a atAnswer
	if err := json.Unmarshal([]byte(stdout), &a); err != nil || code != 0 || a.Where != mapping.InPage || a.Element == nil || a.Element.Title != "Main button" {
		t.Errorf("at --json: exit status %d, %v, stdout:\n%s\nstderr:\n%s", code, err, stdout, stderr)
	}
	stdout, stderr, code = runBinary(t, nil, append([]string{"at", "-20000", "-20000"}, connect...)...)
	if code != 0 || stdout != "at -20000,-20000: no window of the browser is there\n" {
		t.Errorf("at off every window: exit status %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = runBinary(t, nil, append([]string{"at", "left", "top"}, connect...)...)
	if code == 0 || stdout != "" || !strings.Contains(stderr, "at needs the point X Y") {
		t.Errorf("at left top: exit status %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}

// atEveryElement checks, for every element of the page at url (its
// frames' included) that locate puts on screen at least 4 by 4 points,
// that ui_at at the centre of its visible part answers it or an element
// inside it. It returns how many it checked. An inline element that wraps
// onto a second line does not cover its frame's centre: the elements
// titled as wrapped are checked at the top right of their frame instead,
// which is the end of their first line.
func atEveryElement(t *testing.T, p *provider, url string, wrapped ...string) int {
	t.Helper()
	root := p.current(t).Root
	parent := map[string]string{}
	var doc *mapping.Element
	var visit func(e *mapping.Element)
	visit = func(e *mapping.Element) {
		if e.Role == "Document" && e.URL == url && doc == nil {
			doc = e
		}
		for _, c := range e.Children {
			parent[c.ID] = e.ID
			visit(c)
		}
	}
	visit(root)
	if doc == nil {
		t.Fatalf("no Document of %s in current", url)
	}
	inside := func(id, of string) bool {
		for ; id != ""; id = parent[id] {
			if id == of {
				return true
			}
		}
		return false
	}
	checked := 0
	var check func(e *mapping.Element)
	check = func(e *mapping.Element) {
		for _, c := range e.Children {
			check(c)
		}
		l := p.locate(t, e.ID)
		if l.State != mapping.OnScreen || l.Visible == nil || l.Visible.Width < 4 || l.Visible.Height < 4 {
			return
		}
		x, y := l.Visible.X+l.Visible.Width/2, l.Visible.Y+l.Visible.Height/2
		if slices.Contains(wrapped, e.Title) {
			x, y = l.Visible.X+l.Visible.Width-4, l.Visible.Y+4
		}
		text, a := callAt(t, p.session, x, y)
		checked++
		if a.Where != mapping.InPage || a.Element == nil || !inside(a.Element.ID, e.ID) {
			t.Errorf("ui_at %v,%v, the centre of %s %q (%s, visible %+v): %q, want it or an element inside it", x, y, e.Role, e.Title, e.ID, *l.Visible, text)
		}
	}
	check(doc)
	return checked
}

// ui_at on a real screen: a headed Chromium on Xvfb under openbox, its
// window at (120,90) with its tab strip, toolbar and frame. On each of the
// pixel test pages of TestLocateOnScreen, at page zoom 100% and 150%, in
// a cross-site iframe and at device scale 2, every element at least 4 by 4
// points is at its centre (atEveryElement); the tab strip is the window's
// frame; a point left of the window is on no window.
func TestAtOnScreen(t *testing.T) {
	needDisplayTools(t)
	scr := startScreen(t, 1600, 1200)
	h := startHeaded(t, scr, 120, 90, 1000, 700)
	p := startProvider(t, h.httpURL(), "--tools")
	main := &tab{ctx: h.root, id: chromedp.FromContext(h.root).Target.TargetID}
	page := func(name string) string { return env.pageA + "/display/" + name + ".html" }

	for _, name := range []string{"plain", "rotated", "same", "cross", "overflow", "fixed", "wrap"} {
		t.Run(name, func(t *testing.T) {
			h.load(t, main, page(name))
			if name == "same" || name == "cross" {
				origin := map[string]string{"same": env.pageA, "cross": env.pageB}[name]
				waitFor(t, "the iframe's document", func() bool { return in(origin+"/display/box.html", "Image", "Red box")(p.current(t).Root) != nil })
			}
			// The overflow page's box is scrolled out of its container.
			want := map[bool]int{true: 1, false: 2}[name == "overflow"]
			if n := atEveryElement(t, p, page(name), "link wraps here"); n < want {
				t.Errorf("%d elements checked, want %d at least", n, want)
			}
		})
	}
	t.Run("page zoom 150% with a cross-site iframe", func(t *testing.T) {
		h.load(t, main, page("cross"))
		waitFor(t, "the iframe's document", func() bool { return in(env.pageB+"/display/box.html", "Image", "Red box")(p.current(t).Root) != nil })
		h.zoomBy(t, main, "Display cross-site frame", 3)
		defer h.resetZoom(t, main, "Display cross-site frame")
		if n := atEveryElement(t, p, page("cross")); n < 3 {
			t.Errorf("%d elements checked, want the Documents and the box", n)
		}
	})
	t.Run("the window's frame, and no window", func(t *testing.T) {
		h.load(t, main, page("plain"))
		win := elemtest.WindowWithTab(t, p.current(t).Root, page("plain"))
		l := p.locate(t, win.ID)
		doc := p.locate(t, elemtest.DocOf(win).ID)
		if l.Frame == nil || doc.Frame == nil || doc.Frame.Y-l.Frame.Y < 20 {
			t.Fatalf("the window %s and its page %s: want a tab strip and toolbar above the page", l.raw, doc.raw)
		}
		// Halfway between the window's top and its page's: the toolbar.
		x, y := l.Frame.X+l.Frame.Width/2, (l.Frame.Y+doc.Frame.Y)/2
		if text, a := callAt(t, p.session, x, y); a.Where != mapping.InWindowFrame || a.Element == nil || a.Element.ID != win.ID {
			t.Errorf("ui_at %v,%v, above the page: %q, want the frame of %s", x, y, text, win.ID)
		}
		if text, a := callAt(t, p.session, l.Frame.X-30, l.Frame.Y+50); a.Where != mapping.OffWindows {
			t.Errorf("ui_at left of the window: %q, want no window", text)
		}
	})
	t.Run("device scale factor 2", func(t *testing.T) {
		h.stop()
		h2 := startHeaded(t, scr, 150, 100, 500, 450, "--force-device-scale-factor=2")
		p2 := startProvider(t, h2.httpURL(), "--tools")
		main2 := &tab{ctx: h2.root, id: chromedp.FromContext(h2.root).Target.TargetID}
		h2.load(t, main2, page("cross"))
		waitFor(t, "the iframe's document", func() bool { return in(env.pageB+"/display/box.html", "Image", "Red box")(p2.current(t).Root) != nil })
		if n := atEveryElement(t, p2, page("cross")); n < 3 {
			t.Errorf("%d elements checked, want the Documents and the box", n)
		}
	})
}
