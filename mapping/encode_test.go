package mapping

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
)

// encodingJSON is what AppendJSON must write: encoding/json's Encoder
// without HTML escaping, the newline trimmed.
func encodingJSON(t testing.TB, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestAppendJSONIsEncodingJSON(t *testing.T) {
	cur := &Current{Protocol: "1.0", Instance: "i-1", Root: &Element{
		ID: "a", Role: "Application", Title: "Chromium", States: []string{"focused"},
		Children: []*Element{
			{ID: "b", Role: "Document", Title: `quote " back \ slash <b>&amp;</b>`, URL: "http://x/?a=1&b=<2>", Level: 2, Omitted: 3},
			{ID: "c", Role: "TextField", Value: "tab\there\nnew\rline\b\f\x00\x1f\x7f", Description: "bad \xff utf8 \u2028 \u2029 é 漢 🙂"},
			{ID: "d", Role: "Group", States: []string{}, Children: []*Element{}},
		},
	}}
	if got, want := cur.AppendJSON(nil), encodingJSON(t, cur); !bytes.Equal(got, want) {
		t.Errorf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
	}
	if got, want := (&Current{}).AppendJSON(nil), encodingJSON(t, &Current{}); !bytes.Equal(got, want) {
		t.Errorf("empty: AppendJSON %s, encoding/json %s", got, want)
	}
}

// FuzzAppendString holds the string encoding to encoding/json's on any
// bytes a page's text can hold.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\", "\x00\x01\x1f\x7f", "\xff\xfe", "\u2028\u2029", "é漢🙂", "<>&", "a\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := &Element{ID: s, Role: s, Title: s, States: []string{s}}
		if got, want := e.AppendJSON(nil), encodingJSON(t, e); !bytes.Equal(got, want) {
			t.Errorf("%q: AppendJSON %s, encoding/json %s", s, got, want)
		}
	})
}

// A DocumentCache writes what AppendJSON writes, copying the JSON of each
// outermost Document the answer before had (the same element), and keeps
// those of the last answer only.
func TestDocumentCache(t *testing.T) {
	doc := func(id, title string, kids ...*Element) *Element {
		return &Element{ID: id, Role: "Document", Title: title, Children: kids}
	}
	answer := func(docs ...*Element) *Current {
		var wins []*Element
		for i, d := range docs {
			wins = append(wins, &Element{ID: "w" + strconv.Itoa(i), Role: "Window", Children: []*Element{{ID: "l", Role: "TabList"}, d}})
		}
		return &Current{Protocol: "1.0", Instance: "i", Root: &Element{ID: "a", Role: "Application", Children: wins}}
	}
	d1 := doc("d1", `one "1"`, &Element{ID: "x", Role: "Group", Children: []*Element{doc("d1a", "inner")}})
	d2, d3 := doc("d2", "two"), doc("d3", "three")
	var dc DocumentCache
	for i, step := range []struct {
		cur    *Current
		copied int // so far
	}{
		{answer(d1, d2), 0},
		{answer(d1, d3), 1},     // d1 unchanged: copied
		{answer(d2, d1, d1), 3}, // d2 was not in the answer before: written again; d1 twice
	} {
		if got, want := dc.AppendJSON([]byte("x"), step.cur), append([]byte("x"), step.cur.AppendJSON(nil)...); !bytes.Equal(got, want) {
			t.Errorf("answer %d:\n%s\nwant\n%s", i, got, want)
		}
		if dc.copied != step.copied {
			t.Errorf("after answer %d, %d documents copied, want %d", i, dc.copied, step.copied)
		}
	}
	if len(dc.docs) != 2 || dc.docs[d1] == nil || dc.docs[d2] == nil {
		t.Errorf("kept the JSON of %d documents, want d1 and d2 of the last answer", len(dc.docs))
	}
}

// BenchmarkDocumentCache writes an answer of about 18,000 elements and a
// megabyte, as a 50k page gives: written whole, and copied by a
// DocumentCache from the answer before (its document unchanged).
func BenchmarkDocumentCache(b *testing.B) {
	doc := &Element{ID: "d1", Role: "Document", Title: "Big"}
	for i := range 600 {
		g := &Element{ID: "g" + strconv.Itoa(i), Role: "Group"}
		for j := range 30 {
			g.Children = append(g.Children, &Element{ID: "n" + strconv.Itoa(i*100+j), Role: "Link", Title: "Link " + strconv.Itoa(j) + ` of "section"`, URL: "https://example.com/a?b=c"})
		}
		doc.Children = append(doc.Children, g)
	}
	cur := &Current{Protocol: "1.0", Instance: "i", Root: &Element{ID: "a", Role: "Application", Children: []*Element{{ID: "w", Role: "Window", Children: []*Element{doc}}}}}
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			cur.AppendJSON(make([]byte, 0, 4096))
		}
	})
	b.Run("copied", func(b *testing.B) {
		var dc DocumentCache
		dc.AppendJSON(nil, cur)
		for b.Loop() {
			dc.AppendJSON(make([]byte, 0, 4096), cur)
		}
		if dc.Copied() == 0 {
			b.Fatal("nothing copied")
		}
	})
}
