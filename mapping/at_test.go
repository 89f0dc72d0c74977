package mapping

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// HitAt takes the first candidate the answer has, with its ancestors;
// candidates it does not have (pruned, cut) are passed over.
func TestHitAt(t *testing.T) {
	link := &Element{ID: "n1.7", Role: "Link", Title: "Docs"}
	root := &Element{ID: "a0", Role: "Application", Title: "Chromium", Children: []*Element{
		{ID: "w1", Role: "Window", Title: "Shop", Children: []*Element{
			{ID: "d1", Role: "Document", Title: "Shop", Children: []*Element{
				{ID: "n1.5", Role: "Navigation", Children: []*Element{link}},
			}},
		}},
	}}
	h := HitAt(root, 12.5, 40, InPage, []string{"n1.9", "n1.7", "n1.5", "d1", "w1"})
	if h.Where != InPage || h.Match.Element != link || len(h.Match.Ancestors) != 4 || h.Match.Ancestors[3].ID != "n1.5" {
		t.Fatalf("HitAt: %+v", h)
	}
	var b strings.Builder
	if err := WriteHit(&b, h); err != nil {
		t.Fatal(err)
	}
	if want := `at 12.5,40: Link Docs #n1.7 in: Application Chromium > Window Shop > Document Shop > Navigation` + "\n"; b.String() != want {
		t.Errorf("WriteHit: %q, want %q", b.String(), want)
	}
	raw, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"x":12.5,"y":40,"where":"page","element":{"id":"n1.7","role":"Link","title":"Docs","in":[{"role":"Application","title":"Chromium"},{"role":"Window","title":"Shop"},{"role":"Document","title":"Shop"},{"role":"Navigation"}]}}`; string(raw) != want {
		t.Errorf("JSON: %s, want %s", raw, want)
	}

	if h := HitAt(root, 1, 2, InWindowFrame, []string{"w1"}); h.Where != InWindowFrame || h.Match.Element.ID != "w1" {
		t.Errorf("on the frame: %+v", h)
	}
	if h := HitAt(root, -1, -1, OffWindows, nil); h.Where != OffWindows || h.Match.Element != nil || h.Note != "" {
		t.Errorf("off every window: %+v", h)
	}
	// Candidates the answer does not have: on a page, and it says so,
	// not that no window is there.
	h = HitAt(root, 1, 1, InPage, []string{"gone"})
	raw, _ = json.Marshal(h)
	if h.Where != InPage || h.Match.Element != nil || h.Note != NotInAnswer || strings.Contains(string(raw), `"element":`) {
		t.Errorf("none in the answer: %+v, %s", h, raw)
	}
	b.Reset()
	WriteHit(&b, h)
	if want := "at 1,1: none of the elements there is in the answer\n"; b.String() != want {
		t.Errorf("WriteHit: %q, want %q", b.String(), want)
	}
}

// A hit whose element the budget cut from the answer names it, with the
// innermost element the answer keeps around it; one whose hit test
// failed says so. Neither passes for "no window is there".
func TestHitNotes(t *testing.T) {
	link := &Element{ID: "n1.7", Role: "Link", Title: "Docs"}
	nav := &Element{ID: "n1.5", Role: "Navigation", Children: []*Element{link}}
	doc := &Element{ID: "d1", Role: "Document", Title: "Shop", Children: []*Element{nav}}
	whole := &Element{ID: "a0", Role: "Application", Title: "Chromium", Children: []*Element{
		{ID: "w1", Role: "Window", Title: "Shop", Children: []*Element{doc}},
	}}
	// The answer as the budget cut it: the Navigation's link gone.
	cutNav := &Element{ID: "n1.5", Role: "Navigation", Omitted: 1}
	answer := &Element{ID: "a0", Role: "Application", Title: "Chromium", Children: []*Element{
		{ID: "w1", Role: "Window", Title: "Shop", Children: []*Element{
			{ID: "d1", Role: "Document", Title: "Shop", Children: []*Element{cutNav}},
		}},
	}}
	candidates := []string{"n1.9", "n1.7", "n1.5", "d1", "w1"}

	h := HitAt(answer, 12.5, 40, InPage, candidates)
	h.CutFrom(whole, candidates)
	if h.Where != InPage || h.Match.Element != cutNav {
		t.Fatalf("cut: %+v", h)
	}
	var b strings.Builder
	WriteHit(&b, h)
	want := `at 12.5,40: Navigation (+1 omitted) #n1.5 in: Application Chromium > Window Shop > Document Shop` + "\n" +
		`(the element there, Link Docs #n1.7, was cut from the answer by the budget)` + "\n"
	if b.String() != want {
		t.Errorf("WriteHit:\n%s\nwant\n%s", b.String(), want)
	}
	raw, _ := json.Marshal(h)
	if !strings.Contains(string(raw), `"note":"the element there, Link Docs #n1.7, was cut from the answer by the budget"`) {
		t.Errorf("JSON: %s", raw)
	}

	// Every candidate cut, the Window too: still on the page, and why.
	h = HitAt(&Element{ID: "a0", Role: "Application", Omitted: 4}, 12.5, 40, InPage, candidates)
	h.CutFrom(whole, candidates)
	b.Reset()
	WriteHit(&b, h)
	if want := "at 12.5,40: the element there, Link Docs #n1.7, was cut from the answer by the budget\n"; h.Where != InPage || b.String() != want {
		t.Errorf("all cut: %+v, %q", h, b.String())
	}

	// Nothing cut: the answer's element, no note.
	h = HitAt(whole, 12.5, 40, InPage, candidates)
	h.CutFrom(whole, candidates)
	if h.Match.Element != link || h.Note != "" {
		t.Errorf("uncut: %+v", h)
	}

	// The hit test failed after the Document: it says so.
	h = HitAt(whole, 12.5, 40, InPage, []string{"d1", "w1"})
	h.Failed(errors.New("measure the page area: context deadline exceeded"))
	b.Reset()
	WriteHit(&b, h)
	want = `at 12.5,40: Document Shop #d1 in: Application Chromium > Window Shop` + "\n" +
		"(the page's hit test failed (measure the page area: context deadline exceeded): this is the innermost element found before it failed)\n"
	if b.String() != want {
		t.Errorf("failed:\n%s\nwant\n%s", b.String(), want)
	}
}
