package mapping

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/schema"
	"github.com/google/go-cmp/cmp"
)

// Roles is the schema's closed list, and holds every role the mapping
// gives.
func TestRolesAreTheSchemas(t *testing.T) {
	var s struct {
		Defs struct {
			Role struct {
				Enum []string `json:"enum"`
			} `json:"role"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema.Current, &s); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.Defs.Role.Enum, Roles); diff != "" {
		t.Errorf("Roles against the schema's enum (-schema +Roles):\n%s", diff)
	}
	for chrome, role := range roles {
		if role != "" && !IsRole(role) {
			t.Errorf("Chrome's %s maps to %q, which IsRole does not know", chrome, role)
		}
	}
	for _, name := range []string{"button", "BUTTON", "Buttons", "", "Iframe"} {
		if IsRole(name) {
			t.Errorf("IsRole(%q) = true", name)
		}
	}
}

// searchTree is a small answer: a form whose password field has no
// value, as the mapping reports one.
func searchTree() *Element {
	return &Element{ID: "a", Role: "Application", Title: "Chromium", Children: []*Element{
		{ID: "w", Role: "Window", Title: "Shop", Children: []*Element{
			{ID: "d", Role: "Document", Title: "Shop", URL: "https://shop.example/", Children: []*Element{
				{ID: "f", Role: "Form", Title: "Sign in", Children: []*Element{
					{ID: "u", Role: "TextField", Title: "User name", Value: "ada", States: []string{"focused"}},
					{ID: "p", Role: "TextField", Title: "Password", Description: "At least 8 characters"},
					{ID: "b", Role: "Button", Title: "Sign in"},
				}},
				{ID: "l", Role: "Link", Title: "Forgot your password?", URL: "https://shop.example/reset"},
				{ID: "g", Role: "Group"},
			}},
		}},
	}}
}

// matchIDs lists the ids of matches.
func matchIDs(ms []Match) []string {
	var list []string
	for _, m := range ms {
		list = append(list, m.Element.ID)
	}
	return list
}

func TestSearchFind(t *testing.T) {
	root := searchTree()
	pattern := func(text string, regex bool) Search {
		p, err := TextPattern(text, regex)
		if err != nil {
			t.Fatalf("TextPattern(%q, %v): %v", text, regex, err)
		}
		return Search{Text: p}
	}
	for _, c := range []struct {
		what   string
		search Search
		limit  int
		want   []string
		more   int
	}{
		{"a substring of titles, any case, in reading order", pattern("PASSWORD", false), -1, []string{"p", "l"}, 0},
		{"a title or a description", pattern("character", false), -1, []string{"p"}, 0},
		{"a value", pattern("ADA", false), -1, []string{"u"}, 0},
		{"a substring is not an expression", pattern("Sign.in", false), -1, nil, 0},
		{"an expression, any case", pattern("^sign in$", true), -1, []string{"f", "b"}, 0},
		{"an expression that keeps case", pattern("(?-i)^sign", true), -1, nil, 0},
		{"an expression never matches an empty field", pattern("^$", true), -1, nil, 0},
		{"a role", Search{Role: "TextField"}, -1, []string{"u", "p"}, 0},
		{"a role and a text", Search{Role: "Link", Text: pattern("password", false).Text}, -1, []string{"l"}, 0},
		{"a limit, and how many more", pattern("s", false), 2, []string{"w", "d"}, 5},
		{"everything", Search{}, -1, []string{"a", "w", "d", "f", "u", "p", "b", "l", "g"}, 0},
	} {
		found, more := c.search.Find(root, c.limit)
		if got := matchIDs(found); !slices.Equal(got, c.want) || more != c.more {
			t.Errorf("%s: found %v and %d more, want %v and %d more", c.what, got, more, c.want, c.more)
		}
	}
	found, _ := Search{Role: "Button"}.Find(root, 20)
	if len(found) != 1 || !slices.Equal(ids(found[0].Ancestors), []string{"a", "w", "d", "f"}) {
		t.Errorf("the Button's ancestors: %v, want a w d f", found)
	}
	if _, err := TextPattern("a(b", true); err == nil || !strings.Contains(err.Error(), "`a(b`") || strings.Contains(err.Error(), "(?i)") {
		t.Errorf("TextPattern of a bad expression: %v, want its error naming it as given", err)
	}
}

func TestWriteMatches(t *testing.T) {
	root := searchTree()
	found, more := Search{Role: "TextField"}.Find(root, 1)
	var b strings.Builder
	if err := WriteMatches(&b, found, more); err != nil {
		t.Fatal(err)
	}
	want := `TextField User name = "ada" [focused] #u in: Application Chromium > Window Shop > Document Shop > Form Sign in` + "\n(+1 more)\n"
	if b.String() != want {
		t.Errorf("WriteMatches:\n%s\nwant:\n%s", b.String(), want)
	}
	found, _ = Search{}.Find(root, 3)
	found[0].Unplaced = PlaceApplication
	found[1].Location = &Location{State: OnScreen, Frame: &Rect{X: 10, Y: 20.5, Width: 800, Height: 600}, Visible: &Rect{X: 10, Y: 20.5, Width: 800, Height: 600}}
	found[2].Location = &Location{State: OnScreen, Frame: &Rect{X: 10, Y: 60, Width: 800, Height: 600}, Visible: &Rect{X: 10, Y: 60, Width: 800, Height: 560}}
	b.Reset()
	WriteMatches(&b, found, 0)
	want = `Application Chromium #a @ cannot be placed (application)` + "\n" +
		`Window Shop #w in: Application Chromium @ onscreen 10,20.5 800x600` + "\n" +
		`Document Shop <https://shop.example/> #d in: Application Chromium > Window Shop @ onscreen 10,60 800x600 (visible 10,60 800x560)` + "\n"
	if b.String() != want {
		t.Errorf("WriteMatches located:\n%s\nwant:\n%s", b.String(), want)
	}
	found, _ = Search{Role: "Link"}.Find(root, -1)
	found[0].Location = &Location{State: Gone}
	b.Reset()
	WriteMatches(&b, found, 0)
	if want := ` > Document Shop @ gone` + "\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("WriteMatches of a gone element: %q, want it to end %q", b.String(), want)
	}
}

func TestMatchJSON(t *testing.T) {
	found, more := Search{Role: "TextField"}.Find(searchTree(), 20)
	found[1].Location = &Location{State: OffScreen}
	found[0].Unplaced = PlaceNoGeometry
	got, err := json.Marshal(Found{Matches: found, More: more})
	if err != nil {
		t.Fatal(err)
	}
	in := `[{"role":"Application","title":"Chromium"},{"role":"Window","title":"Shop"},{"role":"Document","title":"Shop"},{"role":"Form","title":"Sign in"}]`
	want := `{"matches":[` +
		`{"id":"u","role":"TextField","title":"User name","value":"ada","states":["focused"],"in":` + in + `,"unplaced":"no-geometry"},` +
		`{"id":"p","role":"TextField","title":"Password","description":"At least 8 characters","in":` + in + `,"location":{"state":"offscreen"}}` +
		`],"more":0}`
	if string(got) != want {
		t.Errorf("JSON:\n%s\nwant:\n%s", got, want)
	}
	none, _ := Search{Role: "Dialog"}.Find(searchTree(), 20)
	if got, _ := json.Marshal(Found{Matches: none}); string(got) != `{"matches":[],"more":0}` {
		t.Errorf("no matches: %s, want an empty list", got)
	}
}

// A search for a literal, case ignored or not, is matched without its
// regular expression (Search.textMatcher), and matches exactly what the
// expression matches: runes that fold to one another (the Kelvin sign
// and k, ſ and s), wide runes, invalid UTF-8, a match at either end.
func TestFindLiteralAsItsExpression(t *testing.T) {
	texts := []string{
		"", "a", "Section 584: alpha", "section 58", "SECTION 584:", "xSection 584:y", "Kelvin", "\u212Aelvin", "kELVIN",
		"ſection", "Straße", "STRASSE", "straſe", "Ünïcödé", "üNÏCÖDÉ", "\xffab\xfe", "a\xffb", "\uFFFDb", "ΣΑΣ", "σας", "ς",
		"tab\there", "new\nline", "a.b", "axb", "(?i)", "😀 smile", "😀😀", "ǅ", "ǆ", "Ǆ",
	}
	patterns := []struct {
		text  string
		regex bool
	}{
		{"Section 584:", false}, {"section", false}, {"k", false}, {"K", false}, {"\u212A", false}, {"s", false},
		{"ſ", false}, {"straße", false}, {"ü", false}, {"Ü", false}, {"\uFFFD", false}, {"σ", false},
		{"ς", false}, {"a.b", false}, {"\t", false}, {"😀", false}, {"ǅ", false}, {"(?i)", false}, {"e", false},
		{"(?-i)Section", true}, {"(?-i)k", true}, {"SECTION", true}, {"a.b", true}, {"^a", true}, {"b$", true},
	}
	for _, p := range patterns {
		re, err := TextPattern(p.text, p.regex)
		if err != nil {
			t.Fatal(err)
		}
		match := Search{Text: re}.textMatcher()
		for _, s := range texts {
			if got, want := match(s), re.MatchString(s); got != want {
				t.Errorf("text %q (regex %v) in %q: %v, want %v as its expression %s", p.text, p.regex, s, got, want, re)
			}
		}
	}
}

// A match's line is its line in full, for the elements an outline writes
// without a line too: a bare Paragraph, a Text, an inline Code.
func TestWriteMatchesFolded(t *testing.T) {
	root := &Element{ID: "d", Role: "Document", Title: "Doc", URL: "https://x.example/", Children: []*Element{
		{ID: "p", Role: "Paragraph", Children: []*Element{
			{ID: "t", Role: "Text", Title: "Call"},
			{ID: "c", Role: "Code", Children: []*Element{{ID: "ct", Role: "Text", Title: "open()"}}},
		}},
	}}
	found, more := Search{}.Find(root, -1)
	var b strings.Builder
	if err := WriteMatches(&b, found, more); err != nil {
		t.Fatal(err)
	}
	want := `Document Doc <https://x.example/> #d` + "\n" +
		`Paragraph #p in: Document Doc` + "\n" +
		`Text Call #t in: Document Doc > Paragraph` + "\n" +
		`Code #c in: Document Doc > Paragraph` + "\n" +
		`Text "open()" #ct in: Document Doc > Paragraph > Code` + "\n"
	if b.String() != want {
		t.Errorf("WriteMatches:\n%s\nwant:\n%s", b.String(), want)
	}
}
