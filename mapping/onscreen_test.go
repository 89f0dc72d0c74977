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

// A BudgetCache answers as OverBudget does, and takes the measure of a
// Document an answer before held again rather than measuring it: an
// answer whose two documents are unchanged is measured from them (both
// taken), one whose document is new measures that one, and a read after
// it takes the new one. Over a budget the cached measure is over too.
// (The measures kept are the first walk's, the bound: a tree over the
// bound is measured exactly, and anew.)
func TestBudgetCacheTakesUnchangedDocuments(t *testing.T) {
	answer := func(docs ...*Element) *Element {
		root := &Element{ID: "a", Role: "Application"}
		for i, d := range docs {
			root.Children = append(root.Children, &Element{ID: fmt.Sprintf("w%d", i), Role: "Window",
				Children: []*Element{{ID: fmt.Sprintf("t%d", i), Role: "Tab", Children: []*Element{d}}}})
		}
		return root
	}
	one, two := bigTree(30, 20, nil), bigTree(10, 5, nil)
	js, err := json.Marshal(answer(one, two))
	if err != nil {
		t.Fatal(err)
	}
	budgets := []Budget{DefaultBudget, {MaxElements: 700}, {MaxElements: 600}, {MaxBytes: len(js)}, {MaxBytes: len(js) - 1}, {MaxBytes: 3000}}
	for _, b := range budgets {
		var bc BudgetCache
		want := OverBudget(answer(one, two), b)
		if got := bc.OverBudget(answer(one, two), b); got != want {
			t.Errorf("%+v: first read over %v, want %v", b, got, want)
		}
		taken := bc.Taken()
		if got := bc.OverBudget(answer(one, two), b); got != want {
			t.Errorf("%+v: the same documents again: over %v, want %v", b, got, want)
		}
		within := func(root *Element) bool { m := measure{b: b, strLen: jsonStringBound}; return !m.over(root) }
		if within(answer(one, two)) && bc.Taken()-taken != 2 {
			t.Errorf("%+v: the same documents again: %d measures taken, want 2", b, bc.Taken()-taken)
		}
		three := bigTree(30, 21, nil)
		if got, want := bc.OverBudget(answer(one, three), b), OverBudget(answer(one, three), b); got != want {
			t.Errorf("%+v: a new document: over %v, want %v", b, got, want)
		}
		taken = bc.Taken()
		if got, want := bc.OverBudget(answer(three, two), b), OverBudget(answer(three, two), b); got != want {
			t.Errorf("%+v: a document of the read before last: over %v, want %v", b, got, want)
		}
		if within(answer(one, three)) && within(answer(three, two)) && bc.Taken()-taken != 1 {
			t.Errorf("%+v: one document of the read before: %d measures taken, want 1 (the other's was not kept)", b, bc.Taken()-taken)
		}
	}
	// A document's measure taken counts: its bytes too. Elements of
	// empty strings measure the same by the bound as exactly, so the
	// budget can sit one byte under the two documents' JSON: the first
	// read, of one document, is within the bound, and the second, with
	// the other, is over the bound with the first's measure taken, and
	// over the budget.
	flat := func() *Element {
		d := &Element{Role: roleDocument}
		for range 100 {
			d.Children = append(d.Children, &Element{})
		}
		return d
	}
	a, c := flat(), flat()
	both, err := json.Marshal(answer(a, c))
	if err != nil {
		t.Fatal(err)
	}
	b := Budget{MaxBytes: len(both) - 1}
	var bc BudgetCache
	if bc.OverBudget(answer(a), b) {
		t.Fatalf("%+v: one document of two is over", b)
	}
	if !bc.OverBudget(answer(a, c), b) || bc.Taken() != 1 {
		t.Errorf("%+v: the two documents, the first's measure taken: within, %d measures taken (want over, and 1)", b, bc.Taken())
	}
}
