package elemtest_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// tree is an Application with two windows: the first's active tab shows
// a page with a focused field, the second's a page with two buttons of
// one title.
func tree() *mapping.Element {
	el := func(id, role, title string, kids ...*mapping.Element) *mapping.Element {
		return &mapping.Element{ID: id, Role: role, Title: title, Children: kids}
	}
	tab := func(id, url string) *mapping.Element {
		e := el(id, "Tab", url)
		e.URL = url
		return e
	}
	doc := func(id, url string, kids ...*mapping.Element) *mapping.Element {
		e := el(id, "Document", "", kids...)
		e.URL = url
		return e
	}
	field := el("f", "TextField", "Name")
	field.Value, field.States = "Ada", []string{"editable", "focused"}
	d1 := doc("d1", "http://a/", el("h", "Heading", "Form"), field)
	d1.States = []string{"focused"}
	w1 := el("w1", "Window", "A", el("l1", "TabList", "", tab("t1", "http://a/"), tab("t2", "http://b/")), d1)
	w1.States = []string{"focused"}
	w2 := el("w2", "Window", "C", el("l2", "TabList", "", tab("t3", "http://c/")),
		doc("d3", "http://c/", el("b1", "Button", "Go"), el("b2", "Button", "Go")))
	root := el("app", "Application", "Browser", w1, w2)
	root.States = []string{"focused"}
	return root
}

func ids(es []*mapping.Element) string {
	var s []string
	for _, e := range es {
		s = append(s, e.ID)
	}
	return strings.Join(s, " ")
}

func TestWalkAndAll(t *testing.T) {
	root := tree()
	var order, paths []string
	elemtest.Walk(root, func(e *mapping.Element, anc []*mapping.Element) {
		order = append(order, e.ID)
		paths = append(paths, ids(anc))
	})
	want := "app w1 l1 t1 t2 d1 h f w2 l2 t3 d3 b1 b2"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("Walk's order: %s, want %s", got, want)
	}
	if got := ids(slices.Collect(elemtest.All(root))); got != want {
		t.Errorf("All's order: %s, want %s", got, want)
	}
	if paths[0] != "" || paths[7] != "app w1 d1" || paths[13] != "app w2 d3" {
		t.Errorf("Walk's ancestors of app, f and b2: %q %q %q", paths[0], paths[7], paths[13])
	}
	for e := range elemtest.All(root) {
		if e.ID == "t1" {
			break // All stops when told
		}
	}
	if n := elemtest.Count(root); n != 14 {
		t.Errorf("Count: %d, want 14", n)
	}
	if n := elemtest.Count(nil); n != 0 {
		t.Errorf("Count(nil): %d, want 0", n)
	}
	elemtest.Walk(nil, func(*mapping.Element, []*mapping.Element) { t.Error("Walk(nil) called fn") })
}

func TestSearches(t *testing.T) {
	root := tree()
	field := elemtest.Find(t, root, "TextField", "Name")
	if field.ID != "f" {
		t.Fatalf("Find: %s, want f", field.ID)
	}
	for _, c := range []struct {
		what, got, want string
	}{
		{"FindAll", ids(elemtest.FindAll(root, "Button", "Go")), "b1 b2"},
		{"FindAll of none", ids(elemtest.FindAll(root, "Button", "Stop")), ""},
		{"First", elemtest.First(root, func(e *mapping.Element) bool { return e.Role == "Tab" }).ID, "t1"},
		{"Select", ids(elemtest.Select(root, func(e *mapping.Element) bool { return e.URL != "" })), "t1 t2 d1 t3 d3"},
		{"WithRole", ids(elemtest.WithRole(root, "Document")), "d1 d3"},
		{"WithState", ids(elemtest.WithState(root, "focused")), "app w1 d1 f"},
		{"PathTo", ids(elemtest.PathTo(root, field)), "app w1 d1"},
		{"PathTo the root", ids(elemtest.PathTo(root, root)), ""},
		{"ParentOf", elemtest.ParentOf(root, field).ID, "d1"},
		{"FindDoc", elemtest.FindDoc(t, root, "http://c/").ID, "d3"},
		{"Windows", ids(elemtest.Windows(root)), "w1 w2"},
		{"Tabs", ids(elemtest.Tabs(elemtest.Windows(root)[0])), "t1 t2"},
		{"DocOf", elemtest.DocOf(elemtest.Windows(root)[1]).ID, "d3"},
		{"WindowWithTab", elemtest.WindowWithTab(t, root, "http://b/").ID, "w1"},
		{"TabByURL", elemtest.TabByURL(t, root, "http://c/").ID, "t3"},
		{"Has", fmt.Sprint(elemtest.Has(field, "editable"), elemtest.Has(field, "hovered")), "true false"},
		{"Text", elemtest.Text(field), "Name\nAda\n\n"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.what, c.got, c.want)
		}
	}
	if e := elemtest.First(root, func(e *mapping.Element) bool { return e.Role == "Link" }); e != nil {
		t.Errorf("First of no match: %s, want nil", e.ID)
	}
	if p := elemtest.ParentOf(root, &mapping.Element{}); p != nil {
		t.Errorf("ParentOf an element not in the tree: %s, want nil", p.ID)
	}
}

// fatal records what a helper failed with.
type fatal struct {
	testing.TB
	msg string
}

func (f *fatal) Helper() {}
func (f *fatal) Fatalf(format string, args ...any) {
	if f.msg == "" {
		f.msg = fmt.Sprintf(format, args...)
	}
}

func TestFailures(t *testing.T) {
	root := tree()
	for _, c := range []struct {
		what string
		call func(t testing.TB) *mapping.Element
		want string
	}{
		{"Find of none", func(t testing.TB) *mapping.Element { return elemtest.Find(t, root, "Button", "Stop") }, `no Button "Stop" under Application "Browser"`},
		{"Find of two", func(t testing.TB) *mapping.Element { return elemtest.Find(t, root, "Button", "Go") }, `2 elements Button "Go" under Application "Browser", want one`},
		{"FindDoc", func(t testing.TB) *mapping.Element { return elemtest.FindDoc(t, root, "http://b/") }, "0 Documents with url http://b/, want 1"},
		{"WindowWithTab", func(t testing.TB) *mapping.Element { return elemtest.WindowWithTab(t, root, "http://d/") }, "0 Windows with a Tab of url http://d/, want 1"},
		{"TabByURL", func(t testing.TB) *mapping.Element { return elemtest.TabByURL(t, root, "http://d/") }, "0 Tabs with url http://d/, want 1"},
	} {
		f := &fatal{TB: t}
		if e := c.call(f); e != nil {
			t.Errorf("%s returned %s, want nil", c.what, e.ID)
		}
		if !strings.HasPrefix(f.msg, c.want) || !strings.Contains(f.msg, "the tree:\nApplication Browser [focused] #app\n") {
			t.Errorf("%s failed with %q, want %q and the tree's outline", c.what, f.msg, c.want)
		}
	}
}

func TestOutline(t *testing.T) {
	root := tree()
	var b strings.Builder
	if err := mapping.Outline(&b, root); err != nil {
		t.Fatal(err)
	}
	if got := elemtest.Outline(root); got != b.String() {
		t.Errorf("Outline:\n%s\nwant mapping.Outline's:\n%s", got, b.String())
	}
	if got, want := elemtest.Outline(elemtest.Find(t, root, "TextField", "Name")), `TextField Name = "Ada" [editable focused] #f`+"\n"; got != want {
		t.Errorf("Outline of one element: %q, want %q", got, want)
	}

	// A tree too big for a message is cut after a whole line.
	big := &mapping.Element{ID: "big", Role: "List"}
	for i := range 2000 {
		big.Children = append(big.Children, &mapping.Element{ID: fmt.Sprint(i), Role: "ListItem", Title: strings.Repeat("x", 20)})
	}
	got := elemtest.Outline(big)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	last := lines[len(lines)-2]
	if len(got) > 20000+len("…\n") || lines[len(lines)-1] != "…" || !strings.HasPrefix(last, ` ListItem x`) || !strings.Contains(last, `x #`) {
		t.Errorf("Outline of %d elements: %d bytes ending %q, want at most 20000, whole lines, then …", elemtest.Count(big), len(got), got[max(0, len(got)-80):])
	}
}
