package e2e

import (
	"net/url"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// Point 6: the same element has the same id across reads.
func TestIDsStableAcrossReads(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	tb := openTab(t, env.rootCtx, env.pageA+"/frames.html")
	sameURL, crossURL := env.pageA+"/inner.html?site=same", env.pageB+"/inner.html?site=cross"
	targets := map[string]func(a *answer) string{
		"root":                      func(a *answer) string { return a.Root.ID },
		"window":                    func(a *answer) string { return elemtest.WindowWithTab(t, a.Root, tb.url).ID },
		"tab":                       func(a *answer) string { return elemtest.TabByURL(t, a.Root, tb.url).ID },
		"document":                  func(a *answer) string { return elemtest.FindDoc(t, a.Root, tb.url).ID },
		"main button":               func(a *answer) string { return must(t, in(tb.url, "Button", "Main button")(a.Root)).ID },
		"same-site iframe document": func(a *answer) string { return elemtest.FindDoc(t, a.Root, sameURL).ID },
		"same-site iframe button":   func(a *answer) string { return must(t, in(sameURL, "Button", "Inner button")(a.Root)).ID },
		"cross-site iframe button":  func(a *answer) string { return must(t, in(crossURL, "Button", "Inner button")(a.Root)).ID },
	}
	first := p.current(t)
	// Something changes in between: focus and hover move, text is added.
	tb.click(t, center(rectOf(t, tb.ctx, `document.getElementById('mainfield')`)))
	eval[bool](t, tb.ctx, `document.body.insertAdjacentHTML('afterbegin', '<p>Inserted first</p>'), true`)
	second := p.current(t)
	for name, id := range targets {
		if a, b := id(first), id(second); a != b {
			t.Errorf("%s: id %q in the first read, %q in the second", name, a, b)
		}
	}
}

func must[T any](t testing.TB, v *T) *T {
	t.Helper()
	if v == nil {
		t.Fatalf("element not found (see the test for which)")
	}
	return v
}

// Point 6: locate of an element removed from the DOM, of an element of a
// page navigated away, and of an element of a closed tab answers gone; the
// Document of a page navigated away answers gone too.
func TestLocateGone(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)

	t.Run("removed from the DOM", func(t *testing.T) {
		tb := openTab(t, env.rootCtx, env.pageA+"/plain.html")
		btn := elemtest.Find(t, elemtest.FindDoc(t, p.current(t).Root, tb.url), "Button", "Remove me")
		if l := p.locate(t, btn.ID); l.State != "onscreen" {
			t.Errorf("locate of a visible button before removal: %s, want onscreen", l.raw)
		}
		eval[bool](t, tb.ctx, `document.getElementById('removeme').remove(), true`)
		if l := p.locate(t, btn.ID); l.State != "gone" {
			t.Errorf("locate of a removed button: %s, want {\"state\":\"gone\"}", l.raw)
		}
		if cur := p.current(t); len(elemtest.FindAll(cur.Root, "Button", "Remove me")) != 0 {
			t.Errorf("the removed button is still in current")
		}
	})

	t.Run("page navigated away", func(t *testing.T) {
		tb := openTab(t, env.rootCtx, env.pageA+"/plain.html")
		doc := elemtest.FindDoc(t, p.current(t).Root, tb.url)
		btn := elemtest.Find(t, doc, "Button", "Plain button")
		tb.navigate(t, env.pageA+"/other.html")
		if l := p.locate(t, btn.ID); l.State != "gone" {
			t.Errorf("locate of a button of a page navigated away: %s, want gone", l.raw)
		}
		if l := p.locate(t, doc.ID); l.State != "gone" {
			t.Errorf("locate of the Document of a page navigated away: %s, want gone", l.raw)
		}
		// The same URL loaded again is a new document: still gone.
		tb.navigate(t, env.pageA+"/plain.html")
		if l := p.locate(t, btn.ID); l.State != "gone" {
			t.Errorf("locate of a button of a page since reloaded at the same url: %s, want gone", l.raw)
		}
		if again := elemtest.Find(t, elemtest.FindDoc(t, p.current(t).Root, tb.url), "Button", "Plain button"); again.ID == btn.ID {
			t.Errorf("the button of the reloaded page reuses the id %q of the old document's button", btn.ID)
		}
	})

	t.Run("tab closed", func(t *testing.T) {
		tb := openTab(t, env.rootCtx, env.pageA+"/plain.html")
		doc := elemtest.FindDoc(t, p.current(t).Root, tb.url)
		btn := elemtest.Find(t, doc, "Button", "Plain button")
		tb.close(t)
		waitFor(t, "the tab to close", func() bool {
			for _, in := range pageTargets(t, env.rootCtx) {
				if in.TargetID == tb.id {
					return false
				}
			}
			return true
		})
		if l := p.locate(t, btn.ID); l.State != "gone" {
			t.Errorf("locate of a button in a closed tab: %s, want gone", l.raw)
		}
		if l := p.locate(t, doc.ID); l.State != "gone" {
			t.Errorf("locate of the Document of a closed tab: %s, want gone", l.raw)
		}
		p.wantServing(t, "locates in a closed tab")
	})
}

// Point 6: a never-issued id, a malformed id and an id of an earlier run
// are resource-not-found errors, and the provider keeps serving after each.
func TestLocateUnknownIDs(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	tb := openTab(t, env.rootCtx, env.pageA+"/plain.html")
	btn := elemtest.Find(t, elemtest.FindDoc(t, p.current(t).Root, tb.url), "Button", "Plain button")

	// Change the last character: the check letter that ends every id;
	// in any case it is an id this run did not issue (unless it was
	// issued for something else, which we check).
	forged := btn.ID[:len(btn.ID)-1] + flip(btn.ID[len(btn.ID)-1])
	all := map[string]bool{}
	elemtest.Walk(p.current(t).Root, func(e *elem, _ []*elem) { all[e.ID] = true })
	if all[forged] {
		t.Fatalf("setup: the forged id %q names another element", forged)
	}
	p.wantNotFound(t, locatePrefix+forged, "never-issued id (last character changed)")
	p.wantServing(t, "a never-issued id")

	for _, bad := range []struct{ raw, why string }{
		{"%%%", "malformed id %%%"},
		{url.PathEscape("%%%"), "malformed id %%% escaped"},
		{"a b", "malformed id with a space"},
		{url.PathEscape("a b"), "malformed id with an escaped space"},
		{strings.Repeat("x", 200), "malformed id of 200 characters"},
		{btn.ID + strings.Repeat("A", 200), "a real id with 200 characters appended"},
		{"", "empty id"},
		{"../current", "a path in place of the id"},
		{btn.ID + "/extra", "an id with a path after it"},
	} {
		p.wantNotFound(t, locatePrefix+bad.raw, bad.why)
		p.wantServing(t, bad.why)
	}
	p.wantNotFound(t, "uicontext://nothing", "a URI that matches nothing")
	p.wantNotFound(t, "uicontext://current/extra", "current with a path")
	p.wantServing(t, "unknown URIs")

	// Never issued, whatever its check: the button's id with a digit
	// more in its node number, under each of the 26 check letters. One
	// of them passes the check; the record of what this run issued
	// still says no.
	payload := btn.ID[:len(btn.ID)-1] + "0"
	for c := 'a'; c <= 'z'; c++ {
		p.wantNotFound(t, locatePrefix+payload+string(c), "a never-issued node number under every check")
	}
	p.wantServing(t, "never-issued node numbers")

	// An id of an earlier run: a second provider process on the same
	// browser issues ids for the same elements. One 26th of the time it
	// writes the same id for the button as this run (the same numbers,
	// the same check letter by chance): this run issued it too, for the
	// same button. Otherwise each run answers the other's id as
	// docs/ids.md says.
	other := startProvider(t, env.browser.httpURL())
	otherBtn := elemtest.Find(t, elemtest.FindDoc(t, other.current(t).Root, tb.url), "Button", "Plain button")
	if otherBtn.ID == btn.ID {
		if l := other.locate(t, btn.ID); l.State != "onscreen" {
			t.Errorf("two runs issued %q for the same button; locate in the other: %s, want onscreen", btn.ID, l.raw)
		}
	} else {
		p.wantNotIssuedHere(t, otherBtn.ID, "an id of another run")
		other.wantNotIssuedHere(t, btn.ID, "an id of another run")
	}
	p.wantServing(t, "an id of another run")

	// The real id still works after all that.
	if l := p.locate(t, btn.ID); l.State != "onscreen" {
		t.Errorf("locate of the real button after the bad ids: %s, want onscreen", l.raw)
	}
}

// flip returns another URI-unreserved character than c.
func flip(c byte) string {
	if c == 'a' {
		return "b"
	}
	return "a"
}

// wantNotIssuedHere locates id, an id another run issued, and wants the
// answer docs/ids.md gives: not found, unless this run issued the same
// string by chance (the same numbers, and the same check letter one time
// in 26). Then it names what this run gave those numbers: an element
// this run shows under that id, or, for a document this run has
// forgotten (its number long since given to a page another test closed),
// gone. The shared provider has numbered many documents, so its
// forgotten ones meet the other run's numbers.
func (p *provider) wantNotIssuedHere(t *testing.T, id, why string) {
	t.Helper()
	uri := locatePrefix + id
	raw, err := p.readRaw(t, uri)
	if err != nil {
		p.wantNotFound(t, uri, why)
		return
	}
	l := checkLocation(t, raw)
	root := p.current(t).Root
	shown := false
	elemtest.Walk(root, func(e *elem, _ []*elem) { shown = shown || e.ID == id })
	known := showsDocumentOf(t, root, id)
	switch {
	case shown:
		t.Logf("read %s (%s): this run issued the same string, for an element it shows: %s", uri, why, raw)
	case !known && l.State == "gone":
		t.Logf("read %s (%s): the same string as an element of a document this run forgot: %s", uri, why, raw)
	default:
		t.Errorf("read %s (%s): %s, want resource-not-found (or, one time in 26, what this run issued under that string)", uri, why, raw)
	}
}

// showsDocumentOf reports whether the tree under root holds a Document of
// the number by which the element id names its document.
func showsDocumentOf(t *testing.T, root *elem, id string) bool {
	t.Helper()
	ref, ok := mapping.Peek(id)
	if !ok || ref.Kind != mapping.KindNode {
		t.Fatalf("%q is not an element's id", id)
	}
	shown := false
	elemtest.Walk(root, func(e *elem, _ []*elem) {
		if r, ok := mapping.Peek(e.ID); ok && r.Kind == mapping.KindDocument && r.A == ref.A {
			shown = true
		}
	})
	return shown
}
