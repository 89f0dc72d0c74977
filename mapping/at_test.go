package mapping

import (
	"encoding/json"
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
	if want := `at 12.5,40: Link "Docs" #n1.7 in: Application "Chromium" > Window "Shop" > Document "Shop" > Navigation` + "\n"; b.String() != want {
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
	for _, h := range []*Hit{HitAt(root, -1, -1, OffWindows, nil), HitAt(root, 1, 1, InPage, []string{"gone"})} {
		raw, _ := json.Marshal(h)
		if h.Where != OffWindows || h.Match.Element != nil || strings.Contains(string(raw), "element") {
			t.Errorf("nothing there: %+v, %s", h, raw)
		}
	}
}
