package mapping

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/google/go-cmp/cmp"
)

// screenTree is a window whose Document holds a list of six links and a
// combo box with two options; which of them are on screen is up to the
// test, by the DOM elements of their ids (document 7, NodeBase 100).
func screenTree(ids *IDs, on ...int64) (*Element, *Browser) {
	node := func(b int64) string { return ids.Node(7, b) }
	link := func(b int64, title string) *Element {
		return &Element{ID: node(b), Role: "Link", Title: title, URL: "https://a.example/" + title,
			Children: []*Element{{ID: node(b + 1), Role: "Text", Title: title}}}
	}
	list := &Element{ID: node(10), Role: "List"}
	for i, t := range []string{"one", "two", "three", "four", "five", "six"} {
		list.Children = append(list.Children, &Element{ID: node(int64(20 + 10*i)), Role: "ListItem", Children: []*Element{link(int64(21+10*i), t)}})
	}
	combo := &Element{ID: node(90), Role: "ComboBox", Title: "Size", Value: "S", Children: []*Element{
		{ID: node(91), Role: "Option", Title: "S"}, {ID: node(92), Role: "Option", Title: "M"}}}
	doc := &Element{ID: ids.Document(7), Role: "Document", Title: "Shop", URL: "https://a.example/", Children: []*Element{list, combo}}
	tab := &Element{ID: ids.Tab(2), Role: "Tab", Title: "Shop", URL: "https://a.example/", States: []string{"selected"}}
	win := &Element{ID: ids.Window(1), Role: "Window", Title: "Shop", Children: []*Element{
		{ID: ids.TabList(1), Role: "TabList", Children: []*Element{tab}}, doc}}
	root := &Element{ID: ids.App(), Role: "Application", Title: "Chromium", Children: []*Element{win}}
	f := &Frame{Doc: 7, NodeBase: 100}
	for _, b := range on {
		f.OnScreen = append(f.OnScreen, cdproto.BackendNodeID(100+b))
	}
	br := &Browser{Windows: []*Window{{Key: 1, Tabs: []*Tab{{Key: 2, Active: true, Doc: f}}}}}
	return root, br
}

// The screen answer holds what is on screen with its ancestors, a
// link's text with its link, and counts what it left out, where: before
// the first child it shows (above), after the last (below), or beside
// it; the tree it was made from is not changed.
func TestScreen(t *testing.T) {
	ids := NewIDs()
	// On screen: the list, items three and four with their links, the
	// combo box (its options have no box: a closed <select>).
	root, br := screenTree(ids, 10, 40, 41, 50, 51, 90)
	before := outlineOf(t, root)
	got := Screen(root, br, nil)
	if outlineOf(t, root) != before {
		t.Fatal("Screen changed the tree it was given")
	}
	var lines []string
	for l := range strings.SplitSeq(strings.TrimSpace(outlineOf(t, got)), "\n") {
		if i := strings.LastIndex(l, " #"); i > 0 {
			l = l[:i]
		}
		lines = append(lines, l)
	}
	want := []string{
		`Application Chromium`,
		` Window Shop`,
		`  TabList`,
		`   Tab [selected]`,
		`  Document <https://a.example/>`,
		`   List`,
		`    … 6 above`,
		`    Link <three>`,
		`     "three"`,
		`    Link <four>`,
		`     "four"`,
		`    … 6 below`,
		`   ComboBox Size = "S"`,
		`    … 2 off screen`,
		offHint,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("the screen's outline:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	list := got.Children[0].Children[1].Children[0]
	if list.Omitted != 12 || list.Off == nil || *list.Off != (Off{Above: 6, Below: 6}) {
		t.Errorf("the list: omitted %d, off %+v; want 12, 6 above and 6 below", list.Omitted, list.Off)
	}
	if js := string(list.AppendJSON(nil)); !strings.Contains(js, `"omitted":12`) || strings.Contains(js, "above") {
		t.Errorf("the list's JSON %s: want omitted 12 and nothing of where", js)
	}
	// The list item kept whole is the tree's own.
	if list.Children[0] != root.Children[0].Children[1].Children[0].Children[2] {
		t.Error("a list item on screen with all below it was copied")
	}

	// The memo: the same Document and OnScreen answer the same element,
	// without a look; another OnScreen, anew.
	var memo ScreenMemo
	first := Screen(root, br, &memo)
	docOf := func(e *Element) *Element { return e.Children[0].Children[1] }
	if again := Screen(root, br, &memo); docOf(again) != docOf(first) {
		t.Error("the same Document and OnScreen again were not answered from the memo")
	}
	br.Windows[0].Tabs[0].Doc.OnScreen = append([]cdproto.BackendNodeID(nil), 110)
	if moved := Screen(root, br, &memo); docOf(moved) == docOf(first) || len(docOf(moved).Children) != 1 || docOf(moved).Children[0].Role != "List" {
		t.Errorf("another OnScreen was answered from the memo, or wrongly: %s", outlineOf(t, docOf(moved)))
	}

	// What is on screen not known (the walk failed): the Document whole,
	// the tree's own.
	root, br = screenTree(ids)
	br.Windows[0].Tabs[0].Doc.ScreenUnknown = true
	if doc := docOf(Screen(root, br, nil)); doc != docOf(root) {
		t.Errorf("a Document whose screen is not known: %s, want it whole", outlineOf(t, doc))
	}

	// Nothing on screen: the Document alone, all its children counted.
	root, br = screenTree(ids)
	doc := Screen(root, br, nil).Children[0].Children[1]
	if len(doc.Children) != 0 || doc.Omitted != 22 || doc.Off.Aside != 22 {
		t.Errorf("nothing on screen: the Document has %d children, omitted %d, off %+v; want none, 22 aside", len(doc.Children), doc.Omitted, doc.Off)
	}

	// Depth cuts what the screen kept: (+N omitted) says all of it.
	root, br = screenTree(ids, 10, 40, 41)
	cut := Cut(Screen(root, br, nil), 3)
	if out := outlineOf(t, cut); !strings.Contains(out, "List (+18 omitted)") || strings.Contains(out, "… 6") {
		t.Errorf("the screen cut at depth 3:\n%s\nwant the List with (+18 omitted) and no … line of it", out)
	}
}

// A partial tree (the nodes that place what is on screen, before the
// whole tree is read) says that more is off screen where a node names a
// child it does not hold, without a number, and counts each such child
// as one element in omitted; the same nodes as a whole tree would leave
// them out with nothing said.
func TestScreenOfAPartialTree(t *testing.T) {
	// On screen: the heading and the first item's link. The second item
	// is held without its link (its child not read), and the list names
	// a third item it does not hold. What the first item's marker holds
	// is not read either (warm.PartialNodes does not ask): the marker is
	// dropped with it, not counted.
	heading := leaf(1001, "heading", "Top", "level", 1)
	first := el(ax(1010, "listitem", ""), el(ax(1013, "ListMarker", "• "), ignored(leaf(1014, "none", ""))),
		el(ax(1011, "link", "one"), leaf(1012, "StaticText", "one")))
	second := el(ax(1020, "listitem", ""), el(ax(1021, "link", "two"), leaf(1022, "StaticText", "two")))
	third := el(ax(1030, "listitem", ""), leaf(1031, "link", "three"))
	list := el(ax(1002, "list", ""), first, second, third)
	f := page(1, el(ax(1003, "main", ""), heading, list))
	var nodes []*accessibility.Node
	for _, n := range f.Nodes {
		switch n.NodeID {
		case "1014", "1021", "1022", "1030", "1031": // not read
		default:
			nodes = append(nodes, n)
		}
	}
	for _, partial := range []bool{true, false} {
		ids := NewIDs()
		fr := &Frame{Doc: 1, URL: f.URL, Nodes: nodes, Partial: partial, OnScreen: []cdproto.BackendNodeID{1003, 1001, 1002, 1010, 1011}}
		br := &Browser{Windows: []*Window{{Key: 1, Tabs: []*Tab{{Key: 2, Active: true, Doc: fr}}}}}
		got := Screen(Build(br, ids, DefaultBudget), br, nil)
		out := outlineOf(t, got)
		var listEl *Element
		var find func(e *Element)
		find = func(e *Element) {
			if e.Role == "List" {
				listEl = e
			}
			for _, c := range e.Children {
				find(c)
			}
		}
		find(got)
		if listEl == nil {
			t.Fatalf("partial %v: no list in\n%s", partial, out)
		}
		if !partial {
			// Read as a whole tree, the second item is left out, and
			// what was not read is not there to count.
			if strings.Contains(out, "… more") || !strings.HasSuffix(out, offHint+"\n") || listEl.Omitted != 1 {
				t.Errorf("a whole tree: omitted %d, outline\n%s", listEl.Omitted, out)
			}
			continue
		}
		// The second item (its link not read: one) and the third (one).
		if listEl.Omitted != 3 || listEl.Off == nil || !listEl.Off.Unknown || listEl.Off.Below != 3 {
			t.Errorf("a partial tree: the list's omitted %d, off %+v", listEl.Omitted, listEl.Off)
		}
		if strings.Count(out, "… more") != 1 {
			t.Errorf("a partial tree's outline says more is left out other than below the list:\n%s", out)
		}
		if !strings.Contains(out, " … more below\n") || strings.Contains(out, "… 3 below") {
			t.Errorf("a partial tree's outline does not say more is below without a number:\n%s", out)
		}
		if !strings.HasSuffix(out, offHintMore+"\n") {
			t.Errorf("a partial tree's outline does not end with the hint that says what \"more\" is:\n%s", out)
		}
		if strings.Contains(out, `"two"`) || strings.Contains(out, `"three"`) {
			t.Errorf("a partial tree's screen shows what is not on screen:\n%s", out)
		}
		if !strings.Contains(out, `Link one`) && !strings.Contains(out, `"one"`) {
			t.Errorf("the link on screen is missing:\n%s", out)
		}
	}
}

// A Document asked again with another screen (the page scrolled) is
// answered from its index, made once: the same answer as a look at every
// element (Screen without a memo), on the recorded trees, a generated
// page and a page with an iframe, for screens that scroll down, jump,
// hold scattered elements, nothing, or all. The index answers every call
// after the first, and is made once a Document.
func TestScreenFromItsIndex(t *testing.T) {
	frames := map[string]*Frame{"generated": generatedFrame(40)}
	recs, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if !strings.HasSuffix(rec, ".golden.json") {
			f := loadFrame(t, rec)
			f.NodeBase = f.Nodes[0].BackendDOMNodeID
			frames[filepath.Base(rec)] = f
		}
	}
	child := page(2, leaf(2001, "link", "Inner", "url", "https://ads.example/"), leaf(2002, "paragraph", "Inside"))
	framed := page(1, leaf(1, "paragraph", "Before"), leaf(5, "Iframe", "Ad"), leaf(6, "button", "After"))
	framed.Frames = map[cdproto.BackendNodeID]*Frame{5: child}
	frames["framed"] = framed
	for name, f := range frames {
		t.Run(name, func(t *testing.T) {
			ids := NewIDs()
			br := &Browser{Windows: []*Window{{Key: 1, Tabs: []*Tab{{Key: 2, Active: true, Doc: f}}}}}
			root := Build(br, ids, DefaultBudget)
			// The DOM elements of each frame, in order.
			doms := map[*Frame][]cdproto.BackendNodeID{}
			var all []*Frame
			var collect func(f *Frame)
			collect = func(f *Frame) {
				all = append(all, f)
				for _, n := range f.Nodes {
					if n.BackendDOMNodeID > 0 {
						doms[f] = append(doms[f], n.BackendDOMNodeID)
					}
				}
				for _, c := range f.Frames {
					collect(c)
				}
			}
			collect(f)
			rng := rand.New(rand.NewPCG(1, uint64(len(f.Nodes))))
			memo := &ScreenMemo{}
			const screens = 40
			for k := range screens {
				for _, fr := range all {
					d := doms[fr]
					fr.OnScreen = nil
					switch {
					case k%10 == 3: // nothing
					case k%10 == 7: // all
						fr.OnScreen = append(fr.OnScreen, d...)
					case k%3 == 0: // scattered
						for _, b := range d {
							if rng.IntN(5) == 0 {
								fr.OnScreen = append(fr.OnScreen, b)
							}
						}
					default: // a window of them: a scroll, or a jump
						n := 1 + rng.IntN(max(1, len(d)/4))
						at := rng.IntN(max(1, len(d)-n+1))
						fr.OnScreen = append(fr.OnScreen, d[at:min(len(d), at+n)]...)
					}
				}
				want := Screen(root, br, nil)
				got := Screen(root, br, memo)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("screen %d from the index differs from a look at every element (-want +got):\n%s", k, diff)
				}
			}
			if memo.Indexes != 1 || memo.Indexed != screens-1 {
				t.Errorf("%d indexes made, %d screens answered from one; want 1 and %d", memo.Indexes, memo.Indexed, screens-1)
			}
		})
	}
}
