package mapping

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/google/go-cmp/cmp"
)

// val returns an accessibility value holding v as JSON.
func val(v any) *accessibility.Value {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return &accessibility.Value{Type: accessibility.ValueTypeString, Value: b}
}

// ax returns a node with AX id and backend id id, role and name, and
// properties given as name, value pairs.
func ax(id int, role, name string, props ...any) *accessibility.Node {
	n := &accessibility.Node{
		NodeID:           accessibility.NodeID(fmt.Sprint(id)),
		BackendDOMNodeID: cdproto.BackendNodeID(id),
		Role:             val(role),
	}
	if name != "" {
		n.Name = val(name)
	}
	for i := 0; i+1 < len(props); i += 2 {
		n.Properties = append(n.Properties, &accessibility.Property{
			Name: accessibility.PropertyName(props[i].(string)), Value: val(props[i+1])})
	}
	return n
}

// tn is a node of a test tree with its children.
type tn struct {
	n    *accessibility.Node
	kids []*tn
}

// el returns the test node of n with children.
func el(n *accessibility.Node, children ...*tn) *tn {
	for _, c := range children {
		n.ChildIDs = append(n.ChildIDs, c.n.NodeID)
		c.n.ParentID = n.NodeID
	}
	return &tn{n, children}
}

// flat returns the nodes of the tree under t in preorder.
func (t *tn) flat() []*accessibility.Node {
	out := []*accessibility.Node{t.n}
	for _, c := range t.kids {
		out = append(out, c.flat()...)
	}
	return out
}

// page returns document num (AX and DOM ids num*1000 and up for the root)
// with the given content.
func page(num uint64, children ...*tn) *Frame {
	root := el(ax(int(num)*1000, "RootWebArea", "Page"), children...)
	return &Frame{Doc: num, URL: "https://example.com/", Nodes: root.flat()}
}

// leaf is el with no children.
func leaf(id int, role, name string, props ...any) *tn { return el(ax(id, role, name, props...)) }

// shape is a tree without ids, as a person reads what the mapping made:
// every element's line of the outline in full, Texts too, urls whole,
// two spaces of indent a level.
func shape(e *Element) string {
	var out []string
	var walk func(e *Element, depth int)
	walk = func(e *Element, depth int) {
		line := string(appendLine(nil, e, nil))
		out = append(out, strings.Repeat("  ", depth)+line[:strings.LastIndex(line, " #")])
		for _, c := range e.Children {
			walk(c, depth+1)
		}
	}
	walk(e, 0)
	return strings.Join(out, "\n")
}

func mapShape(t *testing.T, f *Frame, maxText int) string {
	t.Helper()
	return shape(MapFrame(f, testIDs(), maxText))
}

func checkShape(t *testing.T, f *Frame, want string) {
	t.Helper()
	got := mapShape(t, f, 100)
	want = strings.TrimSpace(want)
	if diff := cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n")); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func ignored(t *tn) *tn { t.n.Ignored = true; return t }

func withValue(t *tn, v any) *tn { t.n.Value = val(v); return t }

func TestPruning(t *testing.T) {
	f := page(1, el(ax(1, "main", ""),
		el(ax(2, "generic", "Labelled generic"),
			el(ax(10, "StaticText", "inside"), leaf(-11, "InlineTextBox", "inside")),
			leaf(14, "LineBreak", "\n"),
			ignored(el(ax(13, "none", ""), ignored(leaf(12, "StaticText", "secret"))))),
		el(ax(15, "ListMarker", "1. "), ignored(leaf(-16, "none", ""))),
		leaf(17, "StaticText", "  "),
		el(ax(3, "group", "Options"), leaf(18, "StaticText", "one")),
		el(ax(4, "group", ""), leaf(19, "StaticText", "two")),
		el(ax(5, "strong", ""), leaf(20, "StaticText", "bold")),
		leaf(6, "Legend", "", "disabled", true),
		el(ax(7, "form", ""), leaf(21, "StaticText", "in form")),
		leaf(8, "region", "News"),
		leaf(22, "region", ""),
		el(ax(9, "application", ""), leaf(23, "StaticText", "app")),
		leaf(24, "application", "Board"),
	))
	checkShape(t, f, `
Document Page <https://example.com/>
  Main
    Group Labelled generic
      Text inside
    Group Options
      Text one
    Text two
    Text bold
    Group [disabled]
    Text in form
    Region News
    Text app
    Group Board`)
}

func TestHiddenSubtreeIsNotReported(t *testing.T) {
	f := page(1, ignored(el(ax(1, "generic", ""),
		ignored(el(ax(2, "button", "Hidden"), ignored(leaf(3, "StaticText", "Hidden")))))))
	checkShape(t, f, `Document Page <https://example.com/>`)
}

func TestButtonIsOneElement(t *testing.T) {
	f := page(1,
		el(ax(1, "button", "OK"), leaf(2, "StaticText", "OK")),
		el(ax(3, "button", "Save draft"), leaf(4, "StaticText", "Save"), leaf(5, "StaticText", " draft")),
		el(ax(6, "button", "Close"), leaf(7, "StaticText", "×")),
		el(ax(8, "link", "Home"), el(ax(9, "generic", ""), leaf(10, "StaticText", "Home"))),
		el(ax(11, "table", "Prices"), el(ax(12, "caption", ""), leaf(13, "StaticText", "Prices")), leaf(14, "row", "")),
	)
	checkShape(t, f, `
Document Page <https://example.com/>
  Button OK
  Button Save draft
  Button Close
    Text ×
  Link Home
  Table Prices
    Row`)
}

func TestPasswordHasNoValue(t *testing.T) {
	for _, masked := range []string{"•••••", "●●●", "• • •"} {
		t.Run(masked, func(t *testing.T) {
			f := page(1, withValue(el(ax(1, "textbox", "Password", "editable", "plaintext"),
				el(ax(2, "generic", "", "editable", "plaintext"),
					leaf(3, "StaticText", masked, "editable", "plaintext"))), masked))
			checkShape(t, f, `
Document Page <https://example.com/>
  TextField Password`)
		})
	}
}

func TestValues(t *testing.T) {
	f := page(1,
		withValue(leaf(1, "textbox", "Name", "editable", "plaintext", "multiline", false), "  Ada \n Lovelace "),
		withValue(el(ax(2, "textbox", "Notes", "editable", "plaintext", "multiline", true),
			el(ax(20, "generic", "", "editable", "plaintext"),
				leaf(21, "StaticText", "line one", "editable", "plaintext"),
				leaf(22, "LineBreak", "\n", "editable", "plaintext"),
				leaf(23, "StaticText", "line two", "editable", "plaintext"))), "line one\nline two"),
		withValue(leaf(3, "slider", "Volume"), 7.50),
		withValue(leaf(4, "spinbutton", "Size", "valuetext", "medium"), 2),
		withValue(leaf(5, "progressbar", "Upload"), 40),
		withValue(el(ax(6, "combobox", "Country", "expanded", false),
			el(ax(7, "MenuListPopup", ""), leaf(8, "option", "Italy", "selected", true))), "Italy"),
		withValue(leaf(9, "link", "Home", "url", "https://example.com/home"), "https://example.com/home"),
		withValue(leaf(10, "button", "Go"), "ignored"),
	)
	checkShape(t, f, `
Document Page <https://example.com/>
  TextField Name = "Ada Lovelace"
  TextArea Notes = "line one line two"
  Slider Volume = "7.5"
  SpinButton Size = "medium"
  ProgressBar Upload = "40"
  ComboBox Country = "Italy" [collapsed]
  Link Home <https://example.com/home>
  Button Go`)
}

func TestStates(t *testing.T) {
	f := page(1,
		leaf(1, "checkbox", "a", "checked", "true", "required", true, "invalid", "true"),
		leaf(2, "checkbox", "b", "checked", "mixed", "disabled", true),
		leaf(3, "radio", "c", "checked", "false", "invalid", "false"),
		leaf(4, "button", "d", "pressed", "true"),
		leaf(5, "button", "e", "expanded", true),
		leaf(6, "treeitem", "f", "level", 2, "expanded", false, "selected", true),
		leaf(7, "tab", "g", "selected", false),
		leaf(8, "dialog", "h", "modal", true, "busy", true),
		leaf(9, "listbox", "i", "multiselectable", true, "readonly", true),
		leaf(10, "combobox", "j", "editable", "plaintext"),
		leaf(11, "textbox", "k", "editable", "plaintext", "readonly", true),
		leaf(12, "option", "l", "checked", "true"),
		leaf(13, "menuitemcheckbox", "m", "checked", "true"),
		leaf(14, "switch", "n", "checked", "true", "invalid", "spelling"),
	)
	checkShape(t, f, `
Document Page <https://example.com/>
  CheckBox a [checked invalid required]
  CheckBox b [disabled mixed]
  RadioButton c
  Button d [pressed]
  Button e [expanded]
  TreeItem f [collapsed selected] level=2
  Tab g
  Dialog h [busy modal]
  ListBox i [multiselectable readonly]
  ComboBox j [editable]
  TextField k [readonly]
  Option l
  MenuItem m [checked]
  Switch n [checked invalid]`)
}

func TestContentEditable(t *testing.T) {
	f := page(1, withValue(el(ax(1, "generic", "Notes", "editable", "richtext"),
		leaf(2, "StaticText", "Some ", "editable", "richtext"),
		el(ax(3, "generic", "", "editable", "richtext"), leaf(4, "StaticText", "text", "editable", "richtext"))),
		"Some text"))
	checkShape(t, f, `
Document Page <https://example.com/>
  TextArea Notes = "Some text"`)
}

func TestLevels(t *testing.T) {
	f := page(1,
		el(ax(1, "list", ""),
			el(ax(2, "listitem", ""), leaf(3, "StaticText", "top"),
				el(ax(4, "list", ""), el(ax(5, "listitem", ""), leaf(6, "StaticText", "deep"))))),
		el(ax(7, "list", ""), leaf(8, "listitem", "Chrome says", "level", 3)),
		leaf(9, "heading", "Title", "level", 3),
		leaf(10, "treeitem", "Node"),
	)
	checkShape(t, f, `
Document Page <https://example.com/>
  List
    ListItem
      Text top
      List
        ListItem level=2
          Text deep
  List
    ListItem Chrome says level=3
  Heading Title level=3
  TreeItem Node level=1`)
}

func TestWhitespaceAndCut(t *testing.T) {
	f := page(1, leaf(1, "heading", "  Hello \n\t  wide   world ", "level", 1),
		leaf(2, "link", "ünïcödé text", "url", "https://example.com/a/very/long/path"))
	f.Nodes[0].Name = val("  ")
	checkShape(t, f, `
Document <https://example.com/>
  Heading Hello wide world level=1
  Link ünïcödé text <https://example.com/a/very/long/path>`)
	got := mapShape(t, f, 8)
	want := strings.Join([]string{
		`Document <https:/…>`,
		`  Heading Hello w… level=1`,
		`  Link ünïcödé… <https:/…>`,
	}, "\n")
	if got != want {
		t.Errorf("cut at 8:\n%s\nwant\n%s", got, want)
	}
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"abc", 3, "abc"}, {"abcd", 3, "ab…"}, {"äöüß", 2, "ä…"}, {"abc", 1, "…"}, {"abc", 0, "abc"},
	} {
		if got := cut(tc.in, tc.max); got != tc.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestIDs(t *testing.T) {
	ids := testIDs()
	text := ax(2, "StaticText", "text box")
	text.NodeID, text.BackendDOMNodeID = "-42", 0
	dup := ax(1, "button", "twin")
	dup.NodeID = "77"
	f := page(3, el(ax(1, "paragraph", ""), el(text)), el(dup))
	got := MapFrame(f, ids, 100)
	want := []Ref{
		{Kind: KindDocument, A: 3},
		{Kind: KindNode, A: 3, B: 1},
		{Kind: KindAXOnly, A: 3, B: -42},
		{Kind: KindAXOnly, A: 3, B: 77},
	}
	var refs []Ref
	var walk func(e *Element)
	walk = func(e *Element) {
		r, err := ids.Parse(e.ID)
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		refs = append(refs, r)
		for _, c := range e.Children {
			walk(c)
		}
	}
	walk(got)
	if diff := cmp.Diff(want, refs); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

func TestFramesAreStitched(t *testing.T) {
	child := page(2, leaf(2001, "link", "Inner", "url", "https://ads.example/"))
	child.URL = "https://ads.example/"
	f := page(1, leaf(1, "paragraph", "Before"), leaf(5, "Iframe", "Ad"), leaf(6, "Iframe", "Missing"))
	f.Frames = map[cdproto.BackendNodeID]*Frame{5: child}
	checkShape(t, f, `
Document Page <https://example.com/>
  Paragraph Before
  Document Page <https://ads.example/>
    Link Inner <https://ads.example/>`)
}

// A framed document without a title of its own is titled by the iframe's
// accessible name (its title attribute), which is what a screen reader
// says of it; one with a title keeps it.
func TestUntitledFrameTakesTheIframesName(t *testing.T) {
	untitled := &Frame{Doc: 2, URL: "about:srcdoc", Nodes: el(ax(2000, "RootWebArea", ""), leaf(2001, "paragraph", "Inside")).flat()}
	titled := page(3, leaf(3001, "paragraph", "Other"))
	titled.URL = "https://ads.example/"
	f := page(1, leaf(5, "Iframe", "Ad"), leaf(6, "Iframe", "Weather"))
	f.Frames = map[cdproto.BackendNodeID]*Frame{5: untitled, 6: titled}
	checkShape(t, f, `
Document Page <https://example.com/>
  Document Ad <about:srcdoc>
    Paragraph Inside
  Document Page <https://ads.example/>
    Paragraph Other`)
}

func TestRowNamedByItsCells(t *testing.T) {
	f := page(1, el(ax(1, "grid", "Inbox"),
		el(ax(2, "row", "AdaHello"), leaf(3, "gridcell", "Ada"), leaf(4, "gridcell", "Hello")),
		el(ax(5, "row", "Starred"), leaf(6, "gridcell", "Bob"))))
	checkShape(t, f, `
Document Page <https://example.com/>
  Grid Inbox
    Row
      Cell Ada
      Cell Hello
    Row Starred
      Cell Bob`)
}

func TestValueTextAndDescription(t *testing.T) {
	f := page(1,
		leaf(1, "slider", "Volume", "valuetext", "7 of 10"),
		withValue(leaf(2, "slider", "Balance"), 3),
		withValue(leaf(3, "spinbutton", "Floor"), 2),
		leaf(4, "SvgRoot", ""),
		leaf(5, "SvgRoot", "Chart"),
	)
	f.Nodes[1].Description = val("Volume")
	f.Nodes[3].Description = val("Which floor to go to")
	f.ValueText = map[cdproto.BackendNodeID]string{1: "Loud", 3: "Second floor"}
	checkShape(t, f, `
Document Page <https://example.com/>
  Slider Volume = "Loud"
  Slider Balance = "3"
  SpinButton Floor = "Second floor" ("Which floor to go to")
  Image Chart`)
}

func TestBusyAsNumber(t *testing.T) {
	n := ax(1, "generic", "")
	n.Properties = []*accessibility.Property{{Name: "busy", Value: &accessibility.Value{Type: "boolean", Value: []byte("1")}}}
	checkShape(t, page(1, el(n, leaf(2, "StaticText", "Loading"))), `
Document Page <https://example.com/>
  Group [busy]
    Text Loading`)
}

// TestNodeBase: a node's id carries its backend DOM node id from the
// frame's NodeBase, so the page read late in a renderer process's life,
// with large backend ids, gets the same short ids as the page read first.
func TestNodeBase(t *testing.T) {
	ids := testIDs()
	fresh := MapFrame(page(1, leaf(2, "button", "Go"), leaf(3, "link", "Home")), ids, 100)
	aged := page(1, leaf(2, "button", "Go"), leaf(3, "link", "Home"))
	for _, n := range aged.Nodes {
		n.BackendDOMNodeID += 250000
	}
	aged.NodeBase = 250000
	if diff := cmp.Diff(fresh, MapFrame(aged, ids, 100)); diff != "" {
		t.Errorf("the aged page's answer differs (-fresh +aged):\n%s", diff)
	}
	button := fresh.Children[0]
	if r, ok := Peek(button.ID); !ok || r.Kind != KindNode || r.B != 2 || len(button.ID) != 3 {
		t.Errorf("the button's id %q names %+v, want the node 2 from the base, in 3 characters", button.ID, r)
	}
	aged.NodeBase = 0
	if got := MapFrame(aged, ids, 100).Children[0].ID; len(got) != 6 {
		t.Errorf("without the base, the button's id is %q, want 6 characters", got)
	}
}
