package mapping

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
	return s.matcher()(e)
}

// matcher returns the test of Matches. A search for text that is not a
// regular expression looks for a literal, case ignored: its expression
// is (?i) and the text quoted (TextPattern). Such an expression, and any
// other that is a literal, is matched by a search for the literal (each
// rune with those that fold to it, as the expression matches it), many
// times faster than the expression is at a page's thousands of titles;
// any other expression is matched as it is.
func (s Search) matcher() func(*Element) bool {
	text := s.textMatcher()
	return func(e *Element) bool {
		if s.Role != "" && e.Role != s.Role {
			return false
		}
		if text == nil {
			return true
		}
		return e.Title != "" && text(e.Title) || e.Value != "" && text(e.Value) || e.Description != "" && text(e.Description)
	}
}

// textMatcher returns what reports whether a string matches s.Text, nil
// when s has no text.
func (s Search) textMatcher() func(string) bool {
	if s.Text == nil {
		return nil
	}
	p, err := syntax.Parse(s.Text.String(), syntax.Perl)
	if err != nil || p.Op != syntax.OpLiteral {
		return s.Text.MatchString
	}
	if p.Flags&syntax.FoldCase == 0 {
		lit := string(p.Rune)
		return func(t string) bool { return strings.Contains(t, lit) }
	}
	return newFoldLiteral(p.Rune).in
}

// foldLiteral is a literal whose case is ignored: each of its runes with
// those that fold to it (unicode.SimpleFold's orbit), which is what a
// regular expression's (?i) matches for it.
type foldLiteral struct {
	orbits [][]rune
	// first holds the ASCII runes that can start a match; wide tells
	// whether others can.
	first [utf8.RuneSelf]bool
	wide  bool
}

func newFoldLiteral(runes []rune) *foldLiteral {
	l := &foldLiteral{orbits: make([][]rune, len(runes))}
	for i, r := range runes {
		l.orbits[i] = []rune{r}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			l.orbits[i] = append(l.orbits[i], f)
		}
	}
	for _, r := range l.orbits[0] {
		if r < utf8.RuneSelf {
			l.first[r] = true
		} else {
			l.wide = true
		}
	}
	return l
}

// in reports whether s holds l. Invalid UTF-8 in s is read a byte at a
// time as utf8.RuneError, as a regular expression reads it.
func (l *foldLiteral) in(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < utf8.RuneSelf:
			if l.first[c] && l.at(s[i:]) {
				return true
			}
			i++
		case !l.wide:
			i++ // no ASCII byte is part of a wider rune
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if slices.Contains(l.orbits[0], r) && l.at(s[i:]) {
				return true
			}
			i += n
		}
	}
	return false
}

// at reports whether s starts with l.
func (l *foldLiteral) at(s string) bool {
	for _, orbit := range l.orbits {
		if s == "" {
			return false
		}
		r, n := rune(s[0]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s)
		}
		if !slices.Contains(orbit, r) {
			return false
		}
		s = s[n:]
	}
	return true
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
	matches := s.matcher()
	var above []*Element
	var visit func(e *Element)
	visit = func(e *Element) {
		if matches(e) {
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
// element in full (Outline, without the indent; a Text's too, with its
// role and id, and its url whole), then " in: " and its ancestors
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
