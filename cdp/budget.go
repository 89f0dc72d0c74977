package cdp

import (
	"context"
	"sync"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// The budgets of a read (read.go; 5.6): after mapping.Build, cut to them,
// keeping what is on screen.

// applyBudget applies the element and size budgets to an answer,
// keeping what is on screen (5.6), which it looks for only when there is
// a cut to make. It reports whether it cut anything.
// frames are the documents' frames in b. A warm read measures the answer
// with the measures of the unchanged Documents kept from the read before;
// a cold read, whose elements are all new, keeps none.
func (p *Provider) applyBudget(ctx context.Context, root *mapping.Element, b *mapping.Browser, topDocs []*doc, frames map[*doc]*mapping.Frame, cold bool) bool {
	over := p.state.budgets.OverBudget
	if cold {
		over = mapping.OverBudget
	}
	if !over(root, p.opts.Budget) {
		return false
	}
	findOnScreen(ctx, topDocs, frames)
	return mapping.ApplyBudgetOnScreen(root, p.opts.Budget, b, p.ids)
}

// onScreenScript returns the elements a person sees in the document's
// viewport: it samples document.elementsFromPoint (the whole stack under
// each point, through open shadow roots) over a grid of at most about
// 2,000 points, and returns each element once, at most 4,000 of them. It
// only reads: hit testing changes nothing in the page.
var onScreenScript = fill(jsTemplate("onscreen.js"))

// findOnScreen fills the OnScreen of the frames of the documents shown
// (topDocs, and the documents of the iframes that are themselves on
// screen) with the DOM elements a person sees in them. It costs a script and a round trip per
// element found in each document, so the caller does it only when an
// answer must be cut (mapping.OverBudget). A document it cannot read is
// left without OnScreen; the cut then keeps reading order there.
func findOnScreen(ctx context.Context, topDocs []*doc, frames map[*doc]*mapping.Frame) {
	var wg sync.WaitGroup
	var visit func(d *doc)
	visit = func(d *doc) {
		ids := onScreenIn(ctx, d)
		frames[d].OnScreen = ids
		seen := make(map[cdproto.BackendNodeID]bool, len(ids))
		for _, id := range ids {
			seen[id] = true
		}
		for owner, ch := range d.children {
			if seen[owner] {
				wg.Go(func() { visit(ch) })
			}
		}
	}
	for _, d := range topDocs {
		wg.Go(func() { visit(d) })
	}
	wg.Wait()
}

// onScreenIn runs onScreenScript in d's isolated world and returns the
// backend node ids of the elements it found.
func onScreenIn(ctx context.Context, d *doc) []cdproto.BackendNodeID {
	ids := elementIDs(ctx, d.sess, d.frameID, onScreenScript, 0)
	out := ids[:0]
	for _, id := range ids {
		if id != 0 {
			out = append(out, id)
		}
	}
	return out
}
