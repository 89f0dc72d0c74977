package cdp

import (
	"context"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
)

// rangeRoles are the roles whose value a person reads as aria-valuetext
// when the page gives one.
var rangeRoles = map[string]bool{
	"slider": true, "spinbutton": true, "progressbar": true, "meter": true, "scrollbar": true,
}

// valueTexts returns the aria-valuetext attribute of the range widgets
// among nodes that have one, keyed by backend DOM node id (nil when none
// has). Chrome leaves it out of the accessibility tree's valuetext
// property. The attribute is read with DOM.describeNode, which changes
// nothing in the page and runs no script; a node that cannot be described
// (removed meanwhile) is left out.
func valueTexts(ctx context.Context, s *cdpSession, nodes []*accessibility.Node) map[cdp.BackendNodeID]string {
	var out map[cdp.BackendNodeID]string
	for _, n := range nodes {
		if n.Ignored || n.BackendDOMNodeID == 0 || !rangeRoles[axRole(n)] {
			continue
		}
		d, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: n.BackendDOMNodeID})
		if err != nil || d.Node == nil {
			continue
		}
		for i := 0; i+1 < len(d.Node.Attributes); i += 2 {
			if d.Node.Attributes[i] == "aria-valuetext" && d.Node.Attributes[i+1] != "" {
				if out == nil {
					out = map[cdp.BackendNodeID]string{}
				}
				out[n.BackendDOMNodeID] = d.Node.Attributes[i+1]
			}
		}
	}
	return out
}
