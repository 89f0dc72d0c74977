package cdp

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/cdp/wire"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// The assembly of a read (read.go): the fetched frames stitched into
// each tab's document, the documents numbered.

// docKey names a document: a frame with one loader (a navigation makes a
// new document), in the session of the target that holds the frame.
type docKey struct {
	target target.ID
	frame  cdproto.FrameID
	loader cdproto.LoaderID
}

// docInfo is what the provider keeps of a document it numbered, from
// numberDoc to forgetDoc (connState has the lock rule): how locate finds
// it again, and what the next read takes of it.
type docInfo struct {
	n      uint64 // its number, the key of connState.docs
	key    docKey
	tab    target.ID             // the page target of the tab
	parent uint64                // the parent document's number; 0 at the top
	owner  cdproto.BackendNodeID // the <iframe> element in the parent document
	geo    *docGeometry          // what locate keeps of it (measure.go); nil until located
	// base is the mapping's NodeBase for the document: its document
	// node's backend id, taken from the first tree read of it (based), so
	// that its ids never change.
	base  cdproto.BackendNodeID
	based bool
	// mapped is its Document element as the last read mapped it, for
	// the next read when it is unchanged (keepMapped, reuseMapped);
	// zero when none.
	mapped memo
	// partial is the last screen read of it made from the nodes on
	// screen alone (partialFetch), for the next while nothing moved;
	// nil when none.
	partial *partialScreen
	// shown is its Document element in the last answer, for a read when
	// its page cannot be asked (rememberShown, readDown); held says the
	// last read answered that (cleared at each read's start, listPages).
	shown *mapping.Element
	held  bool
	// screen is what is on screen of it, and the numbering of its
	// elements the screen script keeps (screen.go).
	screen docScreen
}

// numberDoc numbers a document the first time a read shows it: the one
// place where what is kept of a document is made. The number is the
// next of the provider's numbers (never reused), and feeds the ids of
// the document's elements (docs/ids.md).
func (p *Provider) numberDoc(key docKey, tab target.ID, parent uint64, owner cdproto.BackendNodeID) *docInfo {
	d := &docInfo{n: p.keys.next(), key: key, tab: tab, parent: parent, owner: owner}
	p.state.docs[d.n] = d
	return d
}

// forgetDoc forgets a document: the one place where what is kept of it
// goes, the ids' record of its elements too. Its elements' ids answer
// gone from then on.
func (st *connState) forgetDoc(n uint64) {
	delete(st.docs, n)
	st.ids.Forget(n)
}

// forgetAll forgets every document, as the connection goes (the browser
// is gone: a new connection numbers its documents anew).
func (st *connState) forgetAll() {
	if st == nil {
		return
	}
	for n := range st.docs {
		st.forgetDoc(n)
	}
}

// docNumbered returns the document of a key, nil when it has no number.
func (st *connState) docNumbered(key docKey) *docInfo {
	for _, d := range st.docs {
		if d.key == key {
			return d
		}
	}
	return nil
}

// topScreen returns what the provider keeps of the screen of a tab's top
// document, the one numbered last (a tab's top frame's id is its
// target's); an empty one when none, or when the tab shows another
// document than that one (shown, the loader its page's events last told;
// empty: not told). A read sends the screen script with it before it
// knows the document (sendScreen): the call of the function a document
// gone kept would answer "absent", and the script sent after it would
// begin a round trip later, behind whatever the page's main thread does
// first (Chrome's accessibility tree after a load: 250 ms at p50k). When
// it is another document all the same, the script's numbering is another
// too, and the answer starts a new one (takeScreen).
func (st *connState) topScreen(tab target.ID, shown cdproto.LoaderID) *docScreen {
	var top *docInfo
	for _, d := range st.docs {
		if d.key.target == tab && d.key.frame == cdproto.FrameID(tab) && (top == nil || d.n > top.n) {
			top = d
		}
	}
	if top == nil || shown != "" && top.key.loader != shown {
		return &docScreen{}
	}
	return &top.screen
}

// doc is a document read: what its frame is made of (frameOf), and how
// to reach it.
type doc struct {
	n         uint64                           // its number (docKey)
	url       string                           // with its fragment
	nodes     []*accessibility.Node            // its accessibility tree
	valueText map[cdproto.BackendNodeID]string // valueTexts
	textSum   uint64                           // sumTexts(valueText)
	base      cdproto.BackendNodeID            // the mapping's NodeBase (docInfo.base)
	info      *docInfo                         // what the provider keeps of it

	sess    *session
	frameID cdproto.FrameID
	state   pageState // what the provider's watchers saw
	version uint64    // of the warm tree the nodes came from; 0 when read cold
	// focus and hover are the element chains the fetch phase read ahead;
	// nil when it did not.
	focus, hover *chainRead
	// partial says nodes are only those that place what is on screen
	// (partialFetch).
	partial  bool
	children map[cdproto.BackendNodeID]*doc
}

// readDocument reads a tab's document with all its frames.
func (p *Provider) readDocument(ctx context.Context, c *wire.Conn, r *tabRead) (*doc, error) {
	r.mu.Lock()
	err, ff := r.err, r.fetched[cdproto.FrameID(r.tab)]
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if ff == nil {
		return nil, fmt.Errorf("the tab's top frame is not in its frame tree")
	}
	return p.assemble(ctx, c, r, ff, 0, 0, 0)
}

// assemble makes the doc of a fetched frame and, recursively, of the
// frames its <iframe> elements hold.
func (p *Provider) assemble(ctx context.Context, c *wire.Conn, r *tabRead, ff *frameFetch, depth int, parent uint64, owner cdproto.BackendNodeID) (*doc, error) {
	if depth > 16 {
		return nil, fmt.Errorf("frames nested deeper than 16")
	}
	if ff.err != nil {
		return nil, ff.err
	}
	if r.shown == nil {
		r.shown = map[*frameFetch]bool{}
	}
	r.shown[ff] = true
	st := p.state
	f := ff.frame
	key := docKey{ff.target, f.ID, f.LoaderID}
	info := st.docNumbered(key)
	if info == nil {
		info = p.numberDoc(key, r.tab, parent, owner)
		for m, d := range st.docs { // the frame's earlier documents are gone
			if d.key.target == key.target && d.key.frame == key.frame && d.key.loader != key.loader {
				st.forgetDoc(m)
			}
		}
	}
	n := info.n
	if !info.based && len(ff.nodes) > 0 && ff.nodes[0] != nil {
		info.base, info.based = ff.nodes[0].BackendDOMNodeID, true
	}
	d := &doc{
		n:         n,
		url:       f.URL + f.URLFragment,
		nodes:     ff.nodes,
		valueText: ff.valueText,
		textSum:   ff.textSum,
		base:      info.base,
		info:      info,
		sess:      ff.sess,
		frameID:   f.ID,
		state:     ff.state,
		version:   ff.version,
		focus:     ff.focus,
		hover:     ff.hover,
		children:  map[cdproto.BackendNodeID]*doc{},
		partial:   ff.partial != nil,
	}
	if ff.partial != nil {
		keepPartial(info, ff.partial)
	} else {
		info.partial = nil
	}
	for _, el := range ff.scan.owners {
		id := r.ownedFrame(ctx, ff, el)
		if id == "" {
			continue // not loaded yet
		}
		r.mu.Lock()
		child := r.fetched[id]
		r.mu.Unlock()
		if child == nil {
			var err error
			if child, err = p.fetchLate(ctx, c, r, id); err != nil || child == nil {
				if err != nil {
					p.log.Debug("could not read an iframe", "err", err)
				}
				continue // not loaded yet
			}
		}
		cd, err := p.assemble(ctx, c, r, child, depth+1, n, el)
		if err != nil {
			p.log.Debug("could not read an iframe", "err", err)
			continue
		}
		d.children[el] = cd
	}
	return d, nil
}

// ownedFrame returns the frame an <iframe> element of a document holds,
// "" when none is loaded. Elements whose frame the fetch phase did not
// see (added meanwhile) are asked about.
func (r *tabRead) ownedFrame(ctx context.Context, ff *frameFetch, element cdproto.BackendNodeID) cdproto.FrameID {
	r.mu.Lock()
	id := r.owners[ownerKey{ff.target, element}]
	r.mu.Unlock()
	if id != "" {
		return id
	}
	d, err := cdproto.Call(ctx, ff.sess, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: element})
	if err != nil || d.Node == nil {
		return ""
	}
	return d.Node.FrameID
}

// fetchLate fetches a frame the fetch phase did not know of: an
// out-of-process iframe that appeared meanwhile. It returns nil when the
// frame has no target yet (not loaded).
func (p *Provider) fetchLate(ctx context.Context, c *wire.Conn, r *tabRead, id cdproto.FrameID) (*frameFetch, error) {
	ti := r.live[target.ID(id)]
	if ti == nil || ti.Type != "iframe" {
		return nil, nil
	}
	s, err := p.attach(ctx, c, p.state, ti.TargetID)
	if err != nil {
		return nil, err
	}
	// (Its owner is the element the assembly asked about already.)
	if err := p.fetchSession(ctx, r, tabSession{ti.TargetID, s, p.axOf(s)}, tabSession{}, false); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fetched[id], nil
}

// forgetGoneFrames forgets the documents of the frames that the frame
// trees of the tab's sessions, read by r, no longer list (an iframe
// removed): their element ids answer gone from now on, and what the
// provider knows of documents is bounded by the frames alive, however
// many iframes a page makes and removes while the provider is attached
// (session.forgetFrame lets go of the rest). A session whose frame tree
// this read did not get keeps its documents.
//
// Chrome sends no Page.frameDetached for the iframes of a document that
// navigated away (only for an iframe removed), so what the session keeps
// of those frames goes here too, with session.forgetFrame: its worlds,
// chains and warm trees in frames its frame tree no longer lists, and in
// those of the documents forgotten. Without it each navigation of a page
// with an iframe left a world, a chain and a frame's warm trees behind
// (TestLeakLoopKeepsOnlyWhatIsOpen). A frame's id never comes back, and
// nothing runs a script in a frame the read did not list (the
// background fetch at a load runs in the session's top frame), so
// nothing of a frame alive goes. Called with p.mu held.
func (p *Provider) forgetGoneFrames(r *tabRead) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := p.state
	gone := map[target.ID][]cdproto.FrameID{}
	for n, d := range st.docs {
		if frames, ok := r.listed[d.key.target]; ok && frames[d.key.frame] == nil {
			gone[d.key.target] = append(gone[d.key.target], d.key.frame)
			st.forgetDoc(n)
		}
	}
	for id, frames := range r.listed {
		if s := st.sessions[id]; s != nil {
			s.forgetUnlisted(frames, gone[id])
		}
	}
}

// forgetHidden cancels the walks the fetch phase asked for the frames the
// document does not show (a hidden <iframe>): nothing reads them.
func (r *tabRead) forgetHidden() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ff := range r.fetched {
		if !r.shown[ff] && ff.ax != nil {
			ff.ax.CancelWalk(ff.frame.ID)
		}
	}
}
