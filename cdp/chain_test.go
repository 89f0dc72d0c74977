package cdp

import (
	"context"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// A chain is cut at the first of its elements the document's
// accessibility tree has: the deepest element itself when the tree has it
// (its ancestors not asked for), else the nearest ancestor that is; an
// ancestor that could not be described (0) is passed over. A deepest
// element that holds a child document read answers that document.
func TestCutChain(t *testing.T) {
	nodes := func(ids ...cdproto.BackendNodeID) []*accessibility.Node {
		var ns []*accessibility.Node
		for _, id := range ids {
			ns = append(ns, &accessibility.Node{BackendDOMNodeID: id})
		}
		return ns
	}
	child := &doc{n: 9}
	d := &doc{nodes: nodes(0, 1, 2, 3, 7), children: map[cdproto.BackendNodeID]*doc{8: child}}
	for _, c := range []struct {
		what      string
		first     cdproto.BackendNodeID
		ancestors []cdproto.BackendNodeID
		want      []cdproto.BackendNodeID
	}{
		{"in the tree", 3, nil, []cdproto.BackendNodeID{3}},
		{"its parent in the tree", 5, []cdproto.BackendNodeID{6, 7, 1}, []cdproto.BackendNodeID{5, 6, 7}},
		{"an ancestor not described", 5, []cdproto.BackendNodeID{0, 2}, []cdproto.BackendNodeID{5, 2}},
		{"none in the tree", 5, []cdproto.BackendNodeID{6}, []cdproto.BackendNodeID{5, 6}},
	} {
		// ancestorIDs as if asked for before; when nil, asking would need
		// a page (the chain has no session), and the test would panic.
		cr := &chainRead{first: c.first, ok: true, ancestorIDs: c.ancestors}
		chain, ch, ok := cutChain(context.Background(), d, cr)
		if !ok || ch != nil || !slices.Equal(chain, c.want) {
			t.Errorf("%s: chain %v, child %v, ok %v; want %v", c.what, chain, ch, ok, c.want)
		}
	}
	if _, ch, ok := cutChain(context.Background(), d, &chainRead{first: 8, ok: true}); !ok || ch != child {
		t.Errorf("an element holding a child document: child %v, want it", ch)
	}
	if chain, ch, ok := cutChain(context.Background(), d, &chainRead{}); ok || ch != nil || chain != nil {
		t.Errorf("an empty chain: %v %v %v, want nothing", chain, ch, ok)
	}
}

// A role is known from its JSON as Chrome writes it, and from a role
// written with escapes too.
func TestRoleIs(t *testing.T) {
	role := func(raw string) *accessibility.Node {
		return &accessibility.Node{Role: &accessibility.Value{Value: jsonv2.Value(raw)}}
	}
	for raw, want := range map[string]bool{
		`"slider"`: true, `"spinbutton"`: true, `"progressbar"`: true, `"meter"`: true, `"scrollbar"`: true,
		`"\u0073lider"`: true, `"button"`: false, `"StaticText"`: false, `"generic"`: false,
	} {
		if got := roleIs(role(raw), rangeRoles...); got != want {
			t.Errorf("roleIs(%s, rangeRoles...) = %v, want %v", raw, got, want)
		}
	}
	if roleIs(&accessibility.Node{}, rangeRoles...) {
		t.Error("a node without a role is a range widget")
	}
}
