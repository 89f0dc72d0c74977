package mapping

import (
	"slices"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
)

// withState returns the titles (role when untitled) of the elements that
// have state, in preorder, and fails unless they form one path from root.
func withState(t *testing.T, root *Element, state string) []string {
	t.Helper()
	var out []string
	var walk func(e *Element, parentHas bool)
	walk = func(e *Element, parentHas bool) {
		has := slices.Contains(e.States, state)
		if has {
			if e != root && !parentHas && state == "focused" {
				t.Errorf("%s %q is focused but its parent is not", e.Role, e.Title)
			}
			name := e.Title
			if name == "" {
				name = e.Role
			}
			out = append(out, name)
		}
		n := 0
		for _, c := range e.Children {
			if slices.Contains(c.States, state) {
				n++
			}
			walk(c, has)
		}
		if n > 1 {
			t.Errorf("%d children of %s %q are %s", n, e.Role, e.Title, state)
		}
	}
	walk(root, true)
	return out
}

func focusPage() *Frame {
	return page(1,
		el(ax(1, "main", ""),
			el(ax(2, "generic", ""),
				el(ax(3, "form", "Login"),
					leaf(4, "textbox", "User", "focused", true),
					leaf(5, "textbox", "Password"))),
			leaf(6, "Iframe", "Child")))
}

func TestFocusPath(t *testing.T) {
	f := focusPage()
	f.HasFocus = true
	f.Nodes[0].Properties = ax(0, "", "", "focused", true).Properties
	got := withState(t, MapFrame(f, testIDs(), 100), "focused")
	if want := []string{"Page", "Main", "Login", "User"}; !slices.Equal(got, want) {
		t.Errorf("focused = %q, want %q", got, want)
	}
}

func TestNoFocusWithoutHasFocus(t *testing.T) {
	got := withState(t, MapFrame(focusPage(), testIDs(), 100), "focused")
	if len(got) != 0 {
		t.Errorf("focused = %q, want none", got)
	}
}

func TestFocusOnDocument(t *testing.T) {
	f := page(1, leaf(1, "button", "OK"))
	f.HasFocus = true
	got := withState(t, MapFrame(f, testIDs(), 100), "focused")
	if want := []string{"Page"}; !slices.Equal(got, want) {
		t.Errorf("focused = %q, want %q", got, want)
	}
}

func TestFocusedGenericIsAGroup(t *testing.T) {
	f := page(1, el(ax(1, "generic", "Card", "focused", true), leaf(2, "StaticText", "Card")),
		el(ax(3, "generic", "Other"), leaf(4, "StaticText", "Other")))
	f.HasFocus = true
	checkShape(t, f, `
Document Page [focused] <https://example.com/>
  Group Card [focused]
  Group Other`)
}

func TestFocusInChildFrame(t *testing.T) {
	child := page(2, leaf(2001, "button", "Pay", "focused", true))
	child.HasFocus = true
	other := page(3, leaf(3001, "button", "Stale", "focused", true))
	f := focusPage()
	f.Nodes = append(f.Nodes, ax(7, "Iframe", "Other"))
	f.Nodes[0].ChildIDs = append(f.Nodes[0].ChildIDs, "7")
	f.HasFocus = true
	f.Frames = map[cdproto.BackendNodeID]*Frame{6: child, 7: other}
	got := withState(t, MapFrame(f, testIDs(), 100), "focused")
	// The parent's own focused node is stale once a child frame has focus.
	if want := []string{"Page", "Main", "Page", "Pay"}; !slices.Equal(got, want) {
		t.Errorf("focused = %q, want %q", got, want)
	}
}

func hoverPage() *Frame {
	f := page(1,
		el(ax(1, "navigation", "Menu"),
			el(ax(2, "link", "Home"), el(ax(3, "generic", ""), leaf(4, "StaticText", "Home")))),
		leaf(5, "paragraph", "Text"))
	f.Pointer = true
	return f
}

func TestHover(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chain []cdproto.BackendNodeID
		want  []string
	}{
		{"pruned node walks up", []cdproto.BackendNodeID{3, 2, 1, 1000}, []string{"Home"}},
		{"first with an AX node", []cdproto.BackendNodeID{99, 5, 1000}, []string{"Text"}},
		{"none found", []cdproto.BackendNodeID{99, 98}, []string{"Page"}},
		{"empty chain", nil, []string{"Page"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := hoverPage()
			f.Hover = tc.chain
			got := withState(t, MapFrame(f, testIDs(), 100), "hovered")
			if !slices.Equal(got, tc.want) {
				t.Errorf("hovered = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNoHoverWithoutPointer(t *testing.T) {
	f := hoverPage()
	f.Pointer = false
	f.Hover = []cdproto.BackendNodeID{2}
	if got := withState(t, MapFrame(f, testIDs(), 100), "hovered"); len(got) != 0 {
		t.Errorf("hovered = %q, want none", got)
	}
}

func TestHoverInChildFrame(t *testing.T) {
	child := page(2, leaf(2001, "button", "Pay"))
	child.Pointer, child.Hover = true, []cdproto.BackendNodeID{2001}
	f := hoverPage()
	f.Hover = []cdproto.BackendNodeID{2} // stale: the pointer is in the child
	f.Pointer = false
	f.Nodes = append(f.Nodes, ax(6, "Iframe", ""))
	f.Nodes[0].ChildIDs = append(f.Nodes[0].ChildIDs, "6")
	f.Frames = map[cdproto.BackendNodeID]*Frame{6: child}
	got := withState(t, MapFrame(f, testIDs(), 100), "hovered")
	if want := []string{"Pay"}; !slices.Equal(got, want) {
		t.Errorf("hovered = %q, want %q", got, want)
	}
}
