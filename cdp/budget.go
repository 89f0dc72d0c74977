package cdp

import (
	"context"

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
	setScreen(p.findScreen(ctx, topDocs, nil), frames, false)
	return mapping.ApplyBudgetOnScreen(root, p.opts.Budget, b, p.ids)
}
