package mapping

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/wiresize"
)

// TestBytesPerElement measures the compact answers of recorded pages
// (testdata/*.json; corpus-* are pages of the e2e corpus, recorded with
// axrecord from e2e/testdata/pages) with ids of a real key, and logs the
// bytes per element beyond the text fields and beyond the text content
// (the keys "title", "url"… counted as cost). The field names of §5.1 alone cost
// about 35 bytes an element beyond the text fields on these pages
// ({"id":"","role":"Text"}, children, states, commas), which are dense
// with widgets and states by design; with their 4- and 5-character ids
// they measure 38.8 (42 with the 7- and 8-character ids of before). The
// pages of the bench, shaped like ordinary pages, measure under 40, the
// project's target (BenchmarkAnswerSize in bench/). This test guards the
// corpus against growth.
func TestBytesPerElement(t *testing.T) {
	recs, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	var all wiresize.Report
	for _, rec := range recs {
		if strings.HasSuffix(rec, ".golden.json") {
			continue
		}
		f := loadFrame(t, rec)
		f.NodeBase = f.Nodes[0].BackendDOMNodeID // as the provider sets it
		raw, err := json.Marshal(MapFrame(f, NewIDs(), DefaultBudget.MaxText))
		if err != nil {
			t.Fatal(err)
		}
		r, err := wiresize.Measure(raw)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d elements; per element %.1f bytes beyond the text fields, %.1f beyond the text",
			filepath.Base(rec), r.Elements, r.BeyondFields(), r.BeyondText())
		all = all.Add(r)
	}
	t.Logf("all: %d elements; per element %.1f bytes beyond the text fields, %.1f beyond the text", all.Elements, all.BeyondFields(), all.BeyondText())
	if all.BeyondFields() >= 40 {
		t.Errorf("%.1f bytes per element beyond the text fields, want under 40", all.BeyondFields())
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
