package e2e

import (
	"flag"
	"strings"
	"testing"
	"unicode/utf8"
)

// big runs the budget tests on huge pages. Each costs about 20 s, almost
// all of it Chrome's Accessibility.getFullAXTree on the whole page, so the
// default run leaves them out: go test ./e2e -run Budget -big.
var big = flag.Bool("big", false, "also run the budget tests on a 60,000-element page and a 5 MB text node (about 40 s)")

// needBig skips a test on a huge page unless -big is given.
func needBig(t *testing.T) {
	t.Helper()
	if !*big {
		t.Skip("a huge page: about 20 s of getFullAXTree; run with -big")
	}
}

// TestBudgetKeepsFocusAndHover reads a page of 60,000 elements through a
// provider started with --max-elements 1000 --max-bytes 100000 (5.6): the
// answer stays within both, marks its cuts with omitted, and still holds
// the focused field and the hovered button, which come last in reading
// order.
func TestBudgetKeepsFocusAndHover(t *testing.T) {
	needBig(t)
	p := startProvider(t, env.browser.httpURL(), "--max-elements", "1000", "--max-bytes", "100000")
	tb := openTab(t, env.rootCtx, env.pageA+"/pages/big.html")
	eval[bool](t, tb.ctx, `document.getElementById("last").focus(), document.getElementById("end").scrollIntoView(), true`)
	tb.mouseMove(t, center(rectOf(t, tb.ctx, `document.getElementById("end")`)))

	cur := p.current(t)
	if len(cur.raw) > 100000 {
		t.Errorf("answer is %d bytes, want at most 100000", len(cur.raw))
	}
	n, omitted := 0, 0
	walk(cur.Root, func(e *elem, _ []*elem) { n, omitted = n+1, omitted+e.Omitted })
	if n > 1000 {
		t.Errorf("answer has %d elements, want at most 1000", n)
	}
	if omitted < 59000 {
		t.Errorf("answer marks %d elements omitted, want the cut (about 59,000)", omitted)
	}
	doc := findDoc(t, cur.Root, tb.url)
	if f := find(t, doc, "TextField", "Last field"); !has(f, "focused") {
		t.Errorf("the focused field is there but not focused: %v", f.States)
	}
	if b := find(t, doc, "Button", "End button"); !has(b, "hovered") {
		t.Errorf("the hovered button is there but not hovered: %v", b.States)
	}
	t.Logf("%d bytes, %d elements, %d omitted", len(cur.raw), n, omitted)
}

// TestBudgetHugeText reads a page whose one text node is 5 MB with the
// default budgets: the answer is valid (checked by current), its text is
// cut at 4096 characters ending in "…", and the answer is small.
func TestBudgetHugeText(t *testing.T) {
	needBig(t)
	p := sharedProvider(t)
	tb := openTab(t, env.rootCtx, env.pageA+"/pages/huge-text.html")
	cur := p.current(t)
	doc := findDoc(t, cur.Root, tb.url)
	find(t, doc, "Button", "Top button")
	var longest string
	walk(doc, func(e *elem, _ []*elem) {
		if len(e.Title) > len(longest) {
			longest = e.Title
		}
	})
	if n := utf8.RuneCountInString(longest); n != 4096 || !strings.HasSuffix(longest, "…") || !strings.HasPrefix(longest, "word word") {
		t.Errorf("longest title: %d characters ending %q, want the text cut at 4096 ending in …", n, longest[max(0, len(longest)-8):])
	}
	if len(cur.raw) > 64<<10 {
		t.Errorf("answer is %d bytes, want it bounded by the text budget (under 64 KiB)", len(cur.raw))
	}
}
