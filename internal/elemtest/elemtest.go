// Package elemtest walks, searches and prints the element trees of
// package mapping (an answer of current, or any part of one), for tests
// and benchmarks: one copy of what their checks need. The program does
// not use it.
//
// Every function reads the tree in reading order: an element, then its
// children in order, each with its subtree. A nil element is an empty
// tree. The functions that take a testing.TB fail it, with the tree's
// outline, when the tree does not have what they look for.
package elemtest

import (
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// Walk calls fn for e and every element under it, in reading order, with
// the element's ancestors, root first (empty for e). fn must not keep
// ancestors: the slice is reused; PathTo returns a copy.
func Walk(e *mapping.Element, fn func(e *mapping.Element, ancestors []*mapping.Element)) {
	var rec func(e *mapping.Element, anc []*mapping.Element)
	rec = func(e *mapping.Element, anc []*mapping.Element) {
		fn(e, anc)
		anc = append(anc, e)
		for _, c := range e.Children {
			rec(c, anc)
		}
	}
	if e != nil {
		rec(e, nil)
	}
}

// All is e and every element under it, in reading order.
func All(e *mapping.Element) iter.Seq[*mapping.Element] {
	var rec func(e *mapping.Element, yield func(*mapping.Element) bool) bool
	rec = func(e *mapping.Element, yield func(*mapping.Element) bool) bool {
		if !yield(e) {
			return false
		}
		for _, c := range e.Children {
			if !rec(c, yield) {
				return false
			}
		}
		return true
	}
	return func(yield func(*mapping.Element) bool) {
		if e != nil {
			rec(e, yield)
		}
	}
}

// Count is the number of elements in the tree under e, e included.
func Count(e *mapping.Element) int {
	n := 0
	for range All(e) {
		n++
	}
	return n
}

// First returns the first element of the tree under e, e included, for
// which match is true; nil when there is none.
func First(e *mapping.Element, match func(*mapping.Element) bool) *mapping.Element {
	for x := range All(e) {
		if match(x) {
			return x
		}
	}
	return nil
}

// Select returns every element of the tree under e, e included, for
// which match is true.
func Select(e *mapping.Element, match func(*mapping.Element) bool) []*mapping.Element {
	var out []*mapping.Element
	for x := range All(e) {
		if match(x) {
			out = append(out, x)
		}
	}
	return out
}

// FindAll returns every element under e, e included, with the role and
// the title.
func FindAll(e *mapping.Element, role, title string) []*mapping.Element {
	return Select(e, func(x *mapping.Element) bool { return x.Role == role && x.Title == title })
}

// Find returns the one element under e, e included, with the role and
// the title, and fails t when there is none or more than one.
func Find(t testing.TB, e *mapping.Element, role, title string) *mapping.Element {
	t.Helper()
	all := FindAll(e, role, title)
	switch len(all) {
	case 1:
		return all[0]
	case 0:
		t.Fatalf("no %s %q under %s %q; the tree:\n%s", role, title, e.Role, e.Title, Outline(e))
	default:
		t.Fatalf("%d elements %s %q under %s %q, want one; the tree:\n%s", len(all), role, title, e.Role, e.Title, Outline(e))
	}
	return nil
}

// FindDoc returns the one Document under e, e included, whose url is
// url, and fails t when there is none or more than one.
func FindDoc(t testing.TB, e *mapping.Element, url string) *mapping.Element {
	t.Helper()
	docs := Select(e, func(x *mapping.Element) bool { return x.Role == "Document" && x.URL == url })
	return only(t, docs, "Documents with url "+url, e)
}

// WithRole returns every element under e, e included, of the role.
func WithRole(e *mapping.Element, role string) []*mapping.Element {
	return Select(e, func(x *mapping.Element) bool { return x.Role == role })
}

// WithState returns every element under e, e included, that has the
// state.
func WithState(e *mapping.Element, state string) []*mapping.Element {
	return Select(e, func(x *mapping.Element) bool { return Has(x, state) })
}

// Has reports whether e has the state.
func Has(e *mapping.Element, state string) bool { return slices.Contains(e.States, state) }

// PathTo returns the ancestors of target under root, root first; none
// when target is root or is not under root.
func PathTo(root, target *mapping.Element) []*mapping.Element {
	var out []*mapping.Element
	Walk(root, func(x *mapping.Element, anc []*mapping.Element) {
		if x == target {
			out = slices.Clone(anc)
		}
	})
	return out
}

// ParentOf returns the parent of target under root; nil for root itself
// and for an element not under root.
func ParentOf(root, target *mapping.Element) *mapping.Element {
	p := PathTo(root, target)
	if len(p) == 0 {
		return nil
	}
	return p[len(p)-1]
}

// Text returns the title, value and description of every element under
// e, e included, a line each, for checks of whether a text is anywhere.
func Text(e *mapping.Element) string {
	var b strings.Builder
	for x := range All(e) {
		b.WriteString(x.Title)
		b.WriteByte('\n')
		b.WriteString(x.Value)
		b.WriteByte('\n')
		b.WriteString(x.Description)
		b.WriteByte('\n')
	}
	return b.String()
}

// Windows returns the Window children of root (the Application).
func Windows(root *mapping.Element) []*mapping.Element {
	var out []*mapping.Element
	for _, c := range root.Children {
		if c.Role == "Window" {
			out = append(out, c)
		}
	}
	return out
}

// Tabs returns the Tabs of the TabList directly under the window w.
func Tabs(w *mapping.Element) []*mapping.Element {
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

// DocOf returns the Document directly under the window w; nil when it
// has none.
func DocOf(w *mapping.Element) *mapping.Element {
	for _, c := range w.Children {
		if c.Role == "Document" {
			return c
		}
	}
	return nil
}

// WindowWithTab returns the one Window of root that has a Tab with the
// url, and fails t when there is none or more than one.
func WindowWithTab(t testing.TB, root *mapping.Element, url string) *mapping.Element {
	t.Helper()
	wins, _ := withTab(root, url)
	return only(t, wins, "Windows with a Tab of url "+url, root)
}

// TabByURL returns the one Tab, in the TabList of a Window of root, with
// the url, and fails t when there is none or more than one.
func TabByURL(t testing.TB, root *mapping.Element, url string) *mapping.Element {
	t.Helper()
	_, tabs := withTab(root, url)
	return only(t, tabs, "Tabs with url "+url, root)
}

// withTab returns the Tabs of root's Windows that have the url, and the
// Window of each.
func withTab(root *mapping.Element, url string) (wins, tabs []*mapping.Element) {
	for _, w := range Windows(root) {
		for _, tb := range Tabs(w) {
			if tb.URL == url {
				wins, tabs = append(wins, w), append(tabs, tb)
			}
		}
	}
	return wins, tabs
}

// only returns the one element of es, the what of the tree under root,
// and fails t when es has none or more than one.
func only(t testing.TB, es []*mapping.Element, what string, root *mapping.Element) *mapping.Element {
	t.Helper()
	if len(es) != 1 {
		t.Fatalf("%d %s, want 1; the tree:\n%s", len(es), what, Outline(root))
		return nil
	}
	return es[0]
}

// outlineMax bounds an Outline, so that a failure's message stays
// readable whatever the page.
const outlineMax = 20000

// Outline is the tree under e as mapping.Outline writes it, for a
// failure's message: its first outlineMax bytes, cut at the end of a
// line, and then "…" when there was more.
func Outline(e *mapping.Element) string {
	var b strings.Builder
	mapping.Outline(&b, e) // a strings.Builder does not fail
	s := b.String()
	if len(s) <= outlineMax {
		return s
	}
	s = s[:outlineMax]
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[:i+1]
	}
	return s + "…\n"
}
