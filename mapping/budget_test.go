package mapping

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"
)

// bigTree returns a Document with groups Group 0…Group groups-1, each
// with per Text children: 1+groups*(per+1) elements. The text (g, c) is
// focused, hovered or selected as marks says.
func bigTree(groups, per int, marks map[[2]int]string) *Element {
	root := &Element{ID: "d", Role: roleDocument, Title: "Big", States: []string{"focused"}}
	for g := range groups {
		ge := &Element{ID: fmt.Sprintf("g%d", g), Role: roleGroup, Title: fmt.Sprintf("Group %d", g)}
		for c := range per {
			te := &Element{ID: fmt.Sprintf("t%d.%d", g, c), Role: roleText, Title: fmt.Sprintf("text %d.%d", g, c)}
			if s, ok := marks[[2]int{g, c}]; ok {
				te.States = []string{s}
				if s == "focused" {
					ge.States = []string{s}
				}
			}
			ge.Children = append(ge.Children, te)
		}
		root.Children = append(root.Children, ge)
	}
	return root
}

// census returns the number of elements under e and the sum of their
// omitted counts, and the ids of the elements with a state.
func census(e *Element) (n, omitted int, marked []string) {
	n, omitted = 1, e.Omitted
	if len(e.States) > 0 {
		marked = append(marked, e.ID)
	}
	for _, c := range e.Children {
		cn, co, cm := census(c)
		n, omitted, marked = n+cn, omitted+co, append(marked, cm...)
	}
	return n, omitted, marked
}

func TestApplyBudgetKeepsWhatMatters(t *testing.T) {
	marks := map[[2]int]string{{250, 150}: "focused", {299, 198}: "hovered", {200, 5}: "selected", {10, 3}: "selected"}
	const total = 1 + 300*200
	for _, b := range []Budget{
		{MaxElements: 50, MaxBytes: 8 << 20},
		{MaxElements: 50000, MaxBytes: 2000},
		{MaxElements: 12, MaxBytes: 1 << 20},
	} {
		t.Run(fmt.Sprintf("%d elements %d bytes", b.MaxElements, b.MaxBytes), func(t *testing.T) {
			root := bigTree(300, 199, marks)
			start := time.Now()
			ApplyBudget(root, b)
			t.Logf("ApplyBudget on %d elements: %v", total, time.Since(start))
			n, omitted, marked := census(root)
			if n > b.MaxElements {
				t.Errorf("%d elements kept, budget %d", n, b.MaxElements)
			}
			if js, _ := json.Marshal(root); len(js) > b.MaxBytes {
				t.Errorf("%d bytes kept, budget %d", len(js), b.MaxBytes)
			}
			if n+omitted != total {
				t.Errorf("kept %d + omitted %d = %d, want %d", n, omitted, n+omitted, total)
			}
			want := []string{"d", "t10.3", "t200.5", "g250", "t250.150", "t299.198"}
			if !slices.Equal(marked, want) {
				t.Errorf("elements with states = %q, want %q", marked, want)
			}
		})
	}
}

func TestApplyBudgetWithinBudgetIsNoOp(t *testing.T) {
	root := bigTree(3, 3, nil)
	ApplyBudget(root, DefaultBudget)
	if n, omitted, _ := census(root); n != 13 || omitted != 0 {
		t.Errorf("got %d elements, %d omitted; want 13, 0", n, omitted)
	}
}

func TestApplyBudgetOmittedCounts(t *testing.T) {
	tree := func() *Element {
		leaf := func(id string) *Element { return &Element{ID: id, Role: roleText, Title: id} }
		return &Element{ID: "root", Role: roleDocument, Children: []*Element{
			{ID: "A", Role: roleGroup, Children: []*Element{leaf("a1"), leaf("a2")}},
			{ID: "B", Role: roleGroup, Children: []*Element{leaf("b1")}},
			leaf("C"),
		}}
	}
	// Reading order keeps a prefix of the preorder.
	root := tree()
	ApplyBudget(root, Budget{MaxElements: 4})
	got := shape(root)
	want := "Document (+3 omitted)\n  Group\n    Text a1\n    Text a2"
	if got != want {
		t.Errorf("prefix:\n%s\nwant\n%s", got, want)
	}
	// A selected element comes first, with its ancestors.
	root = tree()
	root.Children[1].Children[0].States = []string{"selected"}
	ApplyBudget(root, Budget{MaxElements: 4})
	got = shape(root)
	want = "Document (+1 omitted)\n  Group (+2 omitted)\n  Group\n    Text b1 [selected]"
	if got != want {
		t.Errorf("selected:\n%s\nwant\n%s", got, want)
	}
	// A second cut adds to the counts of the first.
	ApplyBudget(root, Budget{MaxElements: 1})
	if got, want := shape(root), "Document (+6 omitted)"; got != want {
		t.Errorf("second cut: %s, want %s", got, want)
	}
}

// ownSize measures an element's JSON without encoding it: it must be
// what encoding/json writes, escapes and all.
func TestOwnSize(t *testing.T) {
	texts := []string{"", "plain", "é ✓ 漢字", `quote " and \ slash`, "<b>&amp;</b>", "tab\there\nline", "\u2028sep\u2029", "bad \xff byte", "emoji 😀", "\x00ctl", "slash/ok"}
	var elems []*Element
	for i, s := range texts {
		elems = append(elems,
			&Element{ID: "D.abc" + s, Role: "Button"},
			&Element{ID: "x", Role: "Heading", Title: s, Level: i - 3},
			&Element{ID: "y", Role: "Link", Title: s, Value: s, Description: s, URL: s, States: []string{"focused", s}},
			&Element{ID: "z", Role: "Text", Title: s, States: []string{}, Omitted: 7, Children: []*Element{{ID: "c", Role: "Text"}}},
		)
	}
	for _, e := range elems {
		c := *e
		c.Children, c.Omitted = nil, 0
		b, err := json.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		if got := ownSize(e); got != len(b) {
			t.Errorf("ownSize = %d, encoding/json writes %d bytes: %s", got, len(b), b)
		}
	}
}

// A cut leaves the elements it was given as they were: a document handed
// back whole from the last read is in the answer given then too, which a
// host may still be reading. The cut tree has copies where it differs.
func TestApplyBudgetLeavesTheElementsItWasGivenAsTheyWere(t *testing.T) {
	doc := bigTree(30, 9, map[[2]int]string{{20, 3}: "selected"})
	before, _ := json.Marshal(doc)
	earlier := &Element{ID: "a", Role: "Application", Children: []*Element{{ID: "w1", Role: "Window", Children: []*Element{doc}}}}
	root := &Element{ID: "a", Role: "Application", Children: []*Element{{ID: "w1", Role: "Window", Children: []*Element{doc}}}}
	if !ApplyBudget(root, Budget{MaxElements: 40}) {
		t.Fatal("nothing cut")
	}
	if after, _ := json.Marshal(doc); string(after) != string(before) {
		t.Error("the cut changed the document it was given")
	}
	if got, _ := json.Marshal(earlier.Children[0].Children[0]); string(got) != string(before) {
		t.Error("the answer given before changed")
	}
	n, omitted, marked := census(root)
	if n > 40 || n+omitted != 3+30*10 {
		t.Errorf("the cut tree has %d elements and %d omitted, want at most 40 and %d in all", n, omitted, 3+30*10)
	}
	if !slices.Contains(marked, "t20.3") {
		t.Errorf("the selected element is not in the cut tree: %v", marked)
	}
	if cut := root.Children[0].Children[0]; cut == doc || cut.Omitted == 0 {
		t.Error("the cut tree's document is the one given, or omits nothing")
	}
	// What no cut reached is shared, not copied.
	kept := root.Children[0].Children[0].Children[0]
	if kept != doc.Children[0] {
		t.Error("a group the cut kept whole was copied")
	}
}

// ApplyBudget is applyBudget with nothing on screen.
func ApplyBudget(root *Element, b Budget) bool { return applyBudget(root, b, nil) }
