package mapping

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
)

// Searching an answer, for readers that look for elements rather than
// read the whole tree: the tool ui_find and the command find. A search
// reads only what the answer holds: a password field's value is never in
// it (5.1), so no text, however matched, can find it by what was typed.

// Roles is the closed list of protocol roles (5.4), with the provider's
// own Application and Window (5.5), in the order of 5.4.
var Roles = []string{
	"Application", "Window",
	"Document", "Button", "Link", "TextField", "TextArea",
	"CheckBox", "RadioButton", "Switch", "RadioGroup", "ComboBox",
	"ListBox", "Option", "Slider", "SpinButton", "ProgressBar", "Meter",
	"ScrollBar", "Separator", "Heading", "Paragraph", "Text", "Image",
	"Figure", "List", "ListItem", "Menu", "MenuBar", "MenuItem",
	"Toolbar", "TabList", "Tab", "TabPanel", "Table", "Grid", "Row",
	"Cell", "ColumnHeader", "RowHeader", "Tree", "TreeItem", "Dialog",
	"Alert", "Status", "Tooltip", "Banner", "Navigation", "Main",
	"Complementary", "ContentInfo", "Search", "Form", "Region",
	"Article", "Math", "Code", "Media", "Canvas", "Group",
}

// IsRole reports whether name is a protocol role, spelled exactly as in
// Roles.
func IsRole(name string) bool { return slices.Contains(Roles, name) }

// Search says which elements to find. The zero Search matches every
// element.
type Search struct {
	// Text matches an element whose title, value or description (those
	// it has) it matches; nil matches any element.
	Text *regexp.Regexp
	// Role matches an element of that role only; "" any role.
	Role string
}

// TextPattern is the pattern of a search for text: with regex, text as a
// regular expression (Go's RE2 syntax), otherwise text itself, found
// anywhere in the string. Either way case is ignored; an expression can
// turn that off with (?-i). The error of an expression that does not
// parse names it as it was given.
func TextPattern(text string, regex bool) (*regexp.Regexp, error) {
	if !regex {
		text = regexp.QuoteMeta(text)
	} else if _, err := regexp.Compile(text); err != nil {
		return nil, err
	}
	return regexp.Compile("(?i)" + text)
}

// Matches reports whether s matches e.
func (s Search) Matches(e *Element) bool {
	if s.Role != "" && e.Role != s.Role {
		return false
	}
	if s.Text == nil {
		return true
	}
	for _, text := range []string{e.Title, e.Value, e.Description} {
		if text != "" && s.Text.MatchString(text) {
			return true
		}
	}
	return false
}

// Match is an element a search found, and where it is in the tree; with
// a location when one was asked for.
type Match struct {
	// Element is the element found, shared with the answer: never changed.
	Element *Element
	// Ancestors are the elements above it, the root first.
	Ancestors []*Element
	// Location is where it is on screen (section 6), when it was located.
	Location *Location
	// Unplaced says why it cannot be placed (a PlaceError's Why), when
	// it was to be located and cannot be.
	Unplaced string
}

// Find returns, in reading order (the order of the tree, depth first),
// the first limit elements of the tree under root that s matches, and how
// many more it matches. A negative limit has no limit. found is never
// nil, so that its JSON is a list.
func (s Search) Find(root *Element, limit int) (found []Match, more int) {
	found = []Match{}
	var above []*Element
	var visit func(e *Element)
	visit = func(e *Element) {
		if s.Matches(e) {
			if limit < 0 || len(found) < limit {
				found = append(found, Match{Element: e, Ancestors: slices.Clone(above)})
			} else {
				more++
			}
		}
		above = append(above, e)
		for _, c := range e.Children {
			visit(c)
		}
		above = above[:len(above)-1]
	}
	if root != nil {
		visit(root)
	}
	return found, more
}

// Found is what a search answers as JSON: its matches and how many more
// there are than it lists.
type Found struct {
	Matches []Match `json:"matches"`
	More    int     `json:"more"`
}

// Step is an ancestor of a match in its JSON: its role and title.
type Step struct {
	Role  string `json:"role"`
	Title string `json:"title,omitempty"`
}

// MarshalJSON writes the match as an object: the element's id, role,
// title, value, description, url, level and states (without its
// children), "in" its ancestors' roles and titles, and "location" or
// "unplaced" when it was located.
func (m Match) MarshalJSON() ([]byte, error) {
	e := m.Element
	in := make([]Step, len(m.Ancestors))
	for i, a := range m.Ancestors {
		in[i] = Step{Role: a.Role, Title: a.Title}
	}
	return json.Marshal(struct {
		ID          string    `json:"id"`
		Role        string    `json:"role"`
		Title       string    `json:"title,omitempty"`
		Value       string    `json:"value,omitempty"`
		Description string    `json:"description,omitempty"`
		URL         string    `json:"url,omitempty"`
		Level       int       `json:"level,omitempty"`
		States      []string  `json:"states,omitempty"`
		In          []Step    `json:"in"`
		Location    *Location `json:"location,omitempty"`
		Unplaced    string    `json:"unplaced,omitempty"`
	}{e.ID, e.Role, e.Title, e.Value, e.Description, e.URL, e.Level, e.States, in, m.Location, m.Unplaced})
}

// WriteMatches writes matches one a line, each the outline's line of its
// element (Outline, without the indent), then " in: " and its ancestors
// as OutlineIn names them, then, when it was located, " @ " and where it
// is:
//
//	Button "Order" [hovered] #n1.5 in: Application "Chromium" > Window "Shop" > Document "Shop" @ onscreen 10,20 80x24
//
// A last line says how many more matched, when more is positive. It
// returns the first error of w.
func WriteMatches(w io.Writer, matches []Match, more int) error {
	bw := bufio.NewWriter(w)
	for _, m := range matches {
		line(bw, m.Element)
		if len(m.Ancestors) > 0 {
			bw.WriteString(" in: ")
			path(bw, m.Ancestors)
		}
		switch {
		case m.Unplaced != "":
			fmt.Fprintf(bw, " @ cannot be placed (%s)", m.Unplaced)
		case m.Location != nil:
			bw.WriteString(" @ " + m.Location.State)
			if f := m.Location.Frame; f != nil {
				bw.WriteString(" " + rect(f))
			}
			if v := m.Location.Visible; v != nil && (m.Location.Frame == nil || *v != *m.Location.Frame) {
				bw.WriteString(" (visible " + rect(v) + ")")
			}
		}
		bw.WriteString("\n")
	}
	if more > 0 {
		fmt.Fprintf(bw, "(+%d more)\n", more)
	}
	return bw.Flush()
}

// rect writes r as "x,y WxH", in screen points.
func rect(r *Rect) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return f(r.X) + "," + f(r.Y) + " " + f(r.Width) + "x" + f(r.Height)
}
