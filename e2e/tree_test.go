package e2e

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
)

// Point 3: the tree of 5.5. One Window per browser window, tabs grouped as
// Browser.getWindowForTarget groups them; each TabList holds every page tab
// of its window with the active one selected; only the active tab has a
// Document; browser_ui and worker targets are absent; a same-site and a
// cross-site iframe are Documents where they stand.
func TestTreeWindowsTabsAndFrames(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	a := openTab(t, env.rootCtx, env.pageA+"/frames.html")
	// A second tab in the same window as a, then a back to the front: b
	// is a background tab.
	b := a.openBeside(t, env.pageA+"/other.html")
	a.activate(t)
	waitFor(t, "frames.html visible and other.html hidden", func() bool {
		return visibility(t, a.ctx, a.id) == "visible" && visibility(t, a.ctx, b.id) == "hidden"
	})
	wa, wb := a.window(t), b.window(t)
	if wa.WindowID != wb.WindowID {
		t.Fatalf("setup: the second tab is in window %d, not in the first tab's window %d: there is no background tab to check", wb.WindowID, wa.WindowID)
	}
	// Wait for the worker, so that there is a worker target to leave out.
	waitFor(t, "the page's worker target", func() bool {
		infos, _ := chromedp.Targets(a.ctx)
		return slices.ContainsFunc(infos, func(in *targetInfo) bool { return in.Type == "worker" })
	})

	// What Chrome says: page targets grouped by window.
	wantGroups := map[int64][]string{}
	var nonPage []string
	infos, err := chromedp.Targets(a.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if in.Type != "page" {
			nonPage = append(nonPage, in.Type+" "+in.URL)
			continue
		}
		w := windowFor(t, a.ctx, in.TargetID)
		wantGroups[int64(w.WindowID)] = append(wantGroups[int64(w.WindowID)], in.URL)
	}
	t.Logf("non-page targets (not to be reported): %v", nonPage)

	cur := p.current(t)
	root := cur.Root

	var want, got [][]string
	for _, urls := range wantGroups {
		slices.Sort(urls)
		want = append(want, urls)
	}
	ws := elemtest.Windows(root)
	for _, w := range ws {
		var urls []string
		for _, tb := range elemtest.Tabs(w) {
			urls = append(urls, tb.URL)
		}
		slices.Sort(urls)
		got = append(got, urls)
	}
	sortGroups := func(g [][]string) { slices.SortFunc(g, func(x, y []string) int { return slices.Compare(x, y) }) }
	sortGroups(want)
	sortGroups(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Windows and their Tabs' urls, against Chrome's page targets grouped by Browser.getWindowForTarget (-want +got):\n%s\ntree:\n%s", diff, elemtest.Outline(root))
	}
	for _, c := range root.Children {
		if c.Role != "Window" {
			t.Errorf("root child %s %q: every child of the Application is a Window", c.Role, c.Title)
		}
	}
	for _, w := range ws {
		var lists int
		for _, c := range w.Children {
			if c.Role == "TabList" {
				lists++
			}
		}
		if lists != 1 {
			t.Errorf("Window %q has %d TabLists directly under it, want 1", w.Title, lists)
		}
		var selected []*mapping.Element
		for _, tb := range elemtest.Tabs(w) {
			if elemtest.Has(tb, "selected") {
				selected = append(selected, tb)
			}
		}
		if len(selected) != 1 {
			t.Errorf("Window %q has %d selected Tabs, want 1", w.Title, len(selected))
		}
	}

	win := elemtest.WindowWithTab(t, root, a.url)
	if tabs := elemtest.Tabs(win); len(tabs) != 2 {
		t.Errorf("the window of both tabs has %d Tabs, want 2: %s", len(tabs), elemtest.Outline(win))
	}
	var tabA, tabB *mapping.Element
	elemtest.Walk(root, func(e *mapping.Element, _ []*mapping.Element) {
		if e.Role == "Tab" && e.URL == a.url {
			tabA = e
		}
		if e.Role == "Tab" && e.URL == b.url {
			tabB = e
		}
	})
	if tabA == nil || tabB == nil {
		t.Fatalf("Tabs of frames.html (%v) and other.html (%v) not both found:\n%s", tabA != nil, tabB != nil, elemtest.Outline(root))
	}
	if tabA.Title != "Frames page" || !elemtest.Has(tabA, "selected") {
		t.Errorf("active Tab = %q %v, want \"Frames page\" selected", tabA.Title, tabA.States)
	}
	if tabB.Title != "Other page" {
		t.Errorf("background Tab title = %q, want \"Other page\"", tabB.Title)
	}
	if elemtest.Has(tabB, "selected") {
		t.Errorf("background Tab is selected: %v", tabB.States)
	}
	if elemtest.WindowWithTab(t, root, b.url) != win {
		t.Errorf("the background Tab is not in the Window of the active one:\n%s", elemtest.Outline(root))
	}
	if win.Title != "Frames page" {
		t.Errorf("Window title = %q, want its active tab's title \"Frames page\"", win.Title)
	}

	doc := elemtest.DocOf(win)
	if doc == nil {
		t.Fatalf("the Window of the active tab has no Document:\n%s", elemtest.Outline(win))
	}
	if doc.URL != a.url || doc.Title != "Frames page" {
		t.Errorf("Document = %q <%s>, want \"Frames page\" <%s>", doc.Title, doc.URL, a.url)
	}
	elemtest.Find(t, doc, "Heading", "Frames page")
	if s := elemtest.Text(root); strings.Contains(s, "Other heading") || strings.Contains(s, "Background content") {
		t.Errorf("the background tab's content is reported:\n%s", elemtest.Outline(root))
	}
	elemtest.Walk(root, func(e *mapping.Element, _ []*mapping.Element) {
		if e.Role == "Document" && e.URL == b.url {
			t.Errorf("a Document of the background tab is reported")
		}
	})

	// No browser_ui, worker or devtools target shows anywhere.
	elemtest.Walk(root, func(e *mapping.Element, _ []*mapping.Element) {
		if strings.HasPrefix(e.URL, "chrome://") || strings.HasPrefix(e.URL, "devtools://") || strings.HasSuffix(e.URL, "/worker.js") {
			t.Errorf("%s %q <%s> is reported; only page tabs and their frames count", e.Role, e.Title, e.URL)
		}
	})

	// The iframes are Documents inside the page, where they stand: after
	// the main button, before the paragraph that follows them.
	same := elemtest.FindDoc(t, doc, env.pageA+"/inner.html?site=same")
	cross := elemtest.FindDoc(t, doc, env.pageB+"/inner.html?site=cross")
	for _, d := range []*mapping.Element{same, cross} {
		if d.Title != "Inner page" {
			t.Errorf("iframe Document <%s> title %q, want \"Inner page\"", d.URL, d.Title)
		}
		elemtest.Find(t, d, "Heading", "Inner heading")
		elemtest.Find(t, d, "Button", "Inner button")
	}
	order := slices.Collect(elemtest.All(doc))
	iBtn := slices.Index(order, elemtest.Find(t, doc, "Button", "Main button"))
	iSame, iCross := slices.Index(order, same), slices.Index(order, cross)
	after := -1
	for i, e := range order {
		if strings.Contains(e.Title, "After the frames") {
			after = i
			break
		}
	}
	if !(iBtn < iSame && iSame < iCross && (after < 0 || iCross < after)) {
		t.Errorf("reading order: main button %d, same-site Document %d, cross-site Document %d, text after the frames %d: want them in that order", iBtn, iSame, iCross, after)
	}
}

// Point 4: roles, titles, values, levels, urls and states of 5.1 to 5.4 on
// a real form page; no value on a password field; hidden content absent;
// a button reads as one element.
func TestFormRolesAndStates(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	tb := openTab(t, env.rootCtx, env.pageA+"/form.html")
	cur := p.current(t)
	doc := elemtest.FindDoc(t, cur.Root, tb.url)
	if doc.Title != "Form page" {
		t.Errorf("Document title %q, want \"Form page\"", doc.Title)
	}

	for _, c := range []struct{ role, title string }{
		{"Banner", ""},
		{"Navigation", "Main menu"},
		{"Search", "Site search"},
		{"Main", ""},
		{"Complementary", "Side notes"},
		{"ContentInfo", ""},
		{"Form", "Profile form"},
		{"TabPanel", "General"},
	} {
		if len(elemtest.FindAll(doc, c.role, c.title)) != 1 {
			t.Errorf("want one %s %q; tree:\n%s", c.role, c.title, elemtest.Outline(doc))
		}
	}

	for _, c := range []struct {
		title string
		level int
	}{{"Account settings", 1}, {"Profile", 2}, {"Sections", 3}} {
		if h := elemtest.Find(t, doc, "Heading", c.title); h.Level != c.level {
			t.Errorf("Heading %q level %d, want %d", c.title, h.Level, c.level)
		}
	}

	if l := elemtest.Find(t, doc, "Link", "Next page"); l.URL != env.pageA+"/next.html" {
		t.Errorf("Link Next page url %q, want %q", l.URL, env.pageA+"/next.html")
	}
	if l := elemtest.Find(t, doc, "Link", "Help"); l.URL != env.pageB+"/help.html" {
		t.Errorf("Link Help url %q, want %q", l.URL, env.pageB+"/help.html")
	}

	if f := elemtest.Find(t, doc, "TextField", "Full name"); f.Value != "Ada Lovelace" {
		t.Errorf("TextField Full name value %q, want \"Ada Lovelace\"", f.Value)
	}
	if f := elemtest.Find(t, doc, "TextField", "Search terms"); f.Value != "kittens" {
		t.Errorf("search field value %q, want \"kittens\"", f.Value)
	}
	if f := elemtest.Find(t, doc, "TextField", "Email"); !elemtest.Has(f, "required") {
		t.Errorf("TextField Email states %v, want required", f.States)
	}
	pw := elemtest.Find(t, doc, "TextField", "Password")
	if pw.Value != "" {
		t.Errorf("password field carries value %q; password fields never have a value", pw.Value)
	}
	if bytes.Contains(cur.raw, []byte("hunter2secret")) {
		t.Errorf("the password's text appears in the answer")
	}
	if f := elemtest.Find(t, doc, "TextArea", "Bio"); f.Value != "Counts engines" {
		t.Errorf("TextArea Bio value %q, want \"Counts engines\"", f.Value)
	}
	if c := elemtest.Find(t, doc, "CheckBox", "Newsletter"); !elemtest.Has(c, "checked") {
		t.Errorf("CheckBox Newsletter states %v, want checked", c.States)
	}
	if c := elemtest.Find(t, doc, "CheckBox", "Offers"); elemtest.Has(c, "checked") {
		t.Errorf("CheckBox Offers states %v, want not checked", c.States)
	}
	if c := elemtest.Find(t, doc, "ComboBox", "Country"); c.Value != "Norway" {
		t.Errorf("ComboBox Country value %q, want the chosen option \"Norway\"", c.Value)
	}

	fruits := elemtest.Find(t, doc, "ListBox", "Fruits")
	if !elemtest.Has(fruits, "multiselectable") {
		t.Errorf("ListBox Fruits states %v, want multiselectable", fruits.States)
	}
	for _, c := range []struct {
		list   *mapping.Element
		option string
		sel    bool
	}{
		{fruits, "Apple", true}, {fruits, "Pear", false}, {fruits, "Plum", true},
		{elemtest.Find(t, doc, "ListBox", "Colours"), "Red", true},
		{elemtest.Find(t, doc, "ListBox", "Colours"), "Green", false},
	} {
		if o := elemtest.Find(t, c.list, "Option", c.option); elemtest.Has(o, "selected") != c.sel {
			t.Errorf("Option %q states %v, want selected=%v", c.option, o.States, c.sel)
		}
	}

	save := elemtest.Find(t, doc, "Button", "Save")
	if len(save.Children) != 0 {
		t.Errorf("Button Save has children %s; a button reads as one element", dump(save.Children))
	}
	if b := elemtest.Find(t, doc, "Button", "Archived"); !elemtest.Has(b, "disabled") {
		t.Errorf("Button Archived states %v, want disabled", b.States)
	}
	if b := elemtest.Find(t, doc, "Button", "Bold"); !elemtest.Has(b, "pressed") {
		t.Errorf("Button Bold states %v, want pressed", b.States)
	}
	if b := elemtest.Find(t, doc, "Button", "More actions"); !elemtest.Has(b, "collapsed") || elemtest.Has(b, "expanded") {
		t.Errorf("Button More actions states %v, want collapsed", b.States)
	}

	tablist := elemtest.Find(t, doc, "TabList", "Settings sections")
	if g := elemtest.Find(t, tablist, "Tab", "General"); !elemtest.Has(g, "selected") {
		t.Errorf("Tab General states %v, want selected", g.States)
	}
	if a := elemtest.Find(t, tablist, "Tab", "Advanced"); elemtest.Has(a, "selected") {
		t.Errorf("Tab Advanced states %v, want not selected", a.States)
	}

	table := elemtest.Find(t, doc, "Table", "Scores")
	elemtest.Find(t, table, "ColumnHeader", "Player")
	elemtest.Find(t, table, "Cell", "Ada")
	if rows := elemtest.WithRole(table, "Row"); len(rows) != 3 {
		t.Errorf("Table Scores has %d Rows, want 3", len(rows))
	}
	grid := elemtest.Find(t, doc, "Grid", "People")
	for _, c := range []struct {
		cell string
		sel  bool
	}{{"Grace", true}, {"Edsger", false}} {
		cell := elemtest.Find(t, grid, "Cell", c.cell)
		row := elemtest.ParentOf(grid, cell)
		if row == nil || row.Role != "Row" {
			t.Errorf("Cell %q is not inside a Row", c.cell)
			continue
		}
		if elemtest.Has(row, "selected") != c.sel {
			t.Errorf("Row of %q states %v, want selected=%v", c.cell, row.States, c.sel)
		}
	}

	outlineList := elemtest.Find(t, doc, "List", "Outline")
	items := elemtest.WithRole(outlineList, "ListItem")
	if len(items) != 2 {
		t.Fatalf("List Outline has %d ListItems, want 2:\n%s", len(items), elemtest.Outline(outlineList))
	}
	if items[0].Level != 0 || items[1].Level != 2 {
		t.Errorf("ListItem levels %d and %d, want none on the top item and 2 on the nested one", items[0].Level, items[1].Level)
	}

	s := elemtest.Text(cur.Root)
	for _, hidden := range []string{"Hidden attribute text", "Display none button", "Aria hidden button"} {
		if strings.Contains(s, hidden) {
			t.Errorf("hidden content %q is reported", hidden)
		}
	}
	elemtest.Walk(doc, func(e *mapping.Element, _ []*mapping.Element) {
		if e.Role == "Application" || e.Role == "Window" {
			t.Errorf("%s %q inside a page: those roles are the provider's own", e.Role, e.Title)
		}
		if e.Role == "Text" && e.Title != "" {
			if par := elemtest.ParentOf(doc, e); par != nil && par.Title == e.Title {
				t.Errorf("Text %q repeats its parent %s's title", e.Title, par.Role)
			}
		}
	})
}
