package mapping

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
)

// screenBrowser is a browser with one tab showing 300 paragraphs (each a
// Paragraph with its Text), a generic <div> holding text after the 150th,
// and a selected option at the end: 1+300*2+1+1 elements in the Document.
// Paragraphs 100-102 and the div are on screen.
func screenBrowser() *Browser {
	var kids []*tn
	for i := range 300 {
		kids = append(kids, el(ax(2000+i, "paragraph", ""), leaf(4000+i, "StaticText", fmt.Sprintf("row %d", i))))
		if i == 150 {
			kids = append(kids, el(ax(6000, "generic", ""), leaf(6001, "StaticText", "loose text")))
		}
	}
	kids = append(kids, el(ax(7000, "listbox", "Pick"), leaf(7001, "option", "Chosen", "selected", true)))
	f := page(1, kids...)
	f.HasFocus = true
	f.OnScreen = []cdproto.BackendNodeID{2100, 2101, 2102, 6000, 99999}
	return &Browser{Product: "Chromium", Windows: []*Window{{Key: 1, Focused: true, Tabs: []*Tab{{Key: 2, Title: "Page", Active: true, Doc: f}}}}}
}

// titles returns the titles of the Text and Option elements under e, in
// reading order.
func titles(e *Element) []string {
	var out []string
	if e.Role == roleText || e.Role == "Option" {
		out = append(out, e.Title)
	}
	for _, c := range e.Children {
		out = append(out, titles(c)...)
	}
	return out
}

func TestApplyBudgetOnScreen(t *testing.T) {
	const total = 5 + 600 + 1 + 2 // Application, Window, TabList, Tab, Document; paragraphs; div's text; listbox, option
	for _, tt := range []struct {
		max  int
		want []string
	}{
		// Application, Window, TabList, Tab, Document, ListBox, Option: 7.
		// Then the paragraphs on screen with their text, the div's text,
		// then the rest in reading order.
		{20, []string{"row 0", "row 1", "row 2", "row 100", "row 101", "row 102", "loose text", "Chosen"}},
		// The selected option comes before what is on screen.
		{8, []string{"Chosen"}},
		{9, []string{"row 100", "Chosen"}},
	} {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			ids := NewIDs()
			br := screenBrowser()
			root := Build(br, ids, DefaultBudget)
			b := Budget{MaxText: 4096, MaxElements: tt.max, MaxBytes: 1 << 20}
			if !OverBudget(root, b) {
				t.Fatal("OverBudget = false on a tree over the budget")
			}
			if !ApplyBudgetOnScreen(root, b, br, ids) {
				t.Fatal("ApplyBudgetOnScreen reports no cut")
			}
			n, omitted, _ := census(root)
			if n > tt.max || n+omitted != total {
				t.Errorf("%d elements kept, %d omitted: want at most %d kept, %d in all", n, omitted, tt.max, total)
			}
			if got := titles(root); !slices.Equal(got, tt.want) {
				t.Errorf("texts kept %q, want %q", got, tt.want)
			}
		})
	}
}

func TestApplyBudgetOnScreenWithinBudget(t *testing.T) {
	ids := NewIDs()
	br := screenBrowser()
	root := Build(br, ids, DefaultBudget)
	if OverBudget(root, DefaultBudget) {
		t.Fatal("OverBudget = true on a small tree")
	}
	if ApplyBudgetOnScreen(root, DefaultBudget, br, ids) {
		t.Error("ApplyBudgetOnScreen cut a tree within the budget")
	}
	if n, omitted, _ := census(root); n != 5+603 || omitted != 0 {
		t.Errorf("%d elements, %d omitted; want %d, 0", n, omitted, 5+603)
	}
}

// TestOverBudgetAgreesWithApplyBudget checks OverBudget against the cut on
// the budgets of TestApplyBudgetKeepsWhatMatters, on one that fits, and
// on the exact element count and JSON length of the tree and one less.
func TestOverBudgetAgreesWithApplyBudget(t *testing.T) {
	whole := bigTree(30, 20, nil)
	js, err := json.Marshal(whole)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var count func(e *Element)
	count = func(e *Element) {
		n++
		for _, c := range e.Children {
			count(c)
		}
	}
	count(whole)
	for _, b := range []Budget{
		{MaxElements: 50, MaxBytes: 8 << 20}, {MaxElements: 50000, MaxBytes: 2000}, DefaultBudget,
		{MaxElements: n}, {MaxElements: n - 1}, {MaxBytes: len(js)}, {MaxBytes: len(js) - 1},
	} {
		root := bigTree(30, 20, nil)
		over := OverBudget(root, b)
		if cut := ApplyBudget(root, b); cut != over {
			t.Errorf("%+v: OverBudget = %v, ApplyBudget cut = %v", b, over, cut)
		}
		if want := b.MaxElements > 0 && n > b.MaxElements || b.MaxBytes > 0 && len(js) > b.MaxBytes; over != want {
			t.Errorf("%+v: OverBudget = %v on %d elements, %d bytes of JSON", b, over, n, len(js))
		}
	}
}

// OverBudget's first walk bounds the JSON by the strings' lengths, each
// byte as 6 (\u003c). A tree whose every byte of text JSON escapes so
// meets the bound exactly, and is measured right on either side of it.
func TestOverBudgetAtTheBound(t *testing.T) {
	root := &Element{ID: "<>", Role: "&", Title: "\x01<", Value: "\xff", Description: ">", URL: "&&", Level: 2,
		States: []string{"<", "\x1f"}, Omitted: 3, Children: []*Element{{ID: "<", Role: ">"}, {ID: "&", Role: "\x02"}}}
	js, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	bound := measure{b: Budget{MaxBytes: 1 << 30}, strLen: jsonStringBound}
	if bound.over(root); bound.size != len(js) {
		t.Fatalf("the bound is %d bytes, the JSON %d: %s", bound.size, len(js), js)
	}
	for _, b := range []Budget{{MaxBytes: len(js)}, {MaxBytes: len(js) - 1}} {
		over := OverBudget(root, b)
		if over != (len(js) > b.MaxBytes) {
			t.Errorf("%+v: OverBudget = %v on %d bytes of JSON", b, over, len(js))
		}
		if cut := ApplyBudget(root, b); cut != over {
			t.Errorf("%+v: OverBudget = %v, ApplyBudget cut = %v", b, over, cut)
		}
	}
}
