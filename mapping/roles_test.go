package mapping

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestRolesTable checks each row of the table of docs/protocol.md §5.4, copied
// here by hand so that a change to roles.go must agree with the protocol.
// Every role is given a name, which conditional rows need.
func TestRolesTable(t *testing.T) {
	table := []struct {
		chrome []string
		proto  string
	}{
		{[]string{"button", "DisclosureTriangle"}, "Button"},
		{[]string{"link"}, "Link"},
		{[]string{"textbox", "searchbox"}, "TextField"},
		{[]string{"checkbox"}, "CheckBox"},
		{[]string{"radio"}, "RadioButton"},
		{[]string{"switch"}, "Switch"},
		{[]string{"radiogroup"}, "RadioGroup"},
		{[]string{"combobox"}, "ComboBox"},
		{[]string{"listbox"}, "ListBox"},
		{[]string{"option"}, "Option"},
		{[]string{"slider"}, "Slider"},
		{[]string{"spinbutton"}, "SpinButton"},
		{[]string{"progressbar"}, "ProgressBar"},
		{[]string{"meter"}, "Meter"},
		{[]string{"scrollbar"}, "ScrollBar"},
		{[]string{"separator"}, "Separator"},
		{[]string{"heading"}, "Heading"},
		{[]string{"paragraph"}, "Paragraph"},
		{[]string{"StaticText"}, "Text"},
		{[]string{"img", "image", "graphics-document", "graphics-symbol"}, "Image"},
		{[]string{"figure"}, "Figure"},
		{[]string{"list"}, "List"},
		{[]string{"listitem"}, "ListItem"},
		{[]string{"menu"}, "Menu"},
		{[]string{"menubar"}, "MenuBar"},
		{[]string{"menuitem", "menuitemcheckbox", "menuitemradio"}, "MenuItem"},
		{[]string{"toolbar"}, "Toolbar"},
		{[]string{"tablist"}, "TabList"},
		{[]string{"tab"}, "Tab"},
		{[]string{"tabpanel"}, "TabPanel"},
		{[]string{"table"}, "Table"},
		{[]string{"grid", "treegrid"}, "Grid"},
		{[]string{"row"}, "Row"},
		{[]string{"cell", "gridcell"}, "Cell"},
		{[]string{"columnheader"}, "ColumnHeader"},
		{[]string{"rowheader"}, "RowHeader"},
		{[]string{"tree"}, "Tree"},
		{[]string{"treeitem"}, "TreeItem"},
		{[]string{"dialog", "alertdialog"}, "Dialog"},
		{[]string{"alert"}, "Alert"},
		{[]string{"status", "log", "timer", "marquee"}, "Status"},
		{[]string{"tooltip"}, "Tooltip"},
		{[]string{"banner"}, "Banner"},
		{[]string{"navigation"}, "Navigation"},
		{[]string{"main"}, "Main"},
		{[]string{"complementary"}, "Complementary"},
		{[]string{"contentinfo"}, "ContentInfo"},
		{[]string{"search"}, "Search"},
		{[]string{"form"}, "Form"},
		{[]string{"region"}, "Region"},
		{[]string{"article"}, "Article"},
		{[]string{"math", "MathMLMath"}, "Math"},
		{[]string{"code"}, "Code"},
		{[]string{"Video", "Audio"}, "Media"},
		{[]string{"Canvas"}, "Canvas"},
		{[]string{"group", "fieldset", "details", "application", "document", "feed", "note",
			"blockquote", "LabelText", "Legend", "caption", "generic", "SomeFutureRole"}, "Group"},
		{[]string{"none", "presentation", "LineBreak", "InlineTextBox", "ListMarker"}, ""},
	}
	for _, row := range table {
		for _, role := range row.chrome {
			f := page(1, leaf(1, role, "Named"))
			got := MapFrame(f, testIDs(), 100)
			var proto string
			if len(got.Children) > 0 {
				proto = got.Children[0].Role
			}
			if proto != row.proto {
				t.Errorf("Chrome role %q maps to %q, want %q", role, proto, row.proto)
			}
		}
	}
	for _, role := range []string{"RootWebArea", "WebArea"} {
		if roles[role] != roleDocument {
			t.Errorf("Chrome role %q maps to %q, want Document", role, roles[role])
		}
	}
}

// TestUnnamedConditionalRoles checks the rows that make an element only
// when it is named, or, for Groups, has a state.
func TestUnnamedConditionalRoles(t *testing.T) {
	for _, role := range []string{"form", "region", "SvgRoot", "group", "generic", "application", "LabelText", "SomeFutureRole"} {
		got := MapFrame(page(1, leaf(1, role, "")), testIDs(), 100)
		if len(got.Children) != 0 {
			t.Errorf("unnamed %q maps to %s, want nothing", role, got.Children[0].Role)
		}
	}
}

// chromeRoleNames reads testdata/chrome-roles.txt: every role name Chrome
// can report, by the ax::mojom::Role it stands for.
func chromeRoleNames(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("testdata/chrome-roles.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		enum, name, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("chrome-roles.txt: bad line %q", line)
		}
		names[name] += enum + " "
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}

// TestEveryChromeRoleIsMapped fails when a role name Chrome can report has
// no entry in the table, and when the table has an entry that is neither
// such a name nor one of the synonyms it keeps on purpose.
func TestEveryChromeRoleIsMapped(t *testing.T) {
	names := chromeRoleNames(t)
	if len(names) < 150 {
		t.Fatalf("chrome-roles.txt lists %d names; it should list every ax::mojom::Role", len(names))
	}
	for name, enums := range names {
		if _, ok := roles[name]; !ok {
			t.Errorf("Chrome reports %q (for %s) and roles.go has no entry for it", name, strings.TrimSpace(enums))
		}
	}
	synonyms := map[string]bool{"img": true, "presentation": true, "MenuListOption": true,
		"WebArea": true, "fieldset": true, "details": true, "directory": true}
	for name := range roles {
		if names[name] == "" && !synonyms[name] {
			t.Errorf("roles.go maps %q, which Chrome does not report (a typo?)", name)
		}
	}
}
