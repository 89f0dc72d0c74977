package conformance

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// Roles and states the rules refer to.
const (
	roleApplication = "Application"
	roleWindow      = "Window"
	stateFocused    = "focused"
	stateHovered    = "hovered"
)

// checkRules checks the rules of section 5 that the schema cannot state,
// on a tree the schema has accepted. It returns every rule broken, joined.
func checkRules(root *mapping.Element) error {
	r := rules{ids: make(map[string]bool)}
	r.walk(root, nil)
	if len(r.hovered) > 1 {
		r.failf("%d elements are hovered (%q); at most one may be (5.3)", len(r.hovered), r.hovered)
	}
	if !elemtest.Has(root, stateFocused) && slices.ContainsFunc(root.Children, isWindow) {
		r.failf("nothing is focused, but the browser has a window; the focus path is empty only without windows (5.3)")
	}
	return errors.Join(r.errs...)
}

// rules gathers what one walk of the tree found.
type rules struct {
	ids     map[string]bool // every id seen so far
	hovered []string        // ids of the hovered elements
	errs    []error
}

func (r *rules) failf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf(format, args...))
}

// walk checks e, whose parent is parent (nil for the root), and its
// subtree.
func (r *rules) walk(e, parent *mapping.Element) {
	if r.ids[e.ID] {
		r.failf("id %q is used by more than one element (5.2)", e.ID)
	}
	r.ids[e.ID] = true
	if parent != nil && e.Role == roleApplication {
		r.failf("element %q has role Application; only the root may (5.4)", e.ID)
	}
	if !slices.IsSorted(e.States) {
		r.failf("states of %q are not sorted: %q (5.1)", e.ID, e.States)
	}
	if elemtest.Has(e, stateHovered) {
		r.hovered = append(r.hovered, e.ID)
	}
	if parent != nil && elemtest.Has(e, stateFocused) && !elemtest.Has(parent, stateFocused) {
		r.failf("focus path has a gap: %q is focused but its parent %q is not (5.3)", e.ID, parent.ID)
	}
	var focused []string
	for _, c := range e.Children {
		if elemtest.Has(c, stateFocused) {
			focused = append(focused, c.ID)
		}
		r.walk(c, e)
	}
	if len(focused) > 1 {
		r.failf("focus path branches at %q: its children %q are all focused (5.3)", e.ID, focused)
	}
}

func isWindow(e *mapping.Element) bool { return e.Role == roleWindow }
