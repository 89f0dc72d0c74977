package e2e

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// answer is one checked answer of current with its raw JSON.
type answer struct {
	*mapping.Current
	raw []byte
}

// location is one checked answer of locate.
type location struct {
	*mapping.Location
	raw []byte
}

// descriptorAnswer is one checked descriptor.
type descriptorAnswer struct {
	*mapping.Descriptor
	raw []byte
}

// walk calls fn for every element under (and including) e with the path of
// its ancestors, root first.
func walk(e *mapping.Element, fn func(e *mapping.Element, ancestors []*mapping.Element)) {
	var rec func(e *mapping.Element, anc []*mapping.Element)
	rec = func(e *mapping.Element, anc []*mapping.Element) {
		fn(e, anc)
		anc = append(anc, e)
		for _, c := range e.Children {
			rec(c, anc)
		}
	}
	rec(e, nil)
}

// findAll returns every element under e with the role and title.
func findAll(e *mapping.Element, role, title string) []*mapping.Element {
	var out []*mapping.Element
	walk(e, func(x *mapping.Element, _ []*mapping.Element) {
		if x.Role == role && x.Title == title {
			out = append(out, x)
		}
	})
	return out
}

// find returns the one element under e with the role and title, failing
// the test when there is none or more than one.
func find(t testing.TB, e *mapping.Element, role, title string) *mapping.Element {
	t.Helper()
	all := findAll(e, role, title)
	switch len(all) {
	case 1:
		return all[0]
	case 0:
		t.Fatalf("no %s %q under %s %q; the tree:\n%s", role, title, e.Role, e.Title, outline(e))
	default:
		t.Fatalf("%d elements %s %q under %s %q, want one; the tree:\n%s", len(all), role, title, e.Role, e.Title, outline(e))
	}
	return nil
}

// findDoc returns the one Document under e whose url is url.
func findDoc(t testing.TB, e *mapping.Element, url string) *mapping.Element {
	t.Helper()
	var out []*mapping.Element
	walk(e, func(x *mapping.Element, _ []*mapping.Element) {
		if x.Role == "Document" && x.URL == url {
			out = append(out, x)
		}
	})
	if len(out) != 1 {
		t.Fatalf("%d Documents with url %s, want 1; the tree:\n%s", len(out), url, outline(e))
	}
	return out[0]
}

// pathTo returns the ancestors of target under root (root first), or nil.
func pathTo(root, target *mapping.Element) []*mapping.Element {
	var out []*mapping.Element
	walk(root, func(x *mapping.Element, anc []*mapping.Element) {
		if x == target {
			out = slices.Clone(anc)
		}
	})
	return out
}

// parentOf returns the parent of target under root.
func parentOf(root, target *mapping.Element) *mapping.Element {
	p := pathTo(root, target)
	if len(p) == 0 {
		return nil
	}
	return p[len(p)-1]
}

// withState returns every element under e that carries the state.
func withState(e *mapping.Element, state string) []*mapping.Element {
	var out []*mapping.Element
	walk(e, func(x *mapping.Element, _ []*mapping.Element) {
		if slices.Contains(x.States, state) {
			out = append(out, x)
		}
	})
	return out
}

func has(e *mapping.Element, state string) bool { return slices.Contains(e.States, state) }

// textUnder returns every title and value under e, for "is this text
// anywhere" checks.
func textUnder(e *mapping.Element) string {
	var b strings.Builder
	walk(e, func(x *mapping.Element, _ []*mapping.Element) {
		b.WriteString(x.Title)
		b.WriteByte('\n')
		b.WriteString(x.Value)
		b.WriteByte('\n')
		b.WriteString(x.Description)
		b.WriteByte('\n')
	})
	return b.String()
}

// windows returns the Window children of the root.
func windows(root *mapping.Element) []*mapping.Element {
	var out []*mapping.Element
	for _, c := range root.Children {
		if c.Role == "Window" {
			out = append(out, c)
		}
	}
	return out
}

// tabsOf returns the Tab children of the TabList directly under a window.
func tabsOf(w *mapping.Element) []*mapping.Element {
	var out []*mapping.Element
	for _, c := range w.Children {
		if c.Role == "TabList" {
			for _, tb := range c.Children {
				if tb.Role == "Tab" {
					out = append(out, tb)
				}
			}
		}
	}
	return out
}

// docOf returns the Document directly under a window, or nil.
func docOf(w *mapping.Element) *mapping.Element {
	for _, c := range w.Children {
		if c.Role == "Document" {
			return c
		}
	}
	return nil
}

// windowWithTab returns the Window whose TabList has a Tab with the url.
func windowWithTab(t testing.TB, root *mapping.Element, url string) *mapping.Element {
	t.Helper()
	var out []*mapping.Element
	for _, w := range windows(root) {
		for _, tb := range tabsOf(w) {
			if tb.URL == url {
				out = append(out, w)
			}
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d Windows with a Tab of url %s, want 1; the tree:\n%s", len(out), url, outline(root))
	}
	return out[0]
}

// outline prints a tree as the indented outline a person reads.
func outline(e *mapping.Element) string {
	var b strings.Builder
	walk(e, func(x *mapping.Element, anc []*mapping.Element) {
		if len(anc) > 40 {
			return
		}
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", len(anc)), x.Role)
		if x.Title != "" {
			fmt.Fprintf(&b, " %q", x.Title)
		}
		if x.Value != "" {
			fmt.Fprintf(&b, " value=%q", x.Value)
		}
		if x.URL != "" {
			fmt.Fprintf(&b, " <%s>", x.URL)
		}
		if x.Level != 0 {
			fmt.Fprintf(&b, " level=%d", x.Level)
		}
		if len(x.States) > 0 {
			fmt.Fprintf(&b, " %v", x.States)
		}
		fmt.Fprintf(&b, " #%s\n", x.ID)
	})
	if b.Len() > 20000 {
		return b.String()[:20000] + "\n…"
	}
	return b.String()
}

// rect is a rectangle in CSS px or screen points.
type rect struct{ X, Y, W, H float64 }

func (r rect) String() string {
	return fmt.Sprintf("{x %.2f y %.2f w %.2f h %.2f}", r.X, r.Y, r.W, r.H)
}

func (r rect) offset(dx, dy float64) rect { return rect{r.X + dx, r.Y + dy, r.W, r.H} }

func fromMapping(m *mapping.Rect) rect { return rect{m.X, m.Y, m.Width, m.Height} }

// near reports whether two rectangles agree within tol on every side.
func near(a, b rect, tol float64) bool {
	return math.Abs(a.X-b.X) <= tol && math.Abs(a.Y-b.Y) <= tol &&
		math.Abs(a.W-b.W) <= tol && math.Abs(a.H-b.H) <= tol
}

type elem = mapping.Element

// tabByURL returns the one browser Tab (in a window's TabList) with the url.
func tabByURL(t testing.TB, root *mapping.Element, url string) *mapping.Element {
	t.Helper()
	var out []*mapping.Element
	for _, w := range windows(root) {
		for _, tb := range tabsOf(w) {
			if tb.URL == url {
				out = append(out, tb)
			}
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d Tabs with url %s, want 1; the tree:\n%s", len(out), url, outline(root))
	}
	return out[0]
}
