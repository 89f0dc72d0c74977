package provider

import (
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
)

func TestSettled(t *testing.T) {
	window := func(doc *mapping.Element) *mapping.Element {
		return &mapping.Element{Role: "Application", Children: []*mapping.Element{{Role: "Window", Children: []*mapping.Element{
			{Role: "TabList", Children: []*mapping.Element{{Role: "Tab", URL: "http://a.test/", States: []string{"selected"}}}},
			doc,
		}}}}
	}
	for _, c := range []struct {
		what string
		doc  *mapping.Element
		want bool
	}{
		{"loaded", &mapping.Element{Role: "Document", URL: "http://a.test/"}, true},
		{"busy", &mapping.Element{Role: "Document", URL: "http://a.test/", States: []string{"busy"}}, false},
		{"the initial empty document", &mapping.Element{Role: "Document", URL: "about:blank"}, false},
		{"not responding yet", &mapping.Element{Role: "Document", URL: "http://a.test/", Description: mapping.NotResponding}, false},
		{"crashed: never loads", &mapping.Element{Role: "Document", URL: "http://a.test/", Description: mapping.Crashed}, true},
	} {
		if got := settled(window(c.doc)); got != c.want {
			t.Errorf("%s: settled = %v, want %v", c.what, got, c.want)
		}
	}
}
