package mapping

import (
	"fmt"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
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

// BenchmarkScreen cuts generated documents of about 10,000 and 50,000
// accessibility nodes to the elements of two sections on screen, a new
// screen each time: without a memo (every element looked at), and with
// one (the same Document scrolled, from its index): what a read of the
// screen right after a scroll pays in the mapping.
func BenchmarkScreen(b *testing.B) {
	for _, sections := range []int{300, 1500} {
		f := generatedFrame(sections)
		ids := NewIDs()
		br := &Browser{Windows: []*Window{{Key: 1, Tabs: []*Tab{{Key: 2, Active: true, Doc: f}}}}}
		root := Build(br, ids, DefaultBudget)
		// The DOM elements of each section: 33 accessibility nodes a
		// section, in order (generatedFrame).
		var nodes []int64
		for _, n := range f.Nodes {
			if n.BackendDOMNodeID > 0 {
				nodes = append(nodes, int64(n.BackendDOMNodeID))
			}
		}
		for _, indexed := range []bool{false, true} {
			name := fmt.Sprintf("%dnodes", len(f.Nodes))
			var memo *ScreenMemo
			if indexed {
				name += "/index"
				memo = &ScreenMemo{}
				Screen(root, br, memo) // the Document's first screen; the index is made at its second
			}
			b.Run(name, func(b *testing.B) {
				k := 0
				for b.Loop() {
					k = (k + 1) % (sections - 2)
					f.OnScreen = nil
					for _, id := range nodes[k*30 : k*30+60] {
						f.OnScreen = append(f.OnScreen, cdproto.BackendNodeID(id))
					}
					if Screen(root, br, memo) == nil {
						b.Fatal("no screen")
					}
				}
				if memo != nil && memo.Indexed == 0 {
					b.Fatal("no screen was answered from the index")
				}
			})
		}
	}
}
