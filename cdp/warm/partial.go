package warm

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
)

// partialWidth bounds the calls PartialNodes has under way at once:
// Chrome answers them one after another, and a few in flight keep it
// busy without a round trip between them.
const partialWidth = 8

// holderMostMissing is the most children, not among the answers so far,
// for which PartialNodes asks for an element that holds others on
// screen and no text of its own. Chrome's answer for an element holds all its children, about
// 0.085 ms of the page's main thread each (Chromium 156): 843 ms for a
// list of 10,000 items, 70 ms for p50k's <main> of 584 sections, where
// the rest of the read's calls take a few milliseconds. Past it, the
// children not asked for stand in the answer as not read
// (mapping.Frame.Partial): the screen's lines of what it left out say
// "more", without a number, until the page's tree is kept.
const holderMostMissing = 100

// PartialNodes returns the part of a document's accessibility tree that
// places the given DOM elements: for each, its node, its ancestors up to
// the document's and its children (Accessibility.getPartialAXTree with
// fetchRelatives; Chrome gives no siblings), and the children of what is
// on screen with its parent (boxless) but for a text's and a list item's
// marker's, merged, the document's node first
// and the rest in tree order. It is what a read of a document's screen
// asks for before the document's tree is kept (Activity.ScreenFirst): a
// few calls of a fraction of a millisecond each, where a getFullAXTree of
// a large page holds the page for seconds. A node's children that are
// not among the nodes were not asked for. An element with no node
// (removed meanwhile) is left out; it fails only when no element answers.
// The nodes are not kept, and Chrome sends no event for them.
//
// holders (nil: none known) are the elements that hold another of them,
// each true when it holds text of its own (the screen script says). They
// are asked for last, the deepest first, and only when the answers
// before lack their node or one of its children: an element's answer
// brings its ancestors, the holders above it, with the list of their
// children, and a holder's own answer brings all its children (584 at
// p50k, whose <main> holds its sections; 10,000 for a long list). A
// holder without text of its own that lacks more than holderMostMissing
// children is not asked for: what it lacks holds no element on screen
// (each was asked for) and no text of its own. The nodes are the same as
// of asking for every element, but for the children of such a holder.
func PartialNodes(ctx context.Context, c Caller, frame cdproto.FrameID, elements []cdproto.BackendNodeID, holders map[cdproto.BackendNodeID]bool) ([]*accessibility.Node, error) {
	if len(elements) == 0 {
		return nil, errors.New("no element to ask for")
	}
	var (
		mu        sync.Mutex
		byID      = map[accessibility.NodeID]*accessibility.Node{}
		byElement = map[cdproto.BackendNodeID]*accessibility.Node{}
		answered  int
		firstErr  error
	)
	add := func(r slimNodes) {
		for _, n := range r.nodes() {
			if n != nil {
				byID[n.NodeID] = n
				if n.BackendDOMNodeID != 0 && byElement[n.BackendDOMNodeID] == nil {
					byElement[n.BackendDOMNodeID] = n
				}
			}
		}
	}
	// spared reports whether a holder is not asked for: the answers so
	// far hold its node and all its children, or, of one without text of
	// its own, its node and lack more than holderMostMissing of its
	// children.
	spared := func(id cdproto.BackendNodeID) bool {
		mu.Lock()
		defer mu.Unlock()
		n := byElement[id]
		if n == nil {
			return false
		}
		lack := 0
		for _, c := range n.ChildIDs {
			if byID[c] == nil {
				lack++
			}
		}
		return lack == 0 || lack > holderMostMissing && !holders[id]
	}
	// ask asks for each element of ids, partialWidth at a time; with
	// spare, not for one spared by the answers when its turn comes.
	ask := func(ids []cdproto.BackendNodeID, spare bool) {
		inParallel(len(ids), func(i int) {
			if spare && spared(ids[i]) {
				return
			}
			r, err := call(ctx, c, partialTree, accessibility.GetPartialAXTreeParams{BackendNodeID: ids[i], FetchRelatives: ptr(true)})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			answered++
			add(r)
		})
	}
	var first, last []cdproto.BackendNodeID
	for _, id := range elements {
		if _, ok := holders[id]; ok {
			last = append(last, id)
		} else {
			first = append(first, id)
		}
	}
	slices.Reverse(last) // the deepest first
	ask(first, false)
	ask(last, true)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if answered == 0 {
		return nil, firstErr
	}
	// What has no box of its own (a node with no DOM element) is on
	// screen when its parent is: its children are asked for too, a level
	// at a time, the calls of a level partialWidth at a time. Not a
	// text's (its InlineTextBoxes, which a walk does not go below
	// either: hasChildrenToFetch), nor a list item's marker's (the
	// mapping drops a marker with what it holds, an ignored node): no
	// answer holds anything of them, and they were 51 and 5 calls on
	// p50k's screen.
	on := make(map[cdproto.BackendNodeID]bool, len(elements))
	for _, id := range elements {
		on[id] = true
	}
	for range 4 {
		var more []accessibility.NodeID
		for _, n := range byID {
			if holdsMore(n) && n.ParentID != "" && shown(byID, on, byID[n.ParentID]) && missingChildren(byID, n) {
				more = append(more, n.NodeID)
			}
		}
		if len(more) == 0 {
			break
		}
		inParallel(len(more), func(i int) {
			r, err := call(ctx, c, childAXNodes, accessibility.GetChildAXNodesParams{ID: more[i], FrameID: frame})
			if err == nil { // (else gone meanwhile: counted as not read)
				mu.Lock()
				add(r)
				mu.Unlock()
			}
		})
	}
	var root *accessibility.Node
	for _, n := range byID {
		if n.ParentID == "" && (root == nil || n.NodeID < root.NodeID) {
			root = n
		}
	}
	if root == nil {
		return nil, errors.New("the nodes asked for have no root")
	}
	// In tree order from the root, as a whole tree is given.
	return (&tree{root: root.NodeID, nodes: byID}).ordered(), nil
}

// inParallel calls fn for each i below n, partialWidth calls at a time,
// and returns when all have returned.
func inParallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(partialWidth, n) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// boxless reports whether a node has no box the screen script could find
// (it walks elements): a text, a list item's marker, or a node with no
// DOM node of its own. It is on screen when its parent is.
func boxless(n *accessibility.Node) bool {
	if n.BackendDOMNodeID == 0 {
		return true
	}
	switch Role(n) {
	case "StaticText", "ListMarker", "LineBreak":
		return true
	}
	return false
}

// holdsMore reports whether the children of n, boxless, are asked for
// when it is on screen: not a text's nor a list item's marker's, which no
// read maps.
func holdsMore(n *accessibility.Node) bool {
	return boxless(n) && hasChildrenToFetch(n) && Role(n) != "ListMarker"
}

// shown reports whether n is on screen: its DOM element is one of on, or
// it is boxless below one that is.
func shown(byID map[accessibility.NodeID]*accessibility.Node, on map[cdproto.BackendNodeID]bool, n *accessibility.Node) bool {
	for range 64 {
		if n == nil {
			return false
		}
		if on[n.BackendDOMNodeID] && n.BackendDOMNodeID != 0 {
			return true
		}
		if !boxless(n) {
			return false
		}
		n = byID[n.ParentID]
	}
	return false
}

// missingChildren reports whether a node names a child not among the
// nodes.
func missingChildren(byID map[accessibility.NodeID]*accessibility.Node, n *accessibility.Node) bool {
	for _, id := range n.ChildIDs {
		if byID[id] == nil {
			return true
		}
	}
	return false
}
