package e2e

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/google/go-cmp/cmp"
)

// spyCounts is window.__spy of testdata/spy.js: calls of the page's own
// DOM functions, and mutations of the document.
type spyCounts struct {
	Calls     map[string]int `json:"calls"`
	Mutations int            `json:"mutations"`
}

// readSpy reads window.__spy in ctx's page; expr names the window.
func readSpy(t testing.TB, ctx context.Context, win string) spyCounts {
	t.Helper()
	// JSON.stringify, property reads and takeRecords only: none of the
	// spied functions. flush counts the mutation records not yet
	// delivered to the observer's callback.
	s := eval[string](t, ctx, `JSON.stringify(`+win+`.__spy.flush())`)
	var c spyCounts
	if err := json.Unmarshal([]byte(s), &c); err != nil || c.Calls == nil {
		t.Fatalf("setup: %s.__spy = %s: is spy.js loaded?", win, s)
	}
	return c
}

// Point 8: the provider only reads. A page (and its same-site and
// cross-site iframes) wraps querySelectorAll, matches,
// getBoundingClientRect, getClientRects, elementFromPoint, hasFocus,
// closest and more in counters and observes mutations; reads of current,
// locate and the descriptor change neither.
func TestReadOnly(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	tb := openTab(t, env.rootCtx, env.pageA+"/readonly.html")
	frame := tb.frameTarget(t, env.pageB+"/readonly-frame.html")
	sameURL, crossURL := env.pageA+"/readonly-frame.html?site=same", env.pageB+"/readonly-frame.html?site=cross"

	// The user focuses the field and points at the button (the test's own
	// geometry calls come before the first snapshot).
	field := rectOf(t, tb.ctx, `document.getElementById('watchedfield')`)
	button := rectOf(t, tb.ctx, `document.getElementById('watchedbutton')`)
	tb.click(t, center(field))
	tb.mouseMove(t, center(button))
	waitFor(t, "the field focused and the button hovered", func() bool {
		return eval[bool](t, tb.ctx, `document.activeElement.id === 'watchedfield' && document.getElementById('watchedbutton').matches(':hover')`)
	})

	snapshot := func() map[string]spyCounts {
		return map[string]spyCounts{
			"page":              readSpy(t, tb.ctx, "window"),
			"same-site iframe":  readSpy(t, tb.ctx, "document.getElementById('same').contentWindow"),
			"cross-site iframe": readSpy(t, frame, "window"),
		}
	}
	before := snapshot()
	pagesBefore := len(pageTargets(t, tb.ctx))

	cur := p.current(t)
	ids := []string{
		elemtest.FindDoc(t, cur.Root, tb.url).ID,
		elemtest.FindDoc(t, cur.Root, sameURL).ID,
		elemtest.FindDoc(t, cur.Root, crossURL).ID,
		must(t, in(tb.url, "Button", "Watched button")(cur.Root)).ID,
		must(t, in(tb.url, "TextField", "Watched field")(cur.Root)).ID,
		must(t, in(sameURL, "Button", "Watched frame button")(cur.Root)).ID,
		must(t, in(crossURL, "Button", "Watched frame button")(cur.Root)).ID,
		elemtest.WindowWithTab(t, cur.Root, tb.url).ID,
	}
	for _, id := range ids {
		p.locate(t, id)
	}
	p.current(t)
	p.descriptor(t)
	after := snapshot()

	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the page's own DOM functions were called, or its document mutated, by reads of current and locate (-before +after):\n%s", diff)
	}
	if eval[string](t, tb.ctx, `document.activeElement.id`) != "watchedfield" {
		t.Errorf("the focus moved during the reads")
	}
	if v := eval[string](t, tb.ctx, `document.getElementById('watchedfield').value`); v != "typed" {
		t.Errorf("the field's value changed during the reads: %q", v)
	}
	if n := len(pageTargets(t, tb.ctx)); n != pagesBefore {
		t.Errorf("the reads changed the number of page tabs from %d to %d", pagesBefore, n)
	}
	if u := eval[string](t, tb.ctx, `location.href`); u != tb.url {
		t.Errorf("the page navigated during the reads: %s", u)
	}
}
