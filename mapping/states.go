package mapping

import (
	"slices"

	"github.com/chromedp/cdproto/accessibility"
)

// flags are the boolean properties that are a state of the same name when
// true (5.3). Chrome gives no "visited" property today; it is read in case
// a later version does.
var flags = []accessibility.PropertyName{
	accessibility.PropertyNameBusy,
	accessibility.PropertyNameDisabled,
	accessibility.PropertyNameModal,
	accessibility.PropertyNameMultiselectable,
	accessibility.PropertyNameReadonly,
	accessibility.PropertyNameRequired,
	accessibility.PropertyNameSelected,
	"visited",
}

// states returns the states n has of its own (5.3), sorted: all but
// focused and hovered, which depend on the rest of the tree. proto is the
// protocol role n maps to.
func (m *mapper) states(n *accessibility.Node, proto string) []string {
	var out []string
	for _, f := range flags {
		if isTrue(n, f) {
			out = append(out, string(f))
		}
	}
	if v, _ := prop(n, accessibility.PropertyNameChecked); checkable[roleOf(n)] {
		out = appendTristate(out, v, "checked")
	}
	if v, _ := prop(n, accessibility.PropertyNamePressed); v != "" {
		out = appendTristate(out, v, "pressed")
	}
	if v, ok := prop(n, accessibility.PropertyNameExpanded); ok {
		if v == "true" {
			out = append(out, "expanded")
		} else {
			out = append(out, "collapsed")
		}
	}
	if v, ok := prop(n, accessibility.PropertyNameInvalid); ok && v != "" && v != "false" {
		out = append(out, "invalid")
	}
	// A text field is editable by its role; the state says it of anything
	// else a person can type into, such as an editable combobox.
	if proto != "TextField" && proto != roleTextArea && m.editableRoot(n) {
		out = append(out, "editable")
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// appendTristate appends on for "true" and "mixed" for "mixed".
func appendTristate(out []string, v, on string) []string {
	switch v {
	case "true":
		return append(out, on)
	case "mixed":
		return append(out, "mixed")
	}
	return out
}

// addState adds s to e's states, keeping them sorted and unique.
func addState(e *Element, s string) {
	i, found := slices.BinarySearch(e.States, s)
	if !found {
		e.States = slices.Insert(e.States, i, s)
	}
}
