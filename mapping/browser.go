package mapping

import "slices"

// Build returns the tree of 5.5 for a browser: the Application root, a
// Window per browser window with its TabList and Tabs, and the active
// tab's Document with its content, its strings cut to budget.MaxText.
// The element and size budgets are ApplyBudgetOnScreen's.
func Build(b *Browser, ids *IDs, budget Budget) *Element {
	text := func(s string) string { return cut(collapse(s), budget.MaxText) }
	root := &Element{ID: ids.App(), Role: "Application", Title: text(b.Product)}
	for _, w := range b.Windows {
		we := &Element{ID: ids.Window(w.Key), Role: "Window"}
		if w.Unknown {
			we.Description = WindowUnknown
		}
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
			te := &Element{ID: ids.Tab(t.Key), Role: "Tab", Title: text(t.Title), URL: text(t.URL), Description: t.Unread}
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
		if w.Dialog != nil {
			we.Children = append(we.Children, dialog(w.Dialog, w.Focused, ids, text))
		}
		root.Children = append(root.Children, we)
	}
	return root
}

// dialog is the element of a JavaScript dialog (5.5): a modal Dialog
// with its message, a prompt's field and its buttons; on the focus path
// (focused) the field of a prompt, else the OK button, has the focus.
func dialog(d *Dialog, focused bool, ids *IDs, text func(string) string) *Element {
	part := func(p int, role, title string) *Element {
		return &Element{ID: ids.Dialog(d.Key, p), Role: role, Title: text(title)}
	}
	de := part(DialogSelf, "Dialog", d.Title)
	de.States = []string{"modal"}
	if d.Message != "" {
		de.Children = append(de.Children, part(DialogMessage, "Text", d.Message))
	}
	var focus *Element
	if d.Type == "prompt" {
		field := part(DialogField, "TextField", "")
		field.Value = text(d.DefaultPrompt)
		field.States = []string{"editable"}
		de.Children = append(de.Children, field)
		focus = field
	}
	ok, cancel := "OK", "Cancel"
	if d.Type == "beforeunload" {
		ok = "Leave"
	}
	okButton := part(DialogOK, "Button", ok)
	de.Children = append(de.Children, okButton)
	if d.Type != "alert" {
		de.Children = append(de.Children, part(DialogCancel, "Button", cancel))
	}
	if focus == nil {
		focus = okButton
	}
	if focused {
		de.States = []string{"focused", "modal"}
		focus.States = append([]string{"focused"}, focus.States...)
		slices.Sort(focus.States)
	}
	return de
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
