package cdp

import (
	"context"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
)

// FullAXTree calls Accessibility.getFullAXTree on s and decodes the nodes
// as a read decodes them: without the sources of names and values, their
// related nodes and the reasons a node is ignored (package warm). It is
// the baseline the benchmarks time a read against, so that both do the
// same decoding.
func FullAXTree(ctx context.Context, s cdp.Session, params accessibility.GetFullAXTreeParams) ([]*accessibility.Node, error) {
	return warm.FullAXTree(ctx, s, params)
}
