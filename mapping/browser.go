package mapping

// Build returns the tree of 5.5 for a browser: the Application root, a
// Window per browser window with its TabList and Tabs, and the active
// tab's Document with its content, its strings cut to budget.MaxText.
// The element and size budgets are ApplyBudget's.
func Build(b *Browser, ids *IDs, budget Budget) *Element {
	text := func(s string) string { return cut(collapse(s), budget.MaxText) }
	root := &Element{ID: ids.App(), Role: "Application", Title: text(b.Product)}
	for _, w := range b.Windows {
		we := &Element{ID: ids.Window(w.Key), Role: "Window"}
		var states []string
		if w.Focused {
			states = append(states, "focused")
			root.States = []string{"focused"}
		}
		if w.Minimized {
			states = append(states, "minimized")
		}
		we.States = states // "focused" < "minimized": already sorted
		list := &Element{ID: ids.TabList(w.Key), Role: "TabList"}
		var doc *Element
		for _, t := range w.Tabs {
			te := &Element{ID: ids.Tab(t.Key), Role: "Tab", Title: text(t.Title), URL: text(t.URL)}
			if t.Active {
				te.States = []string{"selected"}
				we.Title = te.Title
				if t.Doc != nil {
					doc = MapFrame(t.Doc, ids, budget.MaxText)
				}
			}
			list.Children = append(list.Children, te)
		}
		we.Children = append(we.Children, list)
		if doc != nil {
			we.Children = append(we.Children, doc)
		}
		root.Children = append(root.Children, we)
	}
	return root
}

// BundleFor returns the platform bundle identifier of a browser product
// (section 8), or "" when it is not known.
func BundleFor(product string) string {
	return bundles[product]
}

var bundles = map[string]string{
	"Google Chrome":  "com.google.Chrome",
	"Chromium":       "org.chromium.Chromium",
	"Microsoft Edge": "com.microsoft.edgemac",
	"Brave":          "com.brave.Browser",
	"Opera":          "com.operasoftware.Opera",
	"Vivaldi":        "com.vivaldi.Vivaldi",
}
