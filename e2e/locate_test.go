package e2e

import (
	"fmt"
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
)

// Point 7: locate per section 6, in screen points equal (within 1 point)
// to where Chrome itself puts the element, calibrated from a real mouse
// event (screenX − clientX): an element of the main frame, of a same-site
// iframe and of a cross-site iframe; the iframes' Documents; the top
// Document (its page area); the Window (its bounds); offscreen and
// partly visible after scrolling; Application and Tab cannot be placed.
func TestLocateGeometry(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	tb := openTab(t, env.rootCtx, env.pageA+"/frames.html")
	ox, oy := tb.origin(t)
	t.Logf("page area origin on screen, from a real mousemove: (%.1f, %.1f)", ox, oy)
	frame := tb.frameTarget(t, env.pageB+"/inner.html")
	sameURL, crossURL := env.pageA+"/inner.html?site=same", env.pageB+"/inner.html?site=cross"

	cur := p.current(t)
	sameBox := contentBox(t, tb.ctx, "#same")
	crossBox := contentBox(t, tb.ctx, "#cross")

	onscreen := func(t *testing.T, name, id string, want rect) {
		t.Helper()
		l := p.locate(t, id)
		if l.State != "onscreen" {
			t.Fatalf("locate %s: %s, want onscreen", name, l.raw)
		}
		if l.Frame == nil || l.Visible == nil {
			t.Fatalf("locate %s: %s, want frame and visible", name, l.raw)
		}
		if got := fromMapping(l.Frame); !near(got, want, 1) {
			t.Errorf("locate %s: frame %v, want %v (getBoundingClientRect + page origin)", name, got, want)
		}
		if got := fromMapping(l.Visible); !near(got, want, 1) {
			t.Errorf("locate %s: visible %v, want %v (all of it is visible)", name, got, want)
		}
	}

	t.Run("main frame element", func(t *testing.T) {
		el := must(t, in(tb.url, "Button", "Main button")(cur.Root))
		onscreen(t, "the main button", el.ID, rectOf(t, tb.ctx, `document.getElementById('mainbutton')`).offset(ox, oy))
		el = must(t, in(tb.url, "Heading", "Frames page")(cur.Root))
		onscreen(t, "the heading", el.ID, rectOf(t, tb.ctx, `document.querySelector('h1')`).offset(ox, oy))
	})
	t.Run("same-site iframe element", func(t *testing.T) {
		el := must(t, in(sameURL, "Button", "Inner button")(cur.Root))
		r := rectOf(t, tb.ctx, `document.querySelector('#same').contentDocument.getElementById('innerbutton')`)
		onscreen(t, "the same-site iframe's button", el.ID, r.offset(sameBox.X+ox, sameBox.Y+oy))
	})
	t.Run("cross-site iframe element", func(t *testing.T) {
		el := must(t, in(crossURL, "Button", "Inner button")(cur.Root))
		r := rectOf(t, frame, `document.getElementById('innerbutton')`)
		onscreen(t, "the cross-site iframe's button", el.ID, r.offset(crossBox.X+ox, crossBox.Y+oy))
	})
	t.Run("iframe documents", func(t *testing.T) {
		onscreen(t, "the same-site iframe's Document", elemtest.FindDoc(t, cur.Root, sameURL).ID, sameBox.offset(ox, oy))
		onscreen(t, "the cross-site iframe's Document", elemtest.FindDoc(t, cur.Root, crossURL).ID, crossBox.offset(ox, oy))
	})
	t.Run("top document", func(t *testing.T) {
		doc := elemtest.FindDoc(t, cur.Root, tb.url)
		l := p.locate(t, doc.ID)
		if l.State != "onscreen" || l.Frame == nil || l.Visible == nil {
			t.Fatalf("locate the top Document: %s, want onscreen with frame and visible", l.raw)
		}
		vp := eval[struct{ IW, IH, CW, CH float64 }](t, tb.ctx, `({IW: innerWidth, IH: innerHeight, CW: document.documentElement.clientWidth, CH: document.documentElement.clientHeight})`)
		f, v := fromMapping(l.Frame), fromMapping(l.Visible)
		if !near(rect{f.X, f.Y, 0, 0}, rect{ox, oy, 0, 0}, 1) {
			t.Errorf("top Document frame %v, want it at the page area's origin (%.1f, %.1f)", f, ox, oy)
		}
		within := func(x, lo, hi float64) bool { return x >= lo-1 && x <= hi+1 }
		if !within(f.W, vp.CW, vp.IW) || !within(f.H, vp.CH, vp.IH) {
			t.Errorf("top Document frame %v, want the page area: width in [%v,%v], height in [%v,%v]", f, vp.CW, vp.IW, vp.CH, vp.IH)
		}
		if !near(rect{v.X, v.Y, 0, 0}, rect{ox, oy, 0, 0}, 1) || !within(v.W, vp.CW, vp.IW) || !within(v.H, vp.CH, vp.IH) {
			t.Errorf("top Document visible %v, want the page area at (%.1f,%.1f) of %vx%v (scrollbars excluded: %vx%v)", v, ox, oy, vp.IW, vp.IH, vp.CW, vp.CH)
		}
	})
	t.Run("window", func(t *testing.T) {
		w := tb.window(t)
		b := w.Bounds
		if b == nil || b.Left == nil || b.Top == nil {
			t.Fatalf("Browser.getWindowForTarget gave no bounds: %s", dump(w))
		}
		want := rect{float64(*b.Left), float64(*b.Top), float64(b.Width), float64(b.Height)}
		onscreen(t, "the Window", elemtest.WindowWithTab(t, cur.Root, tb.url).ID, want)
		// The page area lies inside the window.
		if ox < want.X || oy < want.Y || ox > want.X+want.W || oy > want.Y+want.H {
			t.Errorf("calibrated page origin (%.1f,%.1f) lies outside the window %v: the calibration is off", ox, oy, want)
		}
	})
	t.Run("cannot be placed", func(t *testing.T) {
		p.wantNotFound(t, locatePrefix+cur.Root.ID, "the Application")
		p.wantNotFound(t, locatePrefix+elemtest.TabByURL(t, cur.Root, tb.url).ID, "a Tab")
		p.wantServing(t, "locates that cannot be placed")
	})
	t.Run("scrolled", func(t *testing.T) {
		btn := must(t, in(tb.url, "Button", "Main button")(cur.Root))
		bottom := must(t, in(tb.url, "Button", "Bottom button")(cur.Root))

		// Half of the main button above the top edge: onscreen, visible
		// clipped to the page area.
		r := rectOf(t, tb.ctx, `document.getElementById('mainbutton')`)
		eval[bool](t, tb.ctx, fmt.Sprintf(`scrollTo(0, scrollY + %f), true`, r.Y+r.H/2))
		r = rectOf(t, tb.ctx, `document.getElementById('mainbutton')`)
		l := p.locate(t, btn.ID)
		if l.State != "onscreen" || l.Frame == nil || l.Visible == nil {
			t.Fatalf("locate the half-scrolled main button: %s, want onscreen", l.raw)
		}
		wantFrame := r.offset(ox, oy)
		wantVis := rect{wantFrame.X, oy, wantFrame.W, wantFrame.Y + wantFrame.H - oy}
		if got := fromMapping(l.Frame); !near(got, wantFrame, 1) {
			t.Errorf("half-scrolled main button: frame %v, want %v", got, wantFrame)
		}
		if got := fromMapping(l.Visible); !near(got, wantVis, 1) {
			t.Errorf("half-scrolled main button: visible %v, want %v (clipped at the page area's top)", got, wantVis)
		}

		// Scrolled right away: offscreen, with the frame Chrome gives.
		eval[bool](t, tb.ctx, `scrollTo(0, document.documentElement.scrollHeight), true`)
		r = rectOf(t, tb.ctx, `document.getElementById('mainbutton')`)
		l = p.locate(t, btn.ID)
		if l.State != "offscreen" {
			t.Errorf("locate the scrolled-away main button: %s, want offscreen", l.raw)
		} else if l.Frame != nil && !near(fromMapping(l.Frame), r.offset(ox, oy), 1) {
			t.Errorf("scrolled-away main button: frame %v, want %v", fromMapping(l.Frame), r.offset(ox, oy))
		}
		if l.Visible != nil {
			t.Errorf("offscreen location has visible %v", fromMapping(l.Visible))
		}
		// And the button at the bottom has come into view.
		onscreen(t, "the bottom button after scrolling", bottom.ID, rectOf(t, tb.ctx, `document.getElementById('bottombutton')`).offset(ox, oy))
	})
}
