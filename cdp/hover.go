package cdp

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
)

// hoverScript returns the chain of hovered elements of a document, deepest
// first, through open shadow roots. `:is(*):hover` because bare `:hover`
// matches nothing in quirks mode. It only reads.
const hoverScript = `(() => {
  const last = (root) => { const l = root.querySelectorAll(':is(*):hover'); return l.length ? l[l.length - 1] : null; };
  let el = last(document);
  while (el && el.shadowRoot) { const inner = last(el.shadowRoot); if (!inner) break; el = inner; }
  ` + chainJS + `
})()`

// chainJS, inside a script where el is an element (or null), returns el
// and its ancestors, deepest first, across shadow roots to their hosts: at
// most 16, which is enough to reach one the accessibility tree has.
const chainJS = `const chain = [];
  for (let n = el; n && chain.length < 16; ) {
    chain.push(n);
    const up = n.parentNode;
    n = up instanceof ShadowRoot ? up.host : (up instanceof Element ? up : null);
  }
  return chain;`

// findPointer finds the document the pointer is in among the shown
// documents (tops, the focused window's first) and records there the chain
// of hovered elements.
//
// Chrome leaves a stale :hover behind in a frame the pointer left across
// a process boundary, in the parent as well as in the child. So the
// document the pointer is in is the one whose listener saw it move last;
// until a listener has seen it move (the first read of a page), the
// provider goes down from the focused window's top document through
// hovered <iframe> elements.
func (p *Provider) findPointer(ctx context.Context, tops []*doc) {
	var last *doc
	var lastT float64
	var visit func(d *doc)
	visit = func(d *doc) {
		if t := d.state.pointer; t > lastT {
			last, lastT = d, t
		}
		for _, ch := range d.children {
			visit(ch)
		}
	}
	for _, top := range tops {
		visit(top)
	}
	switch {
	case last != nil:
		if !p.hoverIn(ctx, last, false) {
			last.frame.Pointer = true
		}
	case len(tops) > 0:
		p.hoverIn(ctx, tops[0], true)
	}
}

// hoverIn records the hovered elements of d and reports whether any is.
// With descend, a hovered <iframe> leads into its document.
func (p *Provider) hoverIn(ctx context.Context, d *doc, descend bool) bool {
	chain, child, ok := elementChain(ctx, d, hoverScript)
	switch {
	case !ok:
		return false
	case child != nil && descend:
		if !p.hoverIn(ctx, child, true) {
			child.frame.Pointer = true // over the frame, nothing inside hovered
		}
		return true
	}
	d.frame.Pointer = true
	d.frame.Hover = chain
	return true
}

// chainGroup is the object group of the remote objects elementChain makes.
const chainGroup = "cdpprovider-chain"

// elementChain runs script, which returns an array of elements deepest
// first, in d's isolated world, and returns their backend node ids up to
// the first one d's accessibility tree has. When the deepest element owns
// a child document that was read, it returns that document instead. ok is
// false when the script found no element.
func elementChain(ctx context.Context, d *doc, script string) (chain []cdp.BackendNodeID, child *doc, ok bool) {
	defer cdp.Call(ctx, d.sess, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: chainGroup})
	arr, err := evalObject(ctx, d.sess, d.frameID, script, chainGroup, false)
	if err != nil || arr.ObjectID == "" {
		return nil, nil, false
	}
	props, err := cdp.Call(ctx, d.sess, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: arr.ObjectID, OwnProperties: ptr(true)})
	if err != nil {
		return nil, nil, false
	}
	var elems []runtime.RemoteObjectID
	for _, pr := range props.Result {
		if pr.Value != nil && pr.Value.ObjectID != "" && pr.Value.Subtype == "node" {
			elems = append(elems, pr.Value.ObjectID)
		}
	}
	if len(elems) == 0 {
		return nil, nil, false
	}
	inAX := map[cdp.BackendNodeID]bool{}
	for _, n := range d.frame.Nodes {
		if n.BackendDOMNodeID != 0 {
			inAX[n.BackendDOMNodeID] = true
		}
	}
	for i, obj := range elems {
		n, err := cdp.Call(ctx, d.sess, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj})
		if err != nil || n.Node == nil {
			continue
		}
		if ch := d.children[n.Node.BackendNodeID]; i == 0 && ch != nil {
			return nil, ch, true
		}
		chain = append(chain, n.Node.BackendNodeID)
		if inAX[n.Node.BackendNodeID] {
			break
		}
	}
	return chain, nil, true
}
