package mapping

import (
	"fmt"
	"testing"
)

// BenchmarkMapFrame maps generated documents of about 1,000 and 10,000
// accessibility nodes, shaped like the benchmark pages (landmarks,
// headings, paragraphs with links, lists, form fields, tables): what a
// read that cannot reuse a mapped document pays on top of fetching it.
func BenchmarkMapFrame(b *testing.B) {
	for _, sections := range []int{30, 300} {
		f := generatedFrame(sections)
		b.Run(fmt.Sprintf("%dnodes", len(f.Nodes)), func(b *testing.B) {
			ids := NewIDs()
			for b.Loop() {
				f.Mapped = nil
				MapFrame(f, ids, DefaultBudget.MaxText)
			}
		})
	}
}

// generatedFrame is a document of about 33 accessibility nodes a section.
func generatedFrame(sections int) *Frame {
	id := 1
	next := func() int { id++; return id }
	text := func(s string) *tn {
		return el(ax(next(), "StaticText", s), leaf(-next(), "InlineTextBox", s))
	}
	var kids []*tn
	for i := range sections {
		kids = append(kids, el(ax(next(), "region", fmt.Sprintf("Section %d", i)),
			el(ax(next(), "heading", fmt.Sprintf("Section %d", i), "level", 2), text(fmt.Sprintf("Section %d", i))),
			el(ax(next(), "paragraph", ""), text("Paragraph with "), el(ax(next(), "link", "a link", "focusable", true), text("a link")), text(" and more words after it.")),
			el(ax(next(), "list", ""),
				el(ax(next(), "listitem", "", "level", 1), el(ax(next(), "ListMarker", "• ")), text("One")),
				el(ax(next(), "listitem", "", "level", 1), el(ax(next(), "ListMarker", "• ")), text("Two")),
				el(ax(next(), "listitem", "", "level", 1), el(ax(next(), "ListMarker", "• ")), text("Three"))),
			el(ax(next(), "LabelText", ""), text("Field"), withValue(leaf(next(), "textbox", "Field", "focusable", true, "editable", "plaintext"), "v")),
			el(ax(next(), "checkbox", "Check", "checked", "true", "focusable", true)),
			el(ax(next(), "button", "Button", "focusable", true, "pressed", "false"), text("Button")),
			ignored(el(ax(next(), "generic", ""), el(ax(next(), "table", "Data"),
				el(ax(next(), "row", ""), el(ax(next(), "columnheader", "Name"), text("Name")), el(ax(next(), "columnheader", "Value"), text("Value"))),
				el(ax(next(), "row", ""), el(ax(next(), "cell", "a"), text("a")), el(ax(next(), "cell", "1"), text("1"))))))))
	}
	return page(1, el(ax(next(), "main", ""), kids...))
}

// BenchmarkOverBudget checks the generated documents against the default
// budget, as every read does.
func BenchmarkOverBudget(b *testing.B) {
	for _, sections := range []int{30, 300} {
		doc := MapFrame(generatedFrame(sections), NewIDs(), DefaultBudget.MaxText)
		b.Run(fmt.Sprintf("%dnodes", len(generatedFrame(sections).Nodes)), func(b *testing.B) {
			for b.Loop() {
				OverBudget(doc, DefaultBudget)
			}
		})
	}
}
