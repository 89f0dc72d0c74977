package cdp

import (
	"context"
	"slices"

	cdproto "github.com/chromedp/cdproto/cdp"
)

// The keyboard focus of a read (read.go), read live.

// focusScript returns the chain of the element with keyboard focus in a
// document, deepest first, through open shadow roots; an empty array when
// the document itself has it (activeElement is the body). It only reads.
var focusScript = fill(jsTemplate("focus.js"), "chain", chainJS)

// focusPath is where the keyboard focus is: the documents from the
// focused window's top document down to the one that holds the focused
// element (each has the focus), and that element's chain there, deepest
// first (empty when the document itself has it).
type focusPath struct {
	docs  []*doc
	chain []cdproto.BackendNodeID
}

// has says whether d is on the focus path.
func (f focusPath) has(d *doc) bool { return slices.Contains(f.docs, d) }

// chainIn is the focused element's chain in d: nil but in the document
// that holds it.
func (f focusPath) chainIn(d *doc) []cdproto.BackendNodeID {
	if len(f.docs) == 0 || f.docs[len(f.docs)-1] != d {
		return nil
	}
	return f.chain
}

// readFocus reads the focus live, down from the focused window's top
// document (nil: none): each document on the path has it, and the one
// that holds the focused element has its chain. Chrome's accessibility
// properties go stale on blur (no event), so they are not used.
func readFocus(ctx context.Context, d *doc) focusPath {
	var f focusPath
	for d != nil {
		f.docs = append(f.docs, d)
		cr := d.focus
		if cr == nil {
			cr = chainFor(ctx, d.sess, d.frameID, focusChain, d.state.focusKept)
		}
		chain, child, _ := cutChain(ctx, d, cr)
		if child == nil {
			f.chain = chain
			break
		}
		d = child
	}
	return f
}
