package e2e

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// locate matches the screen, pixel for pixel (docs/protocol.md §6,
// docs/locations.md). A headed Chromium on Xvfb under openbox, its window
// at (120,90) with its real tab strip, toolbar and frame; for each case
// the test asks the provider, over MCP as a host does, where a solid red
// box is, captures the X screen and requires each edge of frame (and
// visible) within 1 point of the red pixels. The worst edge error over all cases is logged.
func TestLocateOnScreen(t *testing.T) {
	needDisplayTools(t)
	scr := startScreen(t, 1600, 1200)
	h := startHeaded(t, scr, 120, 90, 1000, 700)
	p := startProvider(t, h.httpURL())
	main := &tab{ctx: h.root, id: chromedp.FromContext(h.root).Target.TargetID}
	page := func(name string) string { return env.pageA + "/display/" + name + ".html" }
	var worst worstEdge
	defer func() { t.Logf("worst edge error over all cases: %.2f points (%s)", worst.err, worst.name) }()

	// box locates the red element of the Document at url and compares it
	// with the red pixels. want gives frame and visible from the red
	// pixels' bounds (nil: both are the red pixels).
	box := func(t *testing.T, url, role, title string, scale float64, want func(red rect) (frame, visible rect)) {
		t.Helper()
		el := must(t, in(url, role, title)(p.current(t).Root))
		l := p.locate(t, el.ID)
		if l.State != mapping.OnScreen || l.Frame == nil || l.Visible == nil {
			t.Fatalf("locate %s %q: %s, want onscreen with frame and visible", role, title, l.raw)
		}
		red := scr.redOnScreen(t, scale)
		wantFrame, wantVisible := red, red
		if want != nil {
			wantFrame, wantVisible = want(red)
		}
		frame, visible := fromMapping(l.Frame), fromMapping(l.Visible)
		ef, ev := edgeError(frame, wantFrame), edgeError(visible, wantVisible)
		worst.note(t.Name(), max(ef, ev))
		t.Logf("frame %v, visible %v; red pixels %v: edge error %.2f (frame), %.2f (visible)", frame, visible, red, ef, ev)
		if ef > 1 {
			t.Errorf("frame %v, want %v within 1 point (edge error %.2f)", frame, wantFrame, ef)
		}
		if ev > 1 {
			t.Errorf("visible %v, want %v within 1 point (edge error %.2f)", visible, wantVisible, ev)
		}
	}
	redBox := func(t *testing.T, name string) {
		t.Helper()
		h.load(t, main, page(name))
		box(t, page(name), "Image", "Red box", 1, nil)
	}

	t.Run("plain box", func(t *testing.T) { redBox(t, "plain") })
	t.Run("rotated box", func(t *testing.T) { redBox(t, "rotated") })
	for _, site := range []struct{ name, origin string }{{"same", env.pageA}, {"cross", env.pageB}} {
		t.Run(site.name+"-site iframe with border and padding", func(t *testing.T) {
			h.load(t, main, page(site.name))
			inner := site.origin + "/display/box.html"
			waitFor(t, "the iframe's document", func() bool { return in(inner, "Image", "Red box")(p.current(t).Root) != nil })
			box(t, inner, "Image", "Red box", 1, nil)
		})
	}
	t.Run("after scrolling the page", func(t *testing.T) {
		h.load(t, main, page("plain"))
		eval[bool](t, main.ctx, `scrollTo(0, 100), true`)
		settle(t, main.ctx)
		// 61 − 100: the top 39 px are above the page area.
		box(t, page("plain"), "Image", "Red box", 1, func(red rect) (rect, rect) {
			return rect{red.X, red.Y + red.H - 97, red.W, 97}, red
		})
	})
	t.Run("inside a scrolled overflow container", func(t *testing.T) {
		h.load(t, main, page("overflow"))
		eval[bool](t, main.ctx, `document.getElementById('scroller').scrollTop = 340, true`)
		settle(t, main.ctx)
		// Top 300 − 340 = −40: the top 40 px are cut by the scrollport.
		box(t, page("overflow"), "Image", "Red box", 1, func(red rect) (rect, rect) {
			return rect{red.X, red.Y + red.H - 100, red.W, 100}, red
		})
	})
	t.Run("position fixed", func(t *testing.T) {
		h.load(t, main, page("fixed"))
		eval[bool](t, main.ctx, `scrollTo(0, 500), true`)
		settle(t, main.ctx)
		box(t, page("fixed"), "Image", "Red box", 1, nil)
	})
	t.Run("link wrapping over two lines", func(t *testing.T) {
		h.load(t, main, page("wrap"))
		if n := eval[int](t, main.ctx, `document.querySelector('a').getClientRects().length`); n != 2 {
			t.Fatalf("the link has %d line boxes, want 2", n)
		}
		box(t, page("wrap"), "Link", "link wraps here", 1, nil)
	})
	for _, z := range []struct {
		name  string
		steps int
		want  float64
	}{{"page zoom 150%", 3, 1.5}, {"page zoom 67%", -4, 0.67}} {
		t.Run(z.name, func(t *testing.T) {
			h.load(t, main, page("plain"))
			h.zoomBy(t, main, "Display plain", z.steps)
			defer h.resetZoom(t, main, "Display plain")
			if got := eval[float64](t, main.ctx, `devicePixelRatio`); got < z.want-0.01 || got > z.want+0.01 {
				t.Fatalf("devicePixelRatio %v after the keys, want %v", got, z.want)
			}
			box(t, page("plain"), "Image", "Red box", 1, nil)
		})
	}
	t.Run("second window at another position", func(t *testing.T) {
		h.load(t, main, "about:blank")
		second := openTab(t, h.root, page("rotated"))
		setBounds(t, second, 700, 520, 800, 600)
		settle(t, second.ctx)
		box(t, page("rotated"), "Image", "Red box", 1, nil)
		second.close(t)
	})
	t.Run("background tab is offscreen", func(t *testing.T) {
		h.load(t, main, page("plain"))
		el := must(t, in(page("plain"), "Image", "Red box")(p.current(t).Root))
		r, err := chromedp.CallBrowser(h.root, target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
		if err != nil {
			t.Fatalf("open a second tab: %v", err)
		}
		//lint:ignore S1016 a command's result is not the next command's params, though their fields agree
		defer chromedp.CallBrowser(h.root, target.CloseTarget, target.CloseTargetParams{TargetID: r.TargetID})
		waitFor(t, "the first tab to go to the background", func() bool { return eval[string](t, main.ctx, `document.visibilityState`) == "hidden" })
		if l := p.locate(t, el.ID); l.State != mapping.OffScreen || l.Visible != nil {
			t.Errorf("locate the red box in a background tab: %s, want offscreen without visible", l.raw)
		}
	})
	t.Run("minimized window is offscreen", func(t *testing.T) {
		h.load(t, main, page("plain"))
		el := must(t, in(page("plain"), "Image", "Red box")(p.current(t).Root))
		win := elemtest.WindowWithTab(t, p.current(t).Root, page("plain"))
		xw := h.xwindow(t, "Display plain")
		if err := scr.xdotool("windowminimize", "--sync", xw); err != nil {
			t.Fatal(err)
		}
		defer scr.xdotool("windowactivate", "--sync", xw)
		waitFor(t, "the page to be hidden", func() bool { return eval[string](t, main.ctx, `document.visibilityState`) == "hidden" })
		for what, id := range map[string]string{"the red box": el.ID, "the Window": win.ID} {
			l := p.locate(t, id)
			if l.State != mapping.OffScreen || l.Visible != nil {
				t.Errorf("locate %s in a minimised window: %s, want offscreen without visible", what, l.raw)
			}
			t.Logf("locate %s in a minimised window: %s", what, l.raw)
		}
	})
	t.Run("device scale factor 2", func(t *testing.T) {
		h.stop()
		// Points stay points; the screen has twice the pixels. The window
		// is 500×450 points at (150,100): 1000×900 pixels at (300,200).
		h2 := startHeaded(t, scr, 150, 100, 500, 450, "--force-device-scale-factor=2")
		p2 := startProvider(t, h2.httpURL())
		p, h = p2, h2
		main = &tab{ctx: h2.root, id: chromedp.FromContext(h2.root).Target.TargetID}
		h.load(t, main, page("plain"))
		box(t, page("plain"), "Image", "Red box", 2, nil)
	})
}

// worstEdge keeps the largest edge error seen and where.
type worstEdge struct {
	err  float64
	name string
}

func (w *worstEdge) note(name string, err float64) {
	if err >= w.err {
		w.err, w.name = err, name
	}
}

// resetZoom presses ctrl+0 in the window titled title.
func (h *headed) resetZoom(t testing.TB, tb *tab, title string) {
	t.Helper()
	h.pressKeys(t, title, "ctrl+0")
	waitFor(t, "the page zoom to be reset", func() bool { return eval[float64](t, tb.ctx, `devicePixelRatio`) == 1 })
}

// serve --launch --headed starts a browser that shows its windows: on a
// virtual screen the launched page's window is there, titled with the
// page, and current over MCP reads the page.
func TestServeLaunchHeaded(t *testing.T) {
	needDisplayTools(t)
	scr := startScreen(t, 1280, 900)
	url := env.pageA + "/plain.html"
	const title = "Plain page" // plain.html's <title>
	p := startProviderCmd(t, []string{"serve", "--launch", "--headed", "--chrome", env.chromePath, url}, scr.env(), nil)
	// Chrome titles a tab with its url until the page's title reaches the
	// browser process, which may come after the page's content is
	// readable: the test waits, as the user of the launched browser, for
	// the tab's title and the page's load, and then the first read must
	// show both.
	waitLaunchedTab(t, p, url, title)
	cur := p.currentNow(t, "the launched page in current, titled", func(a *answer) string {
		if in(url, "Button", "Plain button")(a.Root) == nil {
			return "no Document of " + url + " with its button"
		}
		if w := elemtest.WindowWithTab(t, a.Root, url); w.Title != title {
			return fmt.Sprintf("its Window is titled %q, want %q", w.Title, title)
		}
		return ""
	})
	win := elemtest.WindowWithTab(t, cur.Root, url)
	if !elemtest.Has(elemtest.TabByURL(t, cur.Root, url), "selected") || elemtest.DocOf(win) == nil || elemtest.DocOf(win).URL != url {
		t.Errorf("the launched page is not the selected tab of its Window with its Document:\n%s", elemtest.Outline(win))
	}
	// A headless browser has no window on the screen; this one does,
	// titled "Plain page - Chromium".
	var ids []string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the windows on the screen: %s", scr.windowNames())
		}
	})
	waitFor(t, "a window of the launched browser on the screen", func() bool {
		ids = scr.titled(win.Title)
		return len(ids) > 0
	})
	t.Logf("windows titled %q on the screen: %v", win.Title, ids)
}

var launchedLine = regexp.MustCompile(`msg="browser launched".* debug=(http://127\.0\.0\.1:\d+)`)

// waitLaunchedTab waits until the browser the provider launched (its
// debugging address is in the provider's log) has a tab on url titled
// title, as Target.getTargets tells, whose page has loaded.
func waitLaunchedTab(t testing.TB, p *provider, url, title string) {
	t.Helper()
	var debug string
	// The provider's own work: only its log tells when it has launched.
	waitFor(t, "the provider's log to give the launched browser's debugging address", func() bool {
		m := launchedLine.FindStringSubmatch(p.stderr.String())
		if m != nil {
			debug = m[1]
		}
		return m != nil
	})
	alloc, cancelAlloc := remote.NewAllocator(context.Background(), debug)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	var id target.ID
	waitFor(t, fmt.Sprintf("a tab on %s titled %q in the launched browser", url, title), func() bool {
		for _, in := range pageTargets(t, bctx) {
			if in.URL == url && in.Title == title {
				id = in.TargetID
				return true
			}
		}
		return false
	})
	ctx, _ := chromedp.NewContext(bctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	defer chromedp.Cancel(ctx)
	waitFor(t, url+" loaded in the launched browser", func() bool {
		return eval[bool](t, ctx, `document.readyState === "complete"`)
	})
}
