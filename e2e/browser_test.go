package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// The test acts as the user: it opens tabs, focuses, points and scrolls
// with chromedp on the shared browser (or on a browser of its own).

// tab is one page the test opened.
type tab struct {
	ctx context.Context
	id  target.ID
	url string
}

// openTab opens url in a new tab of parent (env.rootCtx for the shared
// browser; by default chromedp gives it a new window), waits for the load,
// brings it to the front, and closes it when the test ends.
func openTab(t testing.TB, parent context.Context, url string, opts ...chromedp.ContextOption) *tab {
	t.Helper()
	needEnv(t)
	ctx, _ := chromedp.NewContext(parent, opts...)
	// The first Do opens the tab and binds it to the context it is given:
	// the timeout goes on the navigation only.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab for %s: %v", url, err)
	}
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.Navigate(url)); err != nil {
		chromedp.Cancel(ctx)
		t.Fatalf("open %s: %v", url, err)
	}
	tb := &tab{ctx: ctx, id: chromedp.FromContext(ctx).Target.TargetID, url: url}
	t.Cleanup(func() { tb.close(t) })
	tb.activate(t)
	return tb
}

// openBeside opens url in a new tab of tb's window, as a person following
// a link to a new tab does: window.open with a user gesture, which Chrome
// puts in its opener's window (Target.createTarget has no window to name,
// and puts a tab in whichever window it deems the last active). The new
// tab is in front; it is closed when the test ends.
func (tb *tab) openBeside(t testing.TB, url string) *tab {
	t.Helper()
	before := map[target.ID]bool{}
	for _, in := range pageTargets(t, tb.ctx) {
		before[in.TargetID] = true
	}
	if _, err := chromedp.Call(tb.ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression: fmt.Sprintf(`window.open(%q) !== null`, url), UserGesture: new(true), ReturnByValue: new(true),
	}); err != nil {
		t.Fatalf("window.open(%s) in %s: %v", url, tb.url, err)
	}
	var id target.ID
	waitFor(t, "the tab window.open opened", func() bool {
		for _, in := range pageTargets(t, tb.ctx) {
			if !before[in.TargetID] {
				id = in.TargetID
				return true
			}
		}
		return false
	})
	ctx, _ := chromedp.NewContext(tb.ctx, chromedp.WithTargetID(id))
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("attach to the tab of %s: %v", url, err)
	}
	nt := &tab{ctx: ctx, id: id, url: url}
	t.Cleanup(func() { nt.close(t) })
	waitFor(t, url+" loaded in the new tab", func() bool {
		return eval[bool](t, ctx, fmt.Sprintf(`location.href === %q && document.readyState === "complete"`, url))
	})
	return nt
}

// close closes the tab (a second close does nothing).
func (tb *tab) close(t testing.TB) {
	t.Helper()
	if err := chromedp.Cancel(tb.ctx); err != nil && !strings.Contains(err.Error(), "canceled") {
		t.Logf("close tab %s: %v", tb.url, err)
	}
}

// activate brings the tab to the front of its window.
func (tb *tab) activate(t testing.TB) {
	t.Helper()
	if _, err := chromedp.CallBrowser(tb.ctx, target.ActivateTarget, target.ActivateTargetParams{TargetID: tb.id}); err != nil {
		t.Fatalf("activate %s: %v", tb.url, err)
	}
}

// navigate loads url in the tab.
func (tb *tab) navigate(t testing.TB, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate to %s: %v", url, err)
	}
	tb.url = url
}

// window returns the browser window that holds the tab, as Chrome reports it.
func (tb *tab) window(t testing.TB) browser.GetWindowForTargetResult {
	t.Helper()
	return windowFor(t, tb.ctx, tb.id)
}

func windowFor(t testing.TB, ctx context.Context, id target.ID) browser.GetWindowForTargetResult {
	t.Helper()
	res, err := chromedp.CallBrowser(ctx, browser.GetWindowForTarget, browser.GetWindowForTargetParams{TargetID: id})
	if err != nil {
		t.Fatalf("Browser.getWindowForTarget %s: %v", id, err)
	}
	return res
}

// eval evaluates a script in ctx's page (the page's own world: the test is
// the page's author here) and decodes the result.
func eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %.120s: %v", expr, err)
	}
	return v
}

// rectOf returns an element's getBoundingClientRect in its frame's CSS px.
func rectOf(t testing.TB, ctx context.Context, elemExpr string) rect {
	t.Helper()
	return eval[rect](t, ctx, fmt.Sprintf(`(() => { const r = (%s).getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height}; })()`, elemExpr))
}

// contentBox returns the content box of an iframe element in its
// document's viewport, in CSS px.
func contentBox(t testing.TB, ctx context.Context, iframeSel string) rect {
	t.Helper()
	return eval[rect](t, ctx, fmt.Sprintf(`(() => {
		const f = document.querySelector(%q), r = f.getBoundingClientRect(), s = getComputedStyle(f);
		const pl = parseFloat(s.paddingLeft), pt = parseFloat(s.paddingTop);
		return {X: r.x + f.clientLeft + pl, Y: r.y + f.clientTop + pt,
			W: f.clientWidth - pl - parseFloat(s.paddingRight), H: f.clientHeight - pt - parseFloat(s.paddingBottom)};
	})()`, iframeSel))
}

// pt is a point in CSS px of a page's viewport.
type pt struct{ X, Y float64 }

// center is the middle of r.
func center(r rect) pt { return pt{r.X + r.W/2, r.Y + r.H/2} }

// mouseMove moves the pointer to (x, y) in the tab's page (CSS px of its
// viewport) as a real mouse would, through the browser's input pipeline.
func (tb *tab) mouseMove(t testing.TB, at pt) {
	t.Helper()
	x, y := at.X, at.Y
	if _, err := chromedp.Call(tb.ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{
		Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y,
	}); err != nil {
		t.Fatalf("Input.dispatchMouseEvent mouseMoved (%.1f,%.1f): %v", x, y, err)
	}
}

// click presses and releases the left button at (x, y).
func (tb *tab) click(t testing.TB, at pt) {
	t.Helper()
	x, y := at.X, at.Y
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved, input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y}
		if typ != input.DispatchMouseEventTypeMouseMoved {
			p.Button = input.MouseButtonLeft
			p.ClickCount = 1
		}
		if _, err := chromedp.Call(tb.ctx, input.DispatchMouseEvent, p); err != nil {
			t.Fatalf("Input.dispatchMouseEvent %s (%.1f,%.1f): %v", typ, x, y, err)
		}
	}
}

// origin calibrates where the page area's top-left corner is on the
// screen: it moves the mouse in the page and reads screenX−clientX and
// screenY−clientY from the page's own mousemove listener (window.__origin,
// see testdata/calibrate.js). Page zoom is 1 in these tests.
func (tb *tab) origin(t testing.TB) (float64, float64) {
	t.Helper()
	eval[bool](t, tb.ctx, `window.__origin = null, true`)
	tb.mouseMove(t, pt{3, 3})
	var o *struct{ X, Y float64 }
	deadline := time.Now().Add(waitLimit)
	for {
		if o = eval[*struct{ X, Y float64 }](t, tb.ctx, `window.__origin`); o != nil {
			return o.X, o.Y
		}
		if time.Now().After(deadline) {
			t.Fatalf("calibration: no mousemove reached %s in %v (does the page load calibrate.js?)", tb.url, waitLimit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// frameTarget attaches to the out-of-process iframe of this tab whose url
// starts with prefix, as its own session (the test may then run script and
// DOM commands in the iframe). It detaches when the test ends.
func (tb *tab) frameTarget(t testing.TB, prefix string) context.Context {
	t.Helper()
	var id target.ID
	deadline := time.Now().Add(waitLimit)
	for id == "" && time.Now().Before(deadline) {
		infos, err := chromedp.Targets(tb.ctx)
		if err != nil {
			t.Fatalf("Target.getTargets: %v", err)
		}
		for _, in := range infos {
			if in.Type == "iframe" && strings.HasPrefix(in.URL, prefix) && in.ParentID == tb.id {
				id = in.TargetID
			}
		}
		if id == "" {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if id == "" {
		t.Fatalf("no out-of-process iframe target with url %s* under %s: is --site-per-process on?", prefix, tb.url)
	}
	ctx, _ := chromedp.NewContext(tb.ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("attach to iframe target %s: %v", id, err)
	}
	t.Cleanup(func() { chromedp.Cancel(ctx) })
	return ctx
}

// pageTargets lists the page targets of the browser.
func pageTargets(t testing.TB, ctx context.Context) []*target.Info {
	t.Helper()
	infos, err := chromedp.Targets(ctx)
	if err != nil {
		t.Fatalf("Target.getTargets: %v", err)
	}
	var out []*target.Info
	for _, in := range infos {
		if in.Type == "page" {
			out = append(out, in)
		}
	}
	return out
}

// visibility returns document.visibilityState of a page target, read on a
// session of the test's own.
func visibility(t testing.TB, parent context.Context, id target.ID) string {
	t.Helper()
	ctx, _ := chromedp.NewContext(parent, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	defer chromedp.Cancel(ctx)
	return eval[string](t, ctx, `document.visibilityState`)
}

// waitLimit bounds every wait of the tests for something they observe:
// generous, since the tests share two cores with other work.
const waitLimit = 60 * time.Second

// waitFor polls cond until it holds, failing the test after waitLimit.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting %v for %s", waitLimit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dump is a value as JSON, for failure messages.
func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

type targetInfo = target.Info
