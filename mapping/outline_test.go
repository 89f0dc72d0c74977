package mapping

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestOutline(t *testing.T) {
	root := &Element{ID: "d1", Role: "Document", Title: "Shop", URL: "https://shop.example/", States: []string{"focused"}, Omitted: 2,
		Children: []*Element{
			{ID: "n1", Role: "Heading", Title: `Say "hi"`, Level: 1},
			{ID: "n2", Role: "TextField", Title: "Name", Value: "Ada", Description: "Your full name", States: []string{"focused", "required"}},
			{ID: "n3", Role: "Tree", Children: []*Element{{ID: "n4", Role: "TreeItem", Level: 2}}},
		}}
	var b strings.Builder
	if err := Outline(&b, root); err != nil {
		t.Fatal(err)
	}
	want := `Document Shop [focused] <https://shop.example/> (+2 omitted) #d1
 Heading "Say \"hi\"" level=1 #n1
 TextField Name = "Ada" [focused required] ("Your full name") #n2
 Tree #n3
  TreeItem level=2 #n4
`
	if got := b.String(); got != want {
		t.Errorf("Outline:\n%s\nwant:\n%s", got, want)
	}
}

// The text of the page is written as its quoted titles, a run of Text
// siblings on one line, without role and id; a Text with more than a
// title, and a Text at the root, have a line of their own in full; a Text
// with nothing at all has no line, and the run ends at it.
func TestOutlineText(t *testing.T) {
	text := func(id, title string) *Element { return &Element{ID: id, Role: "Text", Title: title} }
	root := &Element{ID: "p", Role: "Paragraph", Children: []*Element{
		text("t1", "Read the"),
		{ID: "a", Role: "Link", Title: "manual", Children: []*Element{text("t2", "manual")}},
		text("t3", `, "all" of it`),
		text("t4", "twice."),
		{ID: "t5", Role: "Text", Title: "Hover me", States: []string{"hovered"}},
		text("t6", "Then"),
		{ID: "t7", Role: "Text"},
		text("t8", "rest."),
	}}
	want := `Paragraph #p
 "Read the"
 Link #a
  "manual"
 ", \"all\" of it" "twice."
 Text Hover me [hovered] #t5
 "Then"
 "rest."
`
	if got := outlineOf(t, root); got != want {
		t.Errorf("Outline:\n%s\nwant:\n%s", got, want)
	}
	if got, want := outlineOf(t, text("t1", "Alone")), "Text Alone #t1\n"; got != want {
		t.Errorf("Outline of a Text: %q, want %q", got, want)
	}
}

// A url is written relative to the url of the Document above it in the
// outline when that resolves to it exactly, else whole; a Document's own
// url is whole, and so are urls with no Document above them.
func TestOutlineURLs(t *testing.T) {
	link := func(id, url string) *Element { return &Element{ID: id, Role: "Link", URL: url} }
	root := &Element{ID: "t", Role: "Tab", URL: "https://shop.example/a/b/page.html?x=1", Children: []*Element{
		{ID: "d", Role: "Document", URL: "https://shop.example/a/b/page.html?x=1", Children: []*Element{
			link("l1", "https://shop.example/a/b/page.html?x=1#top"),
			link("l2", "https://shop.example/a/b/page.html?x=2"),
			link("l3", "https://shop.example/a/b/other.html"),
			link("l4", "https://shop.example/a/c/other.html#s"),
			link("l5", "https://shop.example/z.html"),
			link("l6", "https://shop.example/a/b/page.html?x=1"),
			link("l7", "https://other.example/a/b/other.html"),
			link("l8", "http://shop.example/a/b/other.html"),
			link("l9", "https://shop.example/a/b/x:y.html"),
			link("l10", "mailto:ada@shop.example"),
			link("l11", "https://shop.example/a/"),
			{ID: "f", Role: "Document", URL: "https://ads.example/frame/", Children: []*Element{
				link("l12", "https://ads.example/frame/buy"),
				link("l13", "https://shop.example/a/b/other.html"),
			}},
			link("l14", "https://shop.example/a/b/other.html"),
			link("l16", "https://shop.example/a/b/page.html?x=1#"),
			link("l17", "https://shop.example/a/b/other.html#"),
			link("l18", "https://shop.example/a/b/page.html?x=2#"),
		}},
		{ID: "blank", Role: "Document", URL: "about:blank", Children: []*Element{link("l15", "about:blank#x")}},
	}}
	want := `Tab <https://shop.example/a/b/page.html?x=1> #t
 Document <https://shop.example/a/b/page.html?x=1> #d
  Link <#top> #l1
  Link <?x=2> #l2
  Link <other.html> #l3
  Link <../c/other.html#s> #l4
  Link </z.html> #l5
  Link <?x=1> #l6
  Link <https://other.example/a/b/other.html> #l7
  Link <http://shop.example/a/b/other.html> #l8
  Link <./x:y.html> #l9
  Link <mailto:ada@shop.example> #l10
  Link <../> #l11
  Document <https://ads.example/frame/> #f
   Link <buy> #l12
   Link <https://shop.example/a/b/other.html> #l13
  Link <other.html> #l14
  Link <#> #l16
  Link <other.html#> #l17
  Link <?x=2#> #l18
 Document <about:blank> #blank
  Link <about:blank#x> #l15
`
	if got := outlineOf(t, root); got != want {
		t.Errorf("Outline:\n%s\nwant:\n%s", got, want)
	}
}

// A Paragraph, ListItem, Figure, Image or Text with nothing but its role
// and id (a ListItem's level aside) has no line: its children are written
// in its place, at its depth, each such element's text starting a line
// of its own. The same
// roles with anything more (a title, a state, what a cut left out), the
// other roles with nothing more (List, Row, Cell, Main), and the root have
// their line and id.
func TestOutlineFolds(t *testing.T) {
	p := func(id string, children ...*Element) *Element {
		return &Element{ID: id, Role: "Paragraph", Children: children}
	}
	root := &Element{ID: "m", Role: "Main", Children: []*Element{
		p("p1", text("One.")),
		p("p2", text("Two,"), text("too.")),
		p("p3", text("See"), &Element{ID: "a", Role: "Link", Title: "this", URL: "https://x.example/"}, text(".")),
		{ID: "l", Role: "List", Children: []*Element{
			{ID: "i1", Role: "ListItem", Children: []*Element{p("p4", text("First"))}},
			{ID: "i2", Role: "ListItem", Children: []*Element{text("Second")}},
			{ID: "i3", Role: "ListItem", Children: []*Element{text("Third"), {ID: "l2", Role: "List", Children: []*Element{
				{ID: "i4", Role: "ListItem", Level: 2, Children: []*Element{text("Nested")}},
				{ID: "i5", Role: "ListItem", Level: 2, Title: "Named", Children: []*Element{text("Named item")}},
			}}}},
		}},
		{ID: "f", Role: "Figure", Children: []*Element{
			{ID: "img", Role: "Image"},
			{ID: "cap", Role: "Image", Title: "A chart"},
			text("Figure 1"),
		}},
		{ID: "tb", Role: "Table", Children: []*Element{
			{ID: "r", Role: "Row", Children: []*Element{{ID: "c1", Role: "Cell", Title: "a"}, {ID: "c2", Role: "Cell"}}},
		}},
		{ID: "p5", Role: "Paragraph", Description: "a note", Children: []*Element{text("Noted.")}},
		{ID: "p6", Role: "Paragraph", States: []string{"hovered"}, Children: []*Element{text("Hovered.")}},
		{ID: "p7", Role: "Paragraph", Omitted: 4},
		text("After."),
	}}
	want := `Main #m
 "One."
 "Two," "too."
 "See"
 Link this <https://x.example/> #a
 "."
 List #l
  "First"
  "Second"
  "Third"
  List #l2
   "Nested"
   ListItem Named level=2 #i5
    "Named item"
 Image A chart #cap
 "Figure 1"
 Table #tb
  Row #r
   Cell a #c1
   Cell #c2
 Paragraph ("a note") #p5
  "Noted."
 Paragraph [hovered] #p6
  "Hovered."
 Paragraph (+4 omitted) #p7
 "After."
`
	if got := outlineOf(t, root); got != want {
		t.Errorf("Outline:\n%s\nwant:\n%s", got, want)
	}
	// The root has its line, a bare Paragraph too.
	if got, want := outlineOf(t, p("p", text("Alone."))), "Paragraph #p\n \"Alone.\"\n"; got != want {
		t.Errorf("Outline of a Paragraph: %q, want %q", got, want)
	}
}

// A bare Code whose children are all text of the page that a Go raw
// string holds on one line is written as those texts between backquotes,
// in the run of texts around it; any other Code has its line.
func TestOutlineInlineCode(t *testing.T) {
	code := func(id string, children ...*Element) *Element {
		return &Element{ID: id, Role: "Code", Children: children}
	}
	root := &Element{ID: "p", Role: "Paragraph", Children: []*Element{
		text("Call"), code("c1", text("open()")), text("or"), code("c2", text("os."), text("open")), text("."),
		code("c3", text("a `quoted` name")),
		code("c4", text("two\nlines")),
		code("c5", &Element{ID: "l", Role: "Link", Title: "io", URL: "https://x.example/io"}),
		{ID: "c6", Role: "Code", Title: "named", Children: []*Element{text("x")}},
		code("c7"),
		text("end"),
	}}
	want := `Paragraph #p
 "Call" ` + "`open()`" + ` "or" ` + "`os.` `open`" + ` "."
 Code #c3
  "a ` + "`quoted`" + ` name"
 Code #c4
  "two\nlines"
 Code #c5
  Link io <https://x.example/io> #l
 Code named #c6
  "x"
 Code #c7
 "end"
`
	if got := outlineOf(t, root); got != want {
		t.Errorf("Outline:\n%s\nwant:\n%s", got, want)
	}
}

// text is page text with a title alone, its id made of the title.
func text(title string) *Element { return &Element{ID: "t" + title, Role: "Text", Title: title} }

// Each thing once: the Window says the page's title, its selected Tab
// and its Document do not say it again (another tab's title stays, and
// the selected Tab's address is its Document's); an element named from
// its content leaves its title to its children, spaces aside, but not
// when its children's text differs, or was cut. A Document at the root,
// and searches, keep every title.
func TestOutlineSaysEachThingOnce(t *testing.T) {
	text := func(id, title string) *Element { return &Element{ID: id, Role: "Text", Title: title} }
	const nyt = "The New York Times"
	img := func(id string) *Element { return &Element{ID: id, Role: "Image", Title: nyt} }
	heading := &Element{ID: "h", Role: "Heading", Title: nyt + " " + nyt + " " + nyt, Level: 1, Children: []*Element{
		{ID: "a", Role: "Link", Title: nyt + " " + nyt + " " + nyt, URL: "https://www.nytimes.com/", Children: []*Element{
			text("t1", nyt), img("i1"), img("i2"),
		}},
	}}
	doc := &Element{ID: "d1", Role: "Document", Title: "News", URL: "https://www.nytimes.com/", States: []string{"focused"}, Children: []*Element{
		heading,
		{ID: "b", Role: "Button", Title: "Sign in", Children: []*Element{text("t2", "Sign"), text("t3", "in")}},
		{ID: "c", Role: "Button", Title: "Subscribe", Children: []*Element{text("t4", "Subscribe now")}},
		{ID: "e", Role: "Link", Title: "Cut short", URL: "https://www.nytimes.com/x", Omitted: 1, Children: []*Element{text("t5", "Cut short")}},
		{ID: "f", Role: "Navigation", Title: "Sections", Children: []*Element{{ID: "g", Role: "Tab", Title: "News"}}},
	}}
	root := &Element{ID: "a0", Role: "Application", Title: "Chromium", Children: []*Element{
		{ID: "w1", Role: "Window", Title: "News", Children: []*Element{
			{ID: "l1", Role: "TabList", Children: []*Element{
				{ID: "t1x", Role: "Tab", Title: "News", URL: "https://www.nytimes.com/", States: []string{"selected"}},
				{ID: "t2x", Role: "Tab", Title: "Mail", URL: "https://mail.example/"},
			}},
			doc,
		}},
	}}
	want := `Application Chromium #a0
 Window News #w1
  TabList #l1
   Tab [selected] #t1x
   Tab Mail <https://mail.example/> #t2x
  Document [focused] <https://www.nytimes.com/> #d1
   Heading level=1 #h
    Link </> #a
     "The New York Times"
     Image The New York Times #i1
     Image The New York Times #i2
   Button #b
    "Sign" "in"
   Button Subscribe #c
    "Subscribe now"
   Link Cut short <x> (+1 omitted) #e
    "Cut short"
   Navigation Sections #f
    Tab News #g
`
	if got := outlineOf(t, root); got != want {
		t.Errorf("Outline:\n%s\nwant:\n%s", got, want)
	}
	if got := outlineOf(t, doc); !strings.HasPrefix(got, `Document News [focused] <https://www.nytimes.com/> #d1`+"\n") {
		t.Errorf("Outline of a Document at the root:\n%s", got)
	}
	var b strings.Builder
	WriteMatches(&b, []Match{{Element: heading}}, 0)
	if want := `Heading The New York Times The New York Times The New York Times level=1 #h` + "\n"; b.String() != want {
		t.Errorf("a match: %q, want %q", b.String(), want)
	}
	checkTitlesSaid(t, root)
}

// Every title the outline leaves out of an element's line is said
// elsewhere: by the Window above a Tab or a Document, or by the text of
// the element's own lines below it (spaces aside). On the recorded trees
// of testdata, and on the browser of TestOutlineSaysEachThingOnce.
func TestOutlineLosesNoTitle(t *testing.T) {
	recs, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	dropped := 0
	for _, rec := range recs {
		if strings.HasSuffix(rec, ".golden.json") {
			continue
		}
		ids := testIDs()
		dropped += checkTitlesSaid(t, MapFrame(loadFrame(t, rec), ids, 80))
	}
	if dropped == 0 {
		t.Error("no title was left out of the recorded trees' outlines: the check checked nothing")
	}
}

// quoted matches a Go-quoted string in an outline line.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// plainTitleOf returns the title an outline line writes without quotes
// (plainTitle), "" when it writes none so.
func plainTitleOf(l string) string {
	l = strings.TrimLeft(l, " ")
	_, rest, ok := strings.Cut(l, " ")
	if !ok || strings.HasPrefix(l, `"`) || strings.HasPrefix(l, "`") {
		return "" // no title, or a run of texts
	}
	for _, field := range []string{`"`, "[", "<", "#", "(", "= ", "level="} {
		if strings.HasPrefix(rest, field) {
			return ""
		}
	}
	end := len(rest)
	for _, field := range []string{" = ", " [", " <", " level=", " (", " #"} {
		if j := strings.Index(rest, field); j >= 0 && j < end {
			end = j
		}
	}
	return rest[:end]
}

// checkTitlesSaid checks, for each element of the tree under root whose
// title its outline line leaves out, that the title is said elsewhere
// (TestOutlineLosesNoTitle), and returns how many there were.
func checkTitlesSaid(t *testing.T, root *Element) int {
	t.Helper()
	lines := strings.Split(outlineOf(t, root), "\n")
	at := map[string]int{} // id -> its line
	for i, l := range lines {
		if j := strings.LastIndex(l, " #"); j >= 0 {
			at[l[j+2:]] = i
		}
	}
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	dropped := 0
	var window string
	var visit func(e *Element)
	visit = func(e *Element) {
		if e.Role == "Window" {
			window = e.Title
		}
		i, ok := at[e.ID]
		if ok && e.Title != "" && !strings.Contains(lines[i], string(appendTitle([]byte(e.Role+" "), e.Title))) {
			dropped++
			var said strings.Builder
			for _, l := range lines[i+1:] {
				if indent(l) <= indent(lines[i]) {
					break
				}
				said.WriteString(plainTitleOf(l))
				for _, q := range quoted.FindAllString(l, -1) {
					s, _ := strconv.Unquote(q)
					said.WriteString(s)
				}
			}
			switch {
			case (e.Role == "Tab" || e.Role == "Document") && e.Title == window:
			case strings.Contains(squeeze(said.String()), squeeze(e.Title)):
			default:
				t.Errorf("the outline leaves out the title %q of %s #%s, and says it nowhere below it:\n%s", e.Title, e.Role, e.ID, strings.Join(lines[i:], "\n"))
			}
		}
		for _, c := range e.Children {
			visit(c)
		}
	}
	visit(root)
	return dropped
}
