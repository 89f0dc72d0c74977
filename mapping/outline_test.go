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
