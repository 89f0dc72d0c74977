package mapping

import (
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
)

func rootWebArea(title string) []*accessibility.Node {
	return []*accessibility.Node{{
		NodeID:           "1",
		Role:             &accessibility.Value{Type: accessibility.ValueTypeRole, Value: []byte(`"RootWebArea"`)},
		Name:             &accessibility.Value{Type: accessibility.ValueTypeComputedString, Value: []byte(`"` + title + `"`)},
		BackendDOMNodeID: 1,
	}}
}

func TestBuildMakesTheTreeOfABrowser(t *testing.T) {
	ids := NewIDs()
	b := &Browser{Product: "Chromium", Windows: []*Window{
		{Key: 1, Focused: true, Tabs: []*Tab{
			{Key: 2, Title: "One", URL: "http://a/"},
			{Key: 3, Title: "Two", URL: "http://b/", Active: true, Doc: &Frame{Doc: 4, URL: "http://b/", Nodes: rootWebArea("Two"), HasFocus: true}},
		}},
		{Key: 5, Minimized: true, Tabs: []*Tab{{Key: 6, Title: "Three", Active: true}}},
	}}
	root := Build(b, ids, DefaultBudget)
	if root.Role != "Application" || root.Title != "Chromium" || root.ID != ids.App() {
		t.Fatalf("root = %+v", root)
	}
	if len(root.Children) != 2 {
		t.Fatalf("root has %d windows, want 2", len(root.Children))
	}
	w := root.Children[0]
	if w.Role != "Window" || w.Title != "Two" || w.ID != ids.Window(1) || !slices.Contains(w.States, "focused") {
		t.Errorf("first window = %+v, want the focused Window titled by its active tab", w)
	}
	if !slices.Contains(root.States, "focused") {
		t.Errorf("root states %v: the root is on the focus path", root.States)
	}
	list := w.Children[0]
	if list.Role != "TabList" || len(list.Children) != 2 {
		t.Fatalf("first child of the window = %+v, want a TabList with two tabs", list)
	}
	if tab := list.Children[0]; tab.Role != "Tab" || tab.Title != "One" || tab.URL != "http://a/" || len(tab.States) != 0 {
		t.Errorf("background tab = %+v", tab)
	}
	if tab := list.Children[1]; !slices.Contains(tab.States, "selected") {
		t.Errorf("active tab = %+v, want selected", tab)
	}
	if len(w.Children) != 2 || w.Children[1].Role != "Document" || w.Children[1].ID != ids.Document(4) || !slices.Contains(w.Children[1].States, "focused") {
		t.Fatalf("window children = %+v, want TabList then the focused Document", w.Children)
	}
	min := root.Children[1]
	if !slices.Contains(min.States, "minimized") || slices.Contains(min.States, "focused") || len(min.Children) != 1 {
		t.Errorf("minimized window = %+v, want minimized, not focused, no Document", min)
	}
}

func TestBundleFor(t *testing.T) {
	for product, want := range map[string]string{
		"Chromium": "org.chromium.Chromium", "Google Chrome": "com.google.Chrome",
		"Microsoft Edge": "com.microsoft.edgemac", "Brave": "com.brave.Browser", "Unknown": "",
	} {
		if got := BundleFor(product); got != want {
			t.Errorf("BundleFor(%q) = %q, want %q", product, got, want)
		}
	}
}

// What the provider could not read says so where a person and a model
// read it: a Tab's, a Document's and the unknown Window's description,
// in the JSON and on their outline lines.
func TestBuildMarksWhatWasNotRead(t *testing.T) {
	ids := NewIDs()
	b := &Browser{Product: "Chromium", Windows: []*Window{
		{Key: 1, Focused: true, Tabs: []*Tab{
			{Key: 2, Title: "One", URL: "http://a/", Unread: TabNoScript},
			{Key: 3, Title: "Two", URL: "http://b/", Active: true, Doc: &Frame{Doc: 4, URL: "http://b/", Title: "Two", Unavailable: PageReadFailed, HasFocus: true}},
		}},
		{Key: 5, Unknown: true, Tabs: []*Tab{{Key: 6, Title: "Three", URL: "http://c/", Unread: TabNoWindow}}},
	}}
	var out strings.Builder
	if err := Outline(&out, Build(b, ids, DefaultBudget)); err != nil {
		t.Fatal(err)
	}
	want := `Application Chromium [focused] #` + ids.App() + `
 Window Two [focused] #` + ids.Window(1) + `
  TabList #` + ids.TabList(1) + `
   Tab One <http://a/> ("This tab could not be read: its page did not answer the provider's script.") #` + ids.Tab(2) + `
   Tab [selected] #` + ids.Tab(3) + `
  Document [focused] <http://b/> ("This page could not be read: reading its content failed.") #` + ids.Document(4) + `
 Window ("The browser did not say which window these tabs are in.") #` + ids.Window(5) + `
  TabList #` + ids.TabList(5) + `
   Tab Three <http://c/> ("This tab could not be read: the browser did not say which window it is in.") #` + ids.Tab(6) + `
`
	if got := out.String(); got != want {
		t.Errorf("outline:\n%s\nwant:\n%s", got, want)
	}
}
