package mapping

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree is Application > Window > Document > (Main > (Heading, Button), Footer (+3 omitted)).
func tree() *Element {
	return &Element{ID: "a", Role: "Application", Title: "Chromium", Children: []*Element{
		{ID: "w", Role: "Window", Title: `Shop "A"`, Children: []*Element{
			{ID: "d", Role: "Document", Title: "Shop", Children: []*Element{
				{ID: "m", Role: "Main", Children: []*Element{
					{ID: "h", Role: "Heading", Title: "Cart", Level: 1},
					{ID: "b", Role: "Button", Title: "Pay"},
				}},
				{ID: "f", Role: "Footer", Omitted: 3},
			}},
		}},
	}}
}

func ids(es []*Element) []string {
	var s []string
	for _, e := range es {
		s = append(s, e.ID)
	}
	return s
}

func TestFind(t *testing.T) {
	root := tree()
	for _, tc := range []struct {
		id        string
		ancestors []string
	}{{"a", nil}, {"w", []string{"a"}}, {"b", []string{"a", "w", "d", "m"}}, {"f", []string{"a", "w", "d"}}} {
		e, above := Find(root, tc.id)
		if e == nil || e.ID != tc.id {
			t.Errorf("Find %s: %v", tc.id, e)
		}
		if diff := cmp.Diff(tc.ancestors, ids(above)); diff != "" {
			t.Errorf("Find %s ancestors (-want +got):\n%s", tc.id, diff)
		}
	}
	if e, above := Find(root, "x"); e != nil || above != nil {
		t.Errorf("Find x: %v %v, want nothing", e, above)
	}
	if e, _ := Find(nil, "a"); e != nil {
		t.Errorf("Find in nil: %v", e)
	}
}

func outlineOf(t *testing.T, e *Element) string {
	t.Helper()
	var b strings.Builder
	if err := Outline(&b, e); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestCut(t *testing.T) {
	root := tree()
	before := outlineOf(t, root)
	for _, tc := range []struct {
		depth int
		want  string
	}{
		{0, "Application Chromium (+9 omitted) #a\n"},
		{1, "Application Chromium #a\n Window \"Shop \\\"A\\\"\" (+8 omitted) #w\n"},
		{3, `Application Chromium #a
 Window "Shop \"A\"" #w
  Document Shop #d
   Main (+2 omitted) #m
   Footer (+3 omitted) #f
`},
		{4, before},
		{-1, before},
	} {
		if got := outlineOf(t, Cut(root, tc.depth)); got != tc.want {
			t.Errorf("Cut %d:\n%s\nwant:\n%s", tc.depth, got, tc.want)
		}
	}
	if Cut(root, -1) != root {
		t.Errorf("Cut -1 copied the tree")
	}
	// The tree cut is never changed: answers share their elements.
	if got := outlineOf(t, root); got != before {
		t.Errorf("Cut changed the tree:\n%s\nwas:\n%s", got, before)
	}
	if Cut(nil, 2) != nil {
		t.Errorf("Cut nil is not nil")
	}
}

func TestOutlineIn(t *testing.T) {
	root := tree()
	m, above := Find(root, "m")
	var b strings.Builder
	if err := OutlineIn(&b, above, Cut(m, 0)); err != nil {
		t.Fatal(err)
	}
	want := "in: Application Chromium > Window \"Shop \\\"A\\\"\" > Document Shop\nMain (+2 omitted) #m\n"
	if got := b.String(); got != want {
		t.Errorf("OutlineIn:\n%s\nwant:\n%s", got, want)
	}
	// A Paragraph with nothing but its role and id, which an outline of
	// its parent writes without a line, has its line as the root, under
	// its ancestors; cut, it has its line and what was left out.
	root.Children[0].Children[0].Children[0].Children = append(root.Children[0].Children[0].Children[0].Children,
		&Element{ID: "p", Role: "Paragraph", Children: []*Element{{ID: "t", Role: "Text", Title: "Thanks."}}})
	if got, want := outlineOf(t, root.Children[0].Children[0].Children[0]), "Main #m\n Heading Cart level=1 #h\n Button Pay #b\n \"Thanks.\"\n"; got != want {
		t.Errorf("Outline of Main:\n%s\nwant:\n%s", got, want)
	}
	p, above := Find(root, "p")
	b.Reset()
	OutlineIn(&b, above, p)
	want = "in: Application Chromium > Window \"Shop \\\"A\\\"\" > Document Shop > Main\nParagraph #p\n \"Thanks.\"\n"
	if got := b.String(); got != want {
		t.Errorf("OutlineIn of a Paragraph:\n%s\nwant:\n%s", got, want)
	}
	if got, want := outlineOf(t, Cut(root.Children[0].Children[0].Children[0], 1)), "Main #m\n Heading Cart level=1 #h\n Button Pay #b\n Paragraph (+1 omitted) #p\n"; got != want {
		t.Errorf("Outline of Main cut at 1:\n%s\nwant:\n%s", got, want)
	}
	b.Reset()
	OutlineIn(&b, nil, root)
	if got := b.String(); got != outlineOf(t, root) {
		t.Errorf("OutlineIn without ancestors:\n%s", got)
	}
}
