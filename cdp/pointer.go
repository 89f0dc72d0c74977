package cdp

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
)

// The pointer of a read (read.go), read live.

// hoverScript returns the chain of hovered elements of a document, deepest
// first, through open shadow roots. `:is(*):hover` because bare `:hover`
// matches nothing in quirks mode. It only reads.
var hoverScript = fill(jsTemplate("hover.js"), "chain", chainJS)

// chainJS, inside a script where el is an element (or null), returns el
// and its ancestors, deepest first, across shadow roots to their hosts: at
// most 16, which is enough to reach one the accessibility tree has.
var chainJS = jsTemplate("chain.js")

// pointerAt is where the pointer is: the document it is over (nil when
// none can be told) and the chain of hovered elements there, deepest
// first.
type pointerAt struct {
	in    *doc
	hover []cdproto.BackendNodeID
}

// findPointer finds the document the pointer is in among the shown
// documents (topDocs, the focused window's first) and the chain of
// hovered elements there.
//
// Chrome leaves a stale :hover behind in a frame the pointer left across
// a process boundary, in the parent as well as in the child. So the
// document the pointer is in is the one whose listener saw it move last;
// until a listener has seen it move (the first read of a page), the
// provider goes down from the focused window's top document through
// hovered <iframe> elements.
func findPointer(ctx context.Context, topDocs []*doc) pointerAt {
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
	for _, top := range topDocs {
		visit(top)
	}
	switch {
	case last != nil:
		if at, ok := hoverIn(ctx, last, false); ok {
			return at
		}
		return pointerAt{in: last}
	case len(topDocs) > 0:
		at, _ := hoverIn(ctx, topDocs[0], true)
		return at
	}
	return pointerAt{}
}

// hoverIn returns where the pointer is in d, from its hovered elements;
// ok is false when none is. With descend, a hovered <iframe> leads into
// its document.
func hoverIn(ctx context.Context, d *doc, descend bool) (at pointerAt, ok bool) {
	cr := d.hover
	if cr == nil {
		cr = chainFor(ctx, d.sess, d.frameID, hoverChain, d.state.hoverKept)
	}
	chain, child, ok := cutChain(ctx, d, cr)
	switch {
	case !ok:
		return pointerAt{}, false
	case child != nil && descend:
		if at, ok := hoverIn(ctx, child, true); ok {
			return at, true
		}
		return pointerAt{in: child}, true // over the frame, nothing inside hovered
	}
	return pointerAt{in: d, hover: chain}, true
}

// chainRead is what an element chain script found in a document: the
// backend node id of the deepest element (0 when it could not be
// described); ok is false when it found none. The rest of the chain, its
// ancestors, stays in the isolated world under its key until cutChain needs
// it: usually the deepest element is one the accessibility tree has, and
// the chain costs two round trips instead of three.
type chainRead struct {
	first cdproto.BackendNodeID
	ok    bool
	sess  *session
	frame cdproto.FrameID
	rest  string // the script that returns the chain kept (chainScript.rest)
	// token names the chain as kept in the isolated world (chainKeep.js);
	// 0 when it is not kept there.
	token uint64

	mu          sync.Mutex
	ancestorIDs []cdproto.BackendNodeID // the ancestors, once all were described; guarded by mu
}

// chainStore is where the isolated world keeps the chains read last, one
// per key: it holds at most one chain of each kind a document.
const chainStore = "globalThis.__cdpproviderChains"

// chainScript is an element chain script made ready to run: keep runs it
// and keeps its array in the isolated world under key (chain_keep.js),
// returning the deepest element; rest returns the array kept
// (chain_rest.js).
type chainScript struct {
	key, keep, rest string
}

func newChainScript(script, key string) chainScript {
	return chainScript{
		key:  key,
		keep: fill(jsTemplate("chain_keep.js"), "script", script, "store", chainStore, "key", key),
		rest: fill(jsTemplate("chain_rest.js"), "store", chainStore, "key", key),
	}
}

// The chains of the focused and the hovered elements.
var (
	focusChain = newChainScript(focusScript, "focus")
	hoverChain = newChainScript(hoverScript, "hover")
)

// chainTokens numbers the chains the providers of this process keep in
// isolated worlds. A token is that number under the provider's watchID
// (chainToken): the world, and the chains kept in it, are shared with
// the other providers attached to the browser, whose numbers are their
// own, and a chain another provider kept under a token must never be
// taken for the one this provider kept under the same number.
var chainTokens atomic.Uint64

// chainToken returns a new token for a chain the provider of watchID
// keeps: the low 20 bits of watchID over a 32-bit number, at most 2^52,
// which a script's number holds exactly.
func chainToken(watchID int64) uint64 {
	return uint64(watchID&(1<<20-1))<<32 | chainTokens.Add(1)&(1<<32-1)
}

// chainFor returns the chain of a frame: none when the page state read
// in this read says there is none (kept is noChain: pageState.focusKept
// or hoverKept), what the provider made of it at its last read there
// when the page state says that it is still those elements, else
// readChain. A chain of the same elements has
// the same backend node ids: the ids stay with a DOM node for its life.
func chainFor(ctx context.Context, s *session, frame cdproto.FrameID, cs chainScript, kept int64) *chainRead {
	if kept == noChain {
		return &chainRead{} // none: what readChain finds of an empty one
	}
	if kept > 0 {
		s.chainsMu.Lock()
		cr := s.chains[chainKey{frame, cs.key}]
		s.chainsMu.Unlock()
		if cr != nil && int64(cr.token) == kept {
			return cr
		}
	}
	return readChain(ctx, s, frame, cs)
}

// readChain runs a chain script, which returns an array of elements
// deepest first, in the isolated world of a frame; it keeps the array
// there under its key, with a new token, and describes its first
// element. The session remembers the answer under that token (chainFor).
func readChain(ctx context.Context, s *session, frame cdproto.FrameID, cs chainScript) *chainRead {
	group := newObjectGroup()
	defer s.releaseGroup(ctx, group)
	token := chainToken(s.watchID)
	el, err := evalObject(ctx, s, frame, strings.Replace(cs.keep, "/*token*/0", strconv.FormatUint(token, 10), 1), group, false)
	if err != nil {
		return &chainRead{}
	}
	cr := &chainRead{sess: s, frame: frame, rest: cs.rest, token: token}
	if el.ObjectID != "" && el.Subtype == "node" {
		cr.ok = true
		n, err := cdproto.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: el.ObjectID})
		if err != nil || n.Node == nil {
			cr.token = 0 // not to be taken again: described, it may well be found
			return cr
		}
		cr.first = n.Node.BackendNodeID
	}
	s.chainsMu.Lock()
	if s.chains == nil {
		s.chains = map[chainKey]*chainRead{}
	}
	s.chains[chainKey{frame, cs.key}] = cr
	s.chainsMu.Unlock()
	return cr
}

// ancestors returns the ancestors of the deepest element, in order (0 for
// one that could not be described), asked for once: a chain taken again
// (chainFor) is the same elements.
func (cr *chainRead) ancestors(ctx context.Context) []cdproto.BackendNodeID {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.ancestorIDs != nil {
		return cr.ancestorIDs
	}
	ids := elementIDs(ctx, cr.sess, cr.frame, cr.rest, 1)
	if ids != nil && !slices.Contains(ids, 0) {
		cr.ancestorIDs = ids
	}
	return ids
}

// cutChain returns the chain of d's elements up to the first one d's
// accessibility tree has, asking for the deepest element's ancestors only
// when the tree does not have it. When the deepest element owns a child
// document that was read, it returns that document instead. ok is false
// when the chain is empty.
func cutChain(ctx context.Context, d *doc, cr *chainRead) (chain []cdproto.BackendNodeID, child *doc, ok bool) {
	if cr == nil || !cr.ok {
		return nil, nil, false
	}
	if ch := d.children[cr.first]; cr.first != 0 && ch != nil {
		return nil, ch, true
	}
	ids := []cdproto.BackendNodeID{cr.first}
	has := inTree(d.nodes, ids)
	if !has[cr.first] {
		ids = append(ids, cr.ancestors(ctx)...)
		has = inTree(d.nodes, ids)
	}
	for _, id := range ids {
		if id == 0 {
			continue
		}
		chain = append(chain, id)
		if has[id] {
			break
		}
	}
	return chain, nil, true
}

// inTree reports which of a few elements an accessibility tree has. It
// looks through the nodes once, and stops when it has found them all:
// an index of every node, made at each read, was half the time of a read
// of an unchanged 50,000-node document.
func inTree(nodes []*accessibility.Node, ids []cdproto.BackendNodeID) map[cdproto.BackendNodeID]bool {
	has := make(map[cdproto.BackendNodeID]bool, len(ids))
	for _, id := range ids {
		if id != 0 {
			has[id] = false
		}
	}
	left := len(has)
	for _, n := range nodes {
		if left == 0 {
			break
		}
		if found, wanted := has[n.BackendDOMNodeID]; wanted && !found {
			has[n.BackendDOMNodeID] = true
			left--
		}
	}
	return has
}
