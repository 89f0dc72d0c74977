package mapping

import (
	"strings"
	"testing"
)

func TestOutline(t *testing.T) {
	root := &Element{ID: "d1", Role: "Document", Title: "Shop", URL: "https://shop.example/", States: []string{"focused"}, Omitted: 2,
		Children: []*Element{
			{ID: "n1", Role: "Heading", Title: `Say "hi"`, Level: 1},
			{ID: "n2", Role: "TextField", Title: "Name", Value: "Ada", Description: "Your full name", States: []string{"focused", "required"}},
			{ID: "n3", Role: "List", Children: []*Element{{ID: "n4", Role: "ListItem", Level: 2}}},
		}}
	var b strings.Builder
	if err := Outline(&b, root); err != nil {
		t.Fatal(err)
	}
	want := `Document "Shop" [focused] <https://shop.example/> (+2 omitted) #d1
 Heading "Say \"hi\"" level=1 #n1
 TextField "Name" = "Ada" [focused required] ("Your full name") #n2
 List #n3
  ListItem level=2 #n4
`
	if got := b.String(); got != want {
		t.Errorf("Outline:\n%s\nwant:\n%s", got, want)
	}
}

// The text of the page is written as its quoted titles, a run of Text
// siblings on one line, without role and id; a Text with more than a
// title, and a Text at the root, have a line of their own in full.
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
 Link "manual" #a
  "manual"
 ", \"all\" of it" "twice."
 Text "Hover me" [hovered] #t5
 "Then"
 Text #t7
 "rest."
`
	if got := outlineOf(t, root); got != want {
		t.Errorf("Outline:\n%s\nwant:\n%s", got, want)
	}
	if got, want := outlineOf(t, text("t1", "Alone")), "Text \"Alone\" #t1\n"; got != want {
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
 Document <about:blank> #blank
  Link <about:blank#x> #l15
`
	if got := outlineOf(t, root); got != want {
		t.Errorf("Outline:\n%s\nwant:\n%s", got, want)
	}
}
