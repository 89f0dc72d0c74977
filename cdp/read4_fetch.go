package cdp

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// docKey names a document: a frame with one loader (a navigation makes a
// new document), in the session of the target that holds the frame.
type docKey struct {
	target target.ID
	frame  cdp.FrameID
	loader cdp.LoaderID
}

// docInfo is what locate needs to find a document again.
type docInfo struct {
	key    docKey
	tab    target.ID         // the page target of the tab
	parent uint64            // the parent document's number; 0 at the top
	owner  cdp.BackendNodeID // the <iframe> element in the parent document
	geo    *docGeometry      // what locate keeps of it (geometry.go); nil until located
	// base is the mapping's NodeBase for the document: its document
	// node's backend id, taken from the first tree read of it (based), so
	// that its ids never change.
	base  cdp.BackendNodeID
	based bool
}

// doc is a document being read: the mapping frame and how to reach it.
type doc struct {
	frame   *mapping.Frame
	sess    *cdpSession
	frameID cdp.FrameID
	state   pageState // what the provider's watchers saw
	version uint64    // of the warm tree the nodes came from; 0 when read cold
	// focus and hover are the element chains the fetch phase read ahead;
	// nil when it did not.
	focus, hover *chainRead
	children     map[cdp.BackendNodeID]*doc
}

// worldName names the isolated world the provider reads pages in. The
// page's own scripts cannot see or change it.
const worldName = "cdpprovider"

// Reading a tab's document happens in two phases. The fetch phase asks
// every frame of the tab at once, each on its own goroutine: its page
// state, its accessibility tree, its value texts, which frames its
// <iframe> elements hold, and, where they may be needed, the chains of the
// focused and hovered elements. Chrome runs a session's calls one at a
// time, so the top document's tree, the one long call, is asked for last:
// the other frames' quick calls are answered before it instead of each
// waiting behind it for a round trip. Out-of-process iframes answer from
// other processes meanwhile, and the provider decodes one answer while
// Chrome computes the next. The assembly phase then stitches the documents together and
// numbers them, without a call, except for a frame the fetch phase could
// not know of (one that appeared meanwhile), which is read then.

// tabRead is one tab's document being read.
type tabRead struct {
	tab     target.ID
	sess    *cdpSession
	top     pageState // the top document's, already read with the tab's state
	cold    bool      // bypass the warm trees
	focused bool      // the tab of the focused window: its focus is read
	live    map[target.ID]*target.Info
	ax      *warm.Trees // the tab's warm trees
	// oopifs are the sessions of the tab's out-of-process iframes.
	oopifs []tabSession

	mu      sync.Mutex
	fetched map[cdp.FrameID]*frameFetch // guarded by mu
	owners  map[ownerKey]cdp.FrameID    // the frames <iframe> elements hold; guarded by mu
	err     error                       // of the top frame's tree; guarded by mu
	// shown are the fetched frames the document shows; assembly only.
	shown map[*frameFetch]bool
}

// tabSession is one target session of a tab: the tab's page, or one of
// its out-of-process iframes, with the warm trees of its documents.
type tabSession struct {
	target target.ID
	sess   *cdpSession
	ax     *warm.Trees
}

// frameFetch is what the fetch phase learned of one frame.
type frameFetch struct {
	sess      *cdpSession
	ax        *warm.Trees
	target    target.ID // whose session holds the frame
	frame     *cdp.Frame
	state     pageState
	nodes     []*accessibility.Node
	version   uint64
	err       error
	valueText map[cdp.BackendNodeID]string
	// focus and hover are the element chains read ahead, when the
	// document may need them (nil when not read).
	focus, hover *chainRead
}

// planTab prepares the read of a tab's document: it attaches to the tab's
// out-of-process iframes. It touches the provider's state, so the reads
// of several tabs are planned one after another; their fetches then run
// side by side.
func (p *Provider) planTab(ctx context.Context, c *conn, t *tabState, live map[target.ID]*target.Info, cold, focused bool) *tabRead {
	r := &tabRead{tab: t.info.TargetID, sess: t.sess, top: t.state, cold: cold, focused: focused, live: live, fetched: map[cdp.FrameID]*frameFetch{}, owners: map[ownerKey]cdp.FrameID{}}
	r.ax = p.axOf(r.sess)
	for _, ti := range live {
		if ti.Type != "iframe" || !underTab(ti, r.tab, live) {
			continue
		}
		s, err := p.attach(ctx, c, p.state, ti.TargetID)
		if err != nil {
			p.log.Debug("could not attach to an iframe", "url", ti.URL, "err", err)
			continue
		}
		r.oopifs = append(r.oopifs, tabSession{ti.TargetID, s, p.axOf(s)})
	}
	return r
}

// underTab reports whether an iframe target belongs to the tab.
func underTab(ti *target.Info, tab target.ID, live map[target.ID]*target.Info) bool {
	for range 32 {
		if ti.ParentID == tab {
			return true
		}
		if ti = live[ti.ParentID]; ti == nil {
			return false
		}
	}
	return false
}

// fetch runs the fetch phase of a tab: every frame of every session of
// the tab at once.
func (p *Provider) fetch(ctx context.Context, r *tabRead) {
	var wg sync.WaitGroup
	sessions := append([]tabSession{{r.tab, r.sess, r.ax}}, r.oopifs...)
	bySession := make(map[target.ID]tabSession, len(sessions))
	for _, o := range sessions {
		bySession[o.target] = o
	}
	for _, o := range sessions {
		if !r.cold {
			wg.Go(func() { o.ax.Enable(ctx) }) // meanwhile; Nodes waits for it
		}
		wg.Go(func() {
			parent, ok := tabSession{}, false
			if o.target != r.tab {
				parent, ok = bySession[r.live[o.target].ParentID]
			}
			if err := p.fetchSession(ctx, r, o, parent, ok); err != nil && o.target == r.tab {
				r.mu.Lock()
				r.err = err
				r.mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// fetchSession fetches every frame of one session's process, and which
// element holds each: a child frame's in this session, the root of an
// out-of-process iframe's in its parent's session (when known, hasParent).
func (p *Provider) fetchSession(ctx context.Context, r *tabRead, o tabSession, parent tabSession, hasParent bool) error {
	// The tab's own page answered its first call of this read already
	// (readTabState); an out-of-process iframe's page is asked its first
	// here, and one that does not answer in time is left out.
	fctx := ctx
	if o.target != r.tab {
		pctx, cancel := probeCtx(ctx)
		defer cancel()
		fctx = pctx
	}
	frames, err := frameTree(fctx, o.sess)
	if err != nil {
		if fctx != ctx && timedOut(fctx, ctx) {
			p.markStuck(o.sess)
		}
		return err
	}
	// The top document's tree is asked for last in its session: Chrome
	// answers the session's calls in order, and the other frames' few
	// quick calls would otherwise wait behind the one long one, each a
	// round trip after it (see gate).
	var asked sync.WaitGroup
	if o.target == r.tab {
		for id := range frames {
			if id != cdp.FrameID(r.tab) {
				asked.Add(1)
			}
		}
	}
	var wg sync.WaitGroup
	for _, f := range frames {
		fg := gate{}
		switch {
		case o.target != r.tab:
		case f.ID == cdp.FrameID(r.tab):
			fg.wait = &asked
		default:
			fg.asked = sync.OnceFunc(asked.Done)
		}
		wg.Go(func() { p.fetchFrame(ctx, r, o, f, fg) })
		switch {
		case f.ParentID != "": // held by an element of this session's documents
			wg.Go(func() { r.findOwner(ctx, o, f.ID) })
		case hasParent: // an out-of-process iframe, held in its parent's
			wg.Go(func() { r.findOwner(ctx, parent, f.ID) })
		}
	}
	wg.Wait()
	return nil
}

// gate orders the tree requests of one session's frames: a frame with
// asked calls it once it has asked for its tree (or given up); the frame
// with wait waits for the others to have asked, and for its own element
// chains, before it asks for its tree, for at most gateLimit.
type gate struct {
	asked func()
	wait  *sync.WaitGroup
}

// gateLimit bounds how long the top document's tree waits for the rest.
const gateLimit = 50 * time.Millisecond

// fetchFrame fetches one frame's document.
func (p *Provider) fetchFrame(ctx context.Context, r *tabRead, o tabSession, f *cdp.Frame, g gate) {
	if g.asked != nil {
		defer g.asked()
	}
	ff := &frameFetch{sess: o.sess, ax: o.ax, target: o.target, frame: f}
	isTop := f.ID == cdp.FrameID(r.tab)
	if isTop && r.top.ok {
		ff.state = r.top
	} else {
		ff.state = readPageState(ctx, o.sess, f.ID)
	}
	var wg, chains sync.WaitGroup
	// The chains do not depend on the tree: they are read meanwhile.
	if r.focused && (isTop || ff.state.focus) {
		chains.Go(func() { ff.focus = readChain(ctx, o.sess, f.ID, focusChain) })
	}
	if isTop || ff.state.pointer > 0 {
		chains.Go(func() { ff.hover = readChain(ctx, o.sess, f.ID, hoverChain) })
	}
	if g.wait != nil {
		done := make(chan struct{})
		go func() { g.wait.Wait(); chains.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(gateLimit):
		case <-ctx.Done():
		}
	}
	if g.asked != nil {
		g.asked()
	}
	if r.cold {
		ff.nodes, ff.err = warm.FullAXTree(ctx, o.sess, accessibility.GetFullAXTreeParams{FrameID: f.ID})
	} else {
		ff.nodes, ff.version, ff.err = o.ax.Nodes(ctx, f.ID, f.LoaderID, ff.state.activity())
	}
	if ff.err == nil {
		wg.Go(func() { ff.valueText = valueTexts(ctx, o.sess, ff.nodes) })
	}
	wg.Wait()
	chains.Wait()
	r.mu.Lock()
	r.fetched[f.ID] = ff
	r.mu.Unlock()
}

// ownerKey names an <iframe> (or <frame>, <object>) element: the target
// whose session holds its document, and its DOM node.
type ownerKey struct {
	target  target.ID
	element cdp.BackendNodeID
}

// findOwner records which element holds a frame, asking the session of
// the frame's parent document.
func (r *tabRead) findOwner(ctx context.Context, parent tabSession, frame cdp.FrameID) {
	o, err := cdp.Call(ctx, parent.sess, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: frame})
	if err != nil || o.BackendNodeID == 0 {
		return
	}
	r.mu.Lock()
	r.owners[ownerKey{parent.target, o.BackendNodeID}] = frame
	r.mu.Unlock()
}

// ownedFrame returns the frame an <iframe> element of a document holds,
// "" when none is loaded. Elements whose frame the fetch phase did not
// see (added meanwhile) are asked about.
func (r *tabRead) ownedFrame(ctx context.Context, ff *frameFetch, element cdp.BackendNodeID) cdp.FrameID {
	r.mu.Lock()
	id := r.owners[ownerKey{ff.target, element}]
	r.mu.Unlock()
	if id != "" {
		return id
	}
	d, err := cdp.Call(ctx, ff.sess, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: element})
	if err != nil || d.Node == nil {
		return ""
	}
	return d.Node.FrameID
}

// readDocument reads a tab's document with all its frames.
func (p *Provider) readDocument(ctx context.Context, c *conn, r *tabRead) (*doc, error) {
	r.mu.Lock()
	err, ff := r.err, r.fetched[cdp.FrameID(r.tab)]
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
func (p *Provider) assemble(ctx context.Context, c *conn, r *tabRead, ff *frameFetch, depth int, parent uint64, owner cdp.BackendNodeID) (*doc, error) {
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
	n := keyOf(st.docs, key, &p.keys)
	if st.docInfo[n] == nil {
		for k, m := range st.docs { // the frame's earlier documents are gone
			if k.target == key.target && k.frame == key.frame && k.loader != key.loader {
				delete(st.docs, k)
				delete(st.docInfo, m)
			}
		}
		st.docInfo[n] = &docInfo{key: key, tab: r.tab, parent: parent, owner: owner}
	}
	info := st.docInfo[n]
	if !info.based && len(ff.nodes) > 0 && ff.nodes[0] != nil {
		info.base, info.based = ff.nodes[0].BackendDOMNodeID, true
	}
	d := &doc{
		frame:    &mapping.Frame{Doc: n, URL: f.URL + f.URLFragment, Nodes: ff.nodes, ValueText: ff.valueText, NodeBase: info.base},
		sess:     ff.sess,
		frameID:  f.ID,
		state:    ff.state,
		version:  ff.version,
		focus:    ff.focus,
		hover:    ff.hover,
		children: map[cdp.BackendNodeID]*doc{},
	}
	for _, node := range ff.nodes {
		switch axRole(node) {
		case "Iframe", "IframePresentational":
		default:
			continue
		}
		el := node.BackendDOMNodeID
		if el == 0 {
			continue
		}
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
	if len(d.children) > 0 {
		d.frame.Frames = map[cdp.BackendNodeID]*mapping.Frame{}
		for owner, ch := range d.children {
			d.frame.Frames[owner] = ch.frame
		}
	}
	return d, nil
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

// fetchLate fetches a frame the fetch phase did not know of: an
// out-of-process iframe that appeared meanwhile. It returns nil when the
// frame has no target yet (not loaded).
func (p *Provider) fetchLate(ctx context.Context, c *conn, r *tabRead, id cdp.FrameID) (*frameFetch, error) {
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

// axOf returns the warm accessibility trees of a target's session,
// making them the first time a read asks.
func (p *Provider) axOf(s *cdpSession) *warm.Trees {
	if a := s.ax.Load(); a != nil {
		return a
	}
	a := warm.New(s, p.readUnderWay)
	s.ax.Store(a)
	return a
}

// frameTree maps the frames of a session's process by id.
func frameTree(ctx context.Context, s *cdpSession) (map[cdp.FrameID]*cdp.Frame, error) {
	r, err := cdp.Call(ctx, s, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	m := map[cdp.FrameID]*cdp.Frame{}
	var walk func(t *page.FrameTree)
	walk = func(t *page.FrameTree) {
		if t == nil || t.Frame == nil {
			return
		}
		m[t.Frame.ID] = t.Frame
		for _, ch := range t.ChildFrames {
			walk(ch)
		}
	}
	walk(r.FrameTree)
	return m, nil
}

// objectGroups numbers the object groups of the remote objects the
// provider makes, so that scripts run side by side in one session do not
// release each other's objects.
var objectGroups atomic.Uint64

// newObjectGroup returns an object group of its own.
func newObjectGroup() string {
	return "cdpprovider-" + strconv.FormatUint(objectGroups.Add(1), 36)
}

// elementIDs runs expr, which returns an array of elements, in a frame's
// isolated world and returns the backend node ids of its elements from
// index from on, in order (0 for one that could not be described),
// describing describeWidth of them at a time. Its remote objects are
// released without waiting.
func elementIDs(ctx context.Context, s *cdpSession, frame cdp.FrameID, expr string, from int) []cdp.BackendNodeID {
	group := newObjectGroup()
	defer s.post(ctx, runtime.CommandReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
	arr, err := evalObject(ctx, s, frame, expr, group, false)
	if err != nil || arr.ObjectID == "" {
		return nil
	}
	props, err := cdp.Call(ctx, s, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: arr.ObjectID, OwnProperties: ptr(true)})
	if err != nil {
		return nil
	}
	var objs []runtime.RemoteObjectID
	for _, pr := range props.Result {
		if i, err := strconv.Atoi(pr.Name); err == nil && i >= from && pr.Value != nil && pr.Value.ObjectID != "" && pr.Value.Subtype == "node" {
			objs = append(objs, pr.Value.ObjectID)
		}
	}
	ids := make([]cdp.BackendNodeID, len(objs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(describeWidth, len(objs)) {
		wg.Go(func() {
			for i := range next {
				if n, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: objs[i]}); err == nil && n.Node != nil {
					ids[i] = n.Node.BackendNodeID
				}
			}
		})
	}
	for i := range objs {
		next <- i
	}
	close(next)
	wg.Wait()
	return ids
}

// evalIn evaluates a side-effect-free expression in the provider's
// isolated world of a frame and decodes its value into out.
func evalIn(ctx context.Context, s *cdpSession, frame cdp.FrameID, expr string, out any) error {
	r, err := evalObject(ctx, s, frame, expr, "", true)
	if err != nil {
		return err
	}
	return jsonv2.Unmarshal(r.Value, out, chromedp.DefaultUnmarshalOptions)
}

// evalObject evaluates expr in the isolated world of frame. With byValue
// false the result stays a remote object in the object group. The world's
// context id is kept on the session; when the frame has navigated since,
// the world is made again once.
func evalObject(ctx context.Context, s *cdpSession, frame cdp.FrameID, expr, group string, byValue bool) (*runtime.RemoteObject, error) {
	for attempt := 0; ; attempt++ {
		w, err := s.world(ctx, frame, attempt > 0)
		if err != nil {
			return nil, err
		}
		r, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
			Expression:    expr,
			ContextID:     w,
			ReturnByValue: ptr(byValue),
			ObjectGroup:   group,
			Silent:        ptr(true),
		})
		if err != nil && attempt == 0 && ctx.Err() == nil {
			continue // most likely a context the navigation destroyed
		}
		if err != nil {
			return nil, err
		}
		if r.ExceptionDetails != nil {
			return nil, fmt.Errorf("script in the isolated world failed: %s", r.ExceptionDetails.Text)
		}
		return r.Result, nil
	}
}
