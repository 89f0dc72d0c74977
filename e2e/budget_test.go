package e2e

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// The budget tests read huge pages, so they cost more than the others
// (about 10 s each on two cores, almost all of it Chrome building and
// sending the accessibility tree); they run in every go test ./e2e all the
// same, because a test CI does not run proves nothing.

// TestBudgetKeepsFocusAndHover reads a page of 60,000 elements through a
// provider started with --max-elements 1000 --max-bytes 100000 (5.6): the
// answer stays within both, marks its cuts with omitted, and still holds
// the focused field, the hovered button and the rows on screen, which
// come last in reading order.
func TestBudgetKeepsFocusAndHover(t *testing.T) {
	needEnv(t)
	p := startProvider(t, env.browser.httpURL(), "--max-elements", "1000", "--max-bytes", "100000")
	tb := openTab(t, env.rootCtx, env.pageA+"/pages/big.html")
	eval[bool](t, tb.ctx, `document.getElementById("last").focus(), document.getElementById("end").scrollIntoView({block: "end"}), true`)
	tb.mouseMove(t, center(rectOf(t, tb.ctx, `document.getElementById("end")`)))
	waitFor(t, "the field focused and the button under the pointer", func() bool {
		return eval[bool](t, tb.ctx, `document.activeElement.id === "last" && document.getElementById("end").matches(":hover")`)
	})

	start := time.Now()
	cur := readAnswering(t, p, tb)
	t.Logf("read in %v", time.Since(start))
	if len(cur.raw) > 100000 {
		t.Errorf("answer is %d bytes, want at most 100000", len(cur.raw))
	}
	n, omitted := 0, 0
	elemtest.Walk(cur.Root, func(e *elem, _ []*elem) { n, omitted = n+1, omitted+e.Omitted })
	if n > 1000 {
		t.Errorf("answer has %d elements, want at most 1000", n)
	}
	if omitted < 59000 {
		t.Errorf("answer marks %d elements omitted, want the cut (about 59,000)", omitted)
	}
	doc := elemtest.FindDoc(t, cur.Root, tb.url)
	if f := elemtest.Find(t, doc, "TextField", "Last field"); !elemtest.Has(f, "focused") {
		t.Errorf("the focused field is there but not focused: %v", f.States)
	}
	if b := elemtest.Find(t, doc, "Button", "End button"); !elemtest.Has(b, "hovered") {
		t.Errorf("the hovered button is there but not hovered: %v", b.States)
	}
	// After them, what a person sees: the rows above the button, near the
	// end of reading order, which the rest would have crowded out.
	for _, y := range []string{"innerHeight / 4", "innerHeight / 2"} {
		row := eval[string](t, tb.ctx, `(() => { for (let y = `+y+`; y < innerHeight; y += 4) { const e = document.elementFromPoint(20, y); if (e && e.tagName === "P") return e.textContent; } return ""; })()`)
		if row == "" {
			t.Fatalf("setup: no row at the left of the viewport at %s", y)
		}
		if len(elemtest.FindAll(doc, "Text", row)) == 0 {
			t.Errorf("the row on screen %q is not in the answer", row)
		}
	}
	t.Logf("%d bytes, %d elements, %d omitted", len(cur.raw), n, omitted)
}

// readAnswering reads current once the tab's page answers the test's own
// script: laying out a huge page can keep it from answering for a while
// after its load, and a read meanwhile rightly says it is not responding.
// The page can go busy again at the provider's own first call (its tree
// built for a 5 MB text node), past the 1.5 s a first call may take on a
// machine loaded with other tests: a read that says so is followed by
// another, up to five, each once the page answered the test again; the
// page must be shown by then.
func readAnswering(t testing.TB, p *provider, tb *tab) *answer {
	t.Helper()
	for i := 1; ; i++ {
		eval[bool](t, tb.ctx, `true`)
		a := p.current(t)
		if answers(tb.url)(a) {
			t.Logf("the page shown by read %d after it answered", i)
			return a
		}
		d, _ := docOfTab(a.Root, tb.url)
		if i == 5 || d == nil || d.Description != mapping.NotResponding {
			t.Fatalf("read %d after the page at %s answered does not show it:\n%s", i, tb.url, elemtest.Outline(a.Root))
		}
	}
}

// answers tells whether the Document of url is there and answering.
func answers(url string) func(a *answer) bool {
	return func(a *answer) bool {
		d, _ := docOfTab(a.Root, url)
		return d != nil && d.Description != mapping.NotResponding
	}
}

// TestBudgetHugeText reads a page whose one text node is 5 MB with the
// default budgets, twice in a row: each answer is valid (checked by
// current), holds the page, its text cut at 4096 characters ending in
// "…", and is small. The second read is answered at once: the page has a
// few nodes, too few to walk (a walk's call for the 5 MB node kept Chrome
// busy for seconds, and a read meanwhile took the page for not
// responding).
func TestBudgetHugeText(t *testing.T) {
	needEnv(t)
	p := startProvider(t, env.browser.httpURL())
	tb := openTab(t, env.rootCtx, env.pageA+"/pages/huge-text.html")
	for _, read := range []string{"first", "second"} {
		start := time.Now()
		var cur *answer
		if read == "first" {
			cur = readAnswering(t, p, tb)
		} else {
			cur = p.current(t)
		}
		t.Logf("%s read in %v: %d bytes", read, time.Since(start), len(cur.raw))
		doc := elemtest.FindDoc(t, cur.Root, tb.url)
		elemtest.Find(t, doc, "Button", "Top button")
		var longest string
		elemtest.Walk(doc, func(e *elem, _ []*elem) {
			if len(e.Title) > len(longest) {
				longest = e.Title
			}
		})
		if n := utf8.RuneCountInString(longest); n != 4096 || !strings.HasSuffix(longest, "…") || !strings.HasPrefix(longest, "word word") {
			t.Errorf("%s read: longest title: %d characters ending %q, want the text cut at 4096 ending in …", read, n, longest[max(0, len(longest)-8):])
		}
		if len(cur.raw) > 64<<10 {
			t.Errorf("%s read: answer is %d bytes, want it bounded by the text budget (under 64 KiB)", read, len(cur.raw))
		}
	}
}

// The default budgets bind, with no --max-* flag: a page of over 50,000
// elements is answered with at most 50,000 and omitted counts, and a
// page whose answer would be over 8 MiB is answered under it, with
// omitted. The pages are about as small as that allows: 25,010
// paragraphs (50,020 elements), and 1,100 images each with a name and a
// description of 4,096 characters once cut (about 9 MB of JSON).
func TestDefaultBudgetsBind(t *testing.T) {
	needEnv(t)
	p := startProvider(t, env.browser.httpURL())
	count := func(e *elem) (n, omitted int) {
		elemtest.Walk(e, func(x *elem, _ []*elem) { n, omitted = n+1, omitted+x.Omitted })
		return n, omitted
	}

	t.Run("50,000 elements", func(t *testing.T) {
		tb := openTab(t, env.rootCtx, env.pageA+"/pages/big.html?rows=25010")
		start := time.Now()
		cur := readAnswering(t, p, tb)
		n, omitted := count(cur.Root)
		t.Logf("read in %v: %d bytes, %d elements, %d omitted", time.Since(start), len(cur.raw), n, omitted)
		if n > 50000 {
			t.Errorf("the answer has %d elements, want at most 50,000 (the default --max-elements)", n)
		}
		if omitted == 0 || n+omitted < 50020 {
			t.Errorf("the answer has %d elements and marks %d omitted, want the page's 50,020 and more counted, some omitted", n, omitted)
		}
		elemtest.FindDoc(t, cur.Root, tb.url)
	})

	t.Run("8 MiB", func(t *testing.T) {
		tb := openTab(t, env.rootCtx, env.pageA+"/pages/wide-text.html")
		start := time.Now()
		cur := readAnswering(t, p, tb)
		n, omitted := count(cur.Root)
		t.Logf("read in %v: %d bytes, %d elements, %d omitted", time.Since(start), len(cur.raw), n, omitted)
		if len(cur.raw) > 8<<20 {
			t.Errorf("the answer is %d bytes, want at most 8 MiB (the default --max-bytes)", len(cur.raw))
		}
		if omitted == 0 {
			t.Errorf("the answer marks nothing omitted; the page's images alone make about %d bytes", 1100*2*4096)
		}
		images := elemtest.WithRole(elemtest.FindDoc(t, cur.Root, tb.url), "Image")
		if len(images) == 0 || len(images) >= 1100 {
			t.Fatalf("the answer has %d of the page's 1,100 images, want some, cut", len(images))
		}
		for _, s := range []string{images[0].Title, images[0].Description} {
			if c := utf8.RuneCountInString(s); c != 4096 || !strings.HasSuffix(s, "…") {
				t.Errorf("an image's title or description has %d characters, want 4,096 ending in … (the default --max-text)", c)
			}
		}
		if len(cur.raw) < 6<<20 {
			t.Errorf("the answer is %d bytes: the budget was not used, but cut far below 8 MiB", len(cur.raw))
		}
	})
}
