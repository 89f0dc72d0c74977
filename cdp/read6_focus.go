package cdp

import "context"

// Step 6 of a read, with read6_pointer.go: the keyboard focus.

// focusScript returns the chain of the element with keyboard focus in a
// document, deepest first, through open shadow roots; an empty array when
// the document itself has it (activeElement is the body). It only reads.
var focusScript = fill(jsTemplate("focus.js"), "chain", chainJS)

// markFocus reads the focus live, down from the focused window's top
// document: each document on the path gets HasFocus, and the one that
// holds the focused element gets its chain. Chrome's accessibility
// properties go stale on blur (no event), so they are not used.
func markFocus(ctx context.Context, d *doc) {
	d.frame.HasFocus = true
	d.frame.FocusLive = true
	cr := d.focus
	if cr == nil {
		cr = readChain(ctx, d.sess, d.frameID, focusChain)
	}
	chain, child, _ := cutChain(ctx, d, cr)
	if child != nil {
		markFocus(ctx, child)
		return
	}
	d.frame.Focus = chain
}
