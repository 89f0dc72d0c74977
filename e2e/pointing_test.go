package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// currentNow reads current once and fails, with cond's complaint and the
// answer's outline, when cond does not hold. The test calls it once it has
// seen the page (or the browser) reach the state cond checks, through its
// own session: the provider's first read after that must show it (focus,
// hover and selection are read live, content is exact after a change), so
// a provider that answers stale for a read or two fails.
func (p *provider) currentNow(t testing.TB, what string, cond func(a *answer) string) *answer {
	t.Helper()
	a := p.current(t)
	if complaint := cond(a); complaint != "" {
		t.Fatalf("%s: the first read after it: %s\ntree:\n%s", what, complaint, elemtest.Outline(a.Root))
	}
	return a
}

// focusPathTo says what is wrong with the focus path of a, or "" when it
// runs from the root down to target and ends there.
func focusPathTo(a *answer, target func(root *mapping.Element) *mapping.Element) string {
	el := target(a.Root)
	if el == nil {
		return "the focus target is not in the answer"
	}
	want := append(elemtest.PathTo(a.Root, el), el)
	got := elemtest.WithState(a.Root, "focused")
	if !slices.Equal(want, got) {
		return fmt.Sprintf("focused elements %s, want the path %s", roles(got), roles(want))
	}
	return ""
}

// hoveredIs says what is wrong with the hovered elements of a, or "" when
// exactly target is hovered.
func hoveredIs(a *answer, target func(root *mapping.Element) *mapping.Element) string {
	el := target(a.Root)
	if el == nil {
		return "the hover target is not in the answer"
	}
	got := elemtest.WithState(a.Root, "hovered")
	if len(got) != 1 || got[0] != el {
		return fmt.Sprintf("hovered elements %s, want exactly %s %q", roles(got), el.Role, el.Title)
	}
	return ""
}

func roles(es []*mapping.Element) string {
	var s []string
	for _, e := range es {
		s = append(s, fmt.Sprintf("%s %q", e.Role, e.Title))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// in finds the element with role and title inside the Document with url;
// nil when either is missing or ambiguous.
func in(url, role, title string) func(root *mapping.Element) *mapping.Element {
	return func(root *mapping.Element) *mapping.Element {
		var docs []*mapping.Element
		elemtest.Walk(root, func(e *mapping.Element, _ []*mapping.Element) {
			if e.Role == "Document" && e.URL == url {
				docs = append(docs, e)
			}
		})
		if len(docs) != 1 {
			return nil
		}
		// Only the elements of this document, not of its iframes.
		var out []*mapping.Element
		var rec func(e *mapping.Element)
		rec = func(e *mapping.Element) {
			for _, c := range e.Children {
				if c.Role == "Document" {
					continue
				}
				if c.Role == role && c.Title == title {
					out = append(out, c)
				}
				rec(c)
			}
		}
		rec(docs[0])
		if len(out) != 1 {
			return nil
		}
		return out[0]
	}
}

// Point 5: after the user focuses a field, in the page, in a same-site
// iframe and in a cross-site iframe, the focus path runs from the root to
// that field.
func TestFocusPath(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	tb := openTab(t, env.rootCtx, env.pageA+"/frames.html")
	sameURL, crossURL := env.pageA+"/inner.html?site=same", env.pageB+"/inner.html?site=cross"
	p.current(t) // the provider has seen the tab before the user acts

	t.Run("main frame", func(t *testing.T) {
		tb.click(t, center(rectOf(t, tb.ctx, `document.getElementById('mainfield')`)))
		waitFor(t, "the click to focus the main field", func() bool {
			return eval[string](t, tb.ctx, `document.activeElement.id`) == "mainfield"
		})
		p.currentNow(t, "focus in the main frame", func(a *answer) string {
			return focusPathTo(a, in(tb.url, "TextField", "Main field"))
		})
	})

	t.Run("same-site iframe", func(t *testing.T) {
		box := contentBox(t, tb.ctx, "#same")
		r := rectOf(t, tb.ctx, `document.querySelector('#same').contentDocument.getElementById('innerfield')`)
		tb.click(t, center(r.offset(box.X, box.Y)))
		waitFor(t, "the click to focus the same-site iframe's field", func() bool {
			return eval[string](t, tb.ctx, `document.querySelector('#same').contentDocument.activeElement.id`) == "innerfield"
		})
		p.currentNow(t, "focus in the same-site iframe", func(a *answer) string {
			return focusPathTo(a, in(sameURL, "TextField", "Inner field"))
		})
	})

	t.Run("cross-site iframe", func(t *testing.T) {
		frame := tb.frameTarget(t, env.pageB+"/inner.html")
		box := contentBox(t, tb.ctx, "#cross")
		r := rectOf(t, frame, `document.getElementById('innerfield')`)
		tb.click(t, center(r.offset(box.X, box.Y)))
		focused := func(ctx context.Context) bool {
			return eval[bool](t, ctx, `document.activeElement.id === 'innerfield' && document.hasFocus()`)
		}
		if !focused(frame) {
			// Focus through the frame's own session, as the brief allows.
			eval[bool](t, frame, `document.getElementById('innerfield').focus(), true`)
		}
		// The frame's process learns it has the focus a moment later.
		waitFor(t, "the cross-site iframe's field to take focus", func() bool { return focused(frame) })
		p.currentNow(t, "focus in the cross-site iframe", func(a *answer) string {
			return focusPathTo(a, in(crossURL, "TextField", "Inner field"))
		})
	})

	t.Run("back to the main frame", func(t *testing.T) {
		tb.click(t, center(rectOf(t, tb.ctx, `document.getElementById('mainfield')`)))
		waitFor(t, "the click to focus the main field again", func() bool {
			return eval[bool](t, tb.ctx, `document.activeElement.id === 'mainfield' && document.hasFocus()`)
		})
		p.currentNow(t, "focus back in the main frame", func(a *answer) string {
			return focusPathTo(a, in(tb.url, "TextField", "Main field"))
		})
	})
}

// Point 5: after the user moves the mouse over a button, exactly that
// button is hovered: in the page, in a cross-site iframe, in a same-site
// iframe, back in the page (Chrome leaves a stale :hover in the iframe),
// and in a quirks-mode page.
func TestHover(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	tb := openTab(t, env.rootCtx, env.pageA+"/frames.html")
	sameURL, crossURL := env.pageA+"/inner.html?site=same", env.pageB+"/inner.html?site=cross"
	p.current(t)

	// moveTo moves the pointer to the centre of el, an element of the
	// document whose window is win (both script in ctx, a page's session
	// or a cross-site iframe's), at off from its frame's place in the page,
	// and waits until that window has seen the pointer move and el is
	// :hover. Chrome leaves a stale :hover in a frame the pointer left
	// across a process boundary, so :hover alone may be the last visit's.
	moveTo := func(t *testing.T, ctx context.Context, win, el string, off pt) {
		t.Helper()
		eval[bool](t, ctx, `((w) => { w.__moved = false; w.addEventListener('mousemove', () => { w.__moved = true }, {once: true}); return true })(`+win+`)`)
		at := center(rectOf(t, ctx, el).offset(off.X, off.Y))
		tb.mouseMove(t, pt{at.X - 2, at.Y - 1})
		tb.mouseMove(t, at)
		waitFor(t, "the pointer to reach "+el, func() bool {
			return eval[bool](t, ctx, `(`+win+`).__moved && (`+el+`).matches(':hover')`)
		})
	}
	main := func(t *testing.T) {
		moveTo(t, tb.ctx, `window`, `document.getElementById('mainbutton')`, pt{})
		p.currentNow(t, "hover over the main button", func(a *answer) string {
			return hoveredIs(a, in(tb.url, "Button", "Main button"))
		})
	}
	t.Run("main frame", main)

	cross := func(t *testing.T) {
		frame := tb.frameTarget(t, env.pageB+"/inner.html")
		box := contentBox(t, tb.ctx, "#cross")
		moveTo(t, frame, `window`, `document.getElementById('innerbutton')`, pt{box.X, box.Y})
		p.currentNow(t, "hover over the cross-site iframe's button", func(a *answer) string {
			return hoveredIs(a, in(crossURL, "Button", "Inner button"))
		})
	}
	t.Run("cross-site iframe", cross)

	t.Run("same-site iframe", func(t *testing.T) {
		box := contentBox(t, tb.ctx, "#same")
		moveTo(t, tb.ctx, `document.querySelector('#same').contentWindow`, `document.querySelector('#same').contentDocument.getElementById('innerbutton')`, pt{box.X, box.Y})
		p.currentNow(t, "hover over the same-site iframe's button", func(a *answer) string {
			return hoveredIs(a, in(sameURL, "Button", "Inner button"))
		})
	})

	t.Run("cross-site iframe again", cross)

	// The iframe keeps a stale :hover; the answer must not.
	t.Run("back to the main frame", main)

	t.Run("quirks mode", func(t *testing.T) {
		q := openTab(t, env.rootCtx, env.pageA+"/quirks.html")
		if mode := eval[string](t, q.ctx, `document.compatMode`); mode != "BackCompat" {
			t.Fatalf("setup: quirks.html renders in %s, want BackCompat (quirks mode)", mode)
		}
		p.current(t)
		r := rectOf(t, q.ctx, `document.getElementById('quirksbutton')`)
		at := center(r)
		q.mouseMove(t, pt{at.X - 2, at.Y - 1})
		q.mouseMove(t, at)
		// An id in the selector: a bare :hover matches no button in quirks mode.
		waitFor(t, "the quirks-mode page's button to be :hover after the move", func() bool {
			return eval[bool](t, q.ctx, `document.getElementById('quirksbutton').matches('#quirksbutton:hover')`)
		})
		p.currentNow(t, "hover over the button of a quirks-mode page", func(a *answer) string {
			return hoveredIs(a, in(q.url, "Button", "Quirks button"))
		})
	})
}

// Point 5: selected tabs, options and rows carry selected, also after the
// page changes them.
func TestSelectionFollowsPage(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	tb := openTab(t, env.rootCtx, env.pageA+"/form.html")
	p.current(t)
	eval[bool](t, tb.ctx, `(() => {
		const s = document.getElementById('country'); s.value = 'Peru'; s.dispatchEvent(new Event('change'));
		document.getElementById('tab-general').setAttribute('aria-selected', 'false');
		document.getElementById('tab-advanced').setAttribute('aria-selected', 'true');
		const rows = document.querySelectorAll('[role=grid] [role=row]');
		rows[0].setAttribute('aria-selected', 'false'); rows[1].setAttribute('aria-selected', 'true');
		return true;
	})()`)
	// The script has run: the page is changed, and the first read after
	// must show it.
	p.currentNow(t, "selection after the page changed it", func(a *answer) string {
		var bad []string
		if c := in(tb.url, "ComboBox", "Country")(a.Root); c == nil || c.Value != "Peru" {
			bad = append(bad, "ComboBox Country should read Peru")
		}
		if x := in(tb.url, "Tab", "Advanced")(a.Root); x == nil || !elemtest.Has(x, "selected") {
			bad = append(bad, "Tab Advanced should be selected")
		}
		if x := in(tb.url, "Tab", "General")(a.Root); x == nil || elemtest.Has(x, "selected") {
			bad = append(bad, "Tab General should not be selected")
		}
		if c := in(tb.url, "Cell", "Edsger")(a.Root); c == nil || !elemtest.Has(elemtest.ParentOf(a.Root, c), "selected") {
			bad = append(bad, "the Row of \"Edsger\" should be selected")
		}
		if c := in(tb.url, "Cell", "Grace")(a.Root); c == nil || elemtest.Has(elemtest.ParentOf(a.Root, c), "selected") {
			bad = append(bad, "the Row of \"Grace\" should not be selected")
		}
		return strings.Join(bad, "; ")
	})
}
