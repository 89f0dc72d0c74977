package mapping

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// overhead measures e's compact JSON: it returns its number of elements,
// the bytes that are not text content (the JSON-escaped title, value,
// description and url), and the bytes that are not text fields (those
// strings with their quotes and keys: `,"title":"…"`). The rest is the
// element's own cost: braces, id, role, level, states, omitted, children,
// commas.
func overhead(t *testing.T, e *Element) (elems, noText, noFields int) {
	t.Helper()
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	text, fields := 0, 0
	var count func(e *Element)
	count = func(e *Element) {
		elems++
		for key, s := range map[string]string{"title": e.Title, "value": e.Value, "description": e.Description, "url": e.URL} {
			if s != "" {
				b, _ := json.Marshal(s)
				text += len(b) - 2
				fields += len(`,"":`) + len(key) + len(b)
			}
		}
		for _, c := range e.Children {
			count(c)
		}
	}
	count(e)
	return elems, len(raw) - text, len(raw) - fields
}

// TestBytesPerElement measures the compact answers of recorded pages
// (testdata/*.json; corpus-* are pages of the e2e corpus, recorded with
// axrecord from e2e/testdata/pages) with ids of a real key, and logs the
// bytes per element beyond the text fields and beyond the text content
// (the keys "title", "url"… counted as cost). Issue 3 asks for under 40;
// 5.1's field names alone cost about 33 bytes an element beyond the text
// fields ({"id":"","role":"Text"}, children, states, commas), so that
// leaves about 6 characters for an id holding a document, a node and an
// authenticator. With 9-character ids (5 of them the authenticator, see
// macChars) the corpus measures about 44; the test guards that against
// growth.
func TestBytesPerElement(t *testing.T) {
	recs, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	var elems, noText, noFields int
	for _, rec := range recs {
		if strings.HasSuffix(rec, ".golden.json") {
			continue
		}
		doc := MapFrame(loadFrame(t, rec), NewIDs(), DefaultBudget.MaxText)
		n, a, b := overhead(t, doc)
		t.Logf("%s: %d elements; per element %.1f bytes beyond the text fields, %.1f beyond the text",
			filepath.Base(rec), n, float64(b)/float64(n), float64(a)/float64(n))
		elems, noText, noFields = elems+n, noText+a, noFields+b
	}
	perField, perText := float64(noFields)/float64(elems), float64(noText)/float64(elems)
	t.Logf("all: %d elements; per element %.1f bytes beyond the text fields, %.1f beyond the text", elems, perField, perText)
	if perField >= 45 {
		t.Errorf("%.1f bytes per element beyond the text fields, want under 45", perField)
	}
}

// TestHugeTextIsCut maps a text node of 5 MB with the default text budget:
// it is one Text element cut to 4096 characters.
func TestHugeTextIsCut(t *testing.T) {
	f := page(1, el(ax(1, "paragraph", ""), leaf(2, "StaticText", strings.Repeat("word ", 1<<20))))
	doc := MapFrame(f, testIDs(), DefaultBudget.MaxText)
	raw, _ := json.Marshal(doc)
	title := doc.Children[0].Children[0].Title
	if n := len([]rune(title)); n != 4096 || !strings.HasSuffix(title, "…") {
		t.Errorf("text of %d characters ending %q, want 4096 ending in …", n, title[len(title)-8:])
	}
	if len(raw) > 5000 {
		t.Errorf("answer of %d bytes, want about 4 KB", len(raw))
	}
}
