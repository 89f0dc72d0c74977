package mapping

import (
	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
)

// ApplyBudgetOnScreen is applyBudget for the tree Build made of br, keeping
// also what a person sees: after the selected elements and before the rest
// in reading order, the elements that show the DOM elements in the
// [Frame.OnScreen] of br's documents, each with its ancestors and its Text
// children. A DOM element on screen that is no element of the answer (a
// generic <div>, a <span>) stands for the Text it holds itself. Elements
// are found by their ids, so root must be Build's tree of br with ids.
//
// Finding what is on screen costs the caller a script in each document,
// so it does that only when [OverBudget] says there will be a cut.
func ApplyBudgetOnScreen(root *Element, b Budget, br *Browser, ids *IDs) bool {
	return applyBudget(root, b, onScreenElements(root, br, ids))
}

// onScreenElements returns the elements of the tree under root that show
// the DOM elements on screen of br's documents; nil when there are none.
func onScreenElements(root *Element, br *Browser, ids *IDs) map[*Element]bool {
	var frames []*Frame
	seen := map[*Frame]bool{}
	var add func(f *Frame)
	add = func(f *Frame) {
		if f == nil || seen[f] {
			return
		}
		seen[f] = true
		if len(f.OnScreen) > 0 {
			frames = append(frames, f)
		}
		for _, c := range f.Frames {
			add(c)
		}
	}
	if br != nil {
		for _, w := range br.Windows {
			for _, t := range w.Tabs {
				add(t.Doc)
			}
		}
	}
	if len(frames) == 0 || root == nil {
		return nil
	}
	byID := map[string]*Element{}
	var index func(e *Element)
	index = func(e *Element) {
		byID[e.ID] = e
		for _, c := range e.Children {
			index(c)
		}
	}
	index(root)
	out := map[*Element]bool{}
	for _, f := range frames {
		want := make(map[cdproto.BackendNodeID]bool, len(f.OnScreen))
		for _, id := range f.OnScreen {
			want[id] = true
		}
		nodes := make(map[accessibility.NodeID]*accessibility.Node, len(f.Nodes))
		var hits []*accessibility.Node
		for _, n := range f.Nodes {
			if n == nil {
				continue
			}
			nodes[n.NodeID] = n
			if n.BackendDOMNodeID != 0 && want[n.BackendDOMNodeID] {
				hits = append(hits, n)
			}
		}
		elementOf := func(n *accessibility.Node) *Element {
			if n == nil || n.BackendDOMNodeID == 0 {
				return nil
			}
			return byID[f.nodeID(ids, n.BackendDOMNodeID)]
		}
		for _, n := range hits {
			if e := elementOf(n); e != nil {
				out[e] = true
				continue
			}
			for _, c := range n.ChildIDs {
				if cn := nodes[c]; cn != nil && roleOf(cn) == "StaticText" {
					if e := elementOf(cn); e != nil {
						out[e] = true
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
