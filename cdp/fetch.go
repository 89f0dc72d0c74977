package cdp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
)

// The fetch of a read (read.go): every frame of each window's active tab
// at once (the warm trees of package warm answer the accessibility
// trees).

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
	sess    *session
	top     pageState     // the top document's, already read with the tab's state
	frames  framesWait    // the tab's frame tree, sent with its state (sendAhead); nil when not
	ahead   *aheadScreen  // the screen script sent with its state (sendScreen); nil when not
	barrier *warm.Barrier // its top document's barrier's first call, sent with its state (sendAhead); nil when not
	cold    bool          // bypass the warm trees
	behind  bool          // a read in the background: leaves a document loading to its load
	screen  bool          // a read of the screen: partialFetch may answer
	focused bool          // the tab of the focused window: its focus is read
	live    map[target.ID]*target.Info
	ax      *warm.Trees // the tab's warm trees
	// oopifs are the sessions of the tab's out-of-process iframes.
	oopifs []tabSession

	mu      sync.Mutex
	fetched map[cdproto.FrameID]*frameFetch // guarded by mu
	owners  map[ownerKey]cdproto.FrameID    // the frames <iframe> elements hold; guarded by mu
	err     error                           // of the top frame's tree; guarded by mu
	// scans are the node scans of the documents read, by version
	// (scanOf); guarded by mu.
	scans map[uint64]nodeScan
	// listed are the frames each session's frame tree listed, by the
	// session's target (forgetGoneFrames); guarded by mu.
	listed map[target.ID]map[cdproto.FrameID]*cdproto.Frame
	// shown are the fetched frames the document shows; assembly only.
	shown map[*frameFetch]bool
}

// tabSession is one target session of a tab: the tab's page, or one of
// its out-of-process iframes, with the warm trees of its documents.
type tabSession struct {
	target target.ID
	sess   *session
	ax     *warm.Trees
}

// frameFetch is what the fetch phase learned of one frame.
type frameFetch struct {
	sess      *session
	ax        *warm.Trees
	target    target.ID // whose session holds the frame
	frame     *cdproto.Frame
	state     pageState
	nodes     []*accessibility.Node
	version   uint64
	err       error
	scan      nodeScan // what the read looks for in every node (scanOf)
	valueText map[cdproto.BackendNodeID]string
	textSum   uint64 // sumTexts(valueText)
	// focus and hover are the element chains read ahead, when the
	// document may need them (nil when not read).
	focus, hover *chainRead
	// partial, when set, says nodes are only those that place what is
	// on screen (partialFetch), and holds what the screen script found.
	partial *partialScreen
}

// planTab prepares the read of a tab's document: it attaches to the tab's
// out-of-process iframes. It touches the provider's state, so the reads
// of several tabs are planned one after another; their fetches then run
// side by side.
func (p *Provider) planTab(ctx context.Context, c *wire.Conn, t *tabState, live map[target.ID]*target.Info, how readHow, focused bool) *tabRead {
	r := &tabRead{tab: t.info.TargetID, sess: t.sess, top: t.state, frames: t.frames, ahead: t.screen, barrier: t.barrier, cold: how == readCold, screen: how == readScreen, focused: focused, live: live, fetched: map[cdproto.FrameID]*frameFetch{}, owners: map[ownerKey]cdproto.FrameID{}}
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

// axOf returns the warm accessibility trees of a target's session,
// making them the first time a read asks.
func (p *Provider) axOf(s *session) *warm.Trees {
	if a := s.ax.Load(); a != nil {
		return a
	}
	a := warm.New(s, p.readUnderWay, &p.answers)
	a.WalkFrom = p.opts.WalkFrom
	a.Loaded = func(ctx context.Context, frame cdproto.FrameID) (cdproto.LoaderID, warm.Activity, error) {
		frames, err := frameTree(ctx, s)
		if err != nil {
			return "", warm.Activity{}, err
		}
		f := frames[frame]
		if f == nil {
			return "", warm.Activity{}, fmt.Errorf("no frame %s", frame)
		}
		if f.ParentID == "" {
			// Chrome sends loadComplete for the session's top document
			// alone: its iframes in this process loaded before it did.
			for id := range frames {
				if id != frame {
					a.WalkLoaded(id)
				}
			}
			// Those out of process are targets of their own, new ones.
			go p.readIfNewIframes(p.life, s)
		}
		seen := readPageState(ctx, s, frame).activity()
		if f.ParentID == "" && seen.OK && p.screenAsked.Load() {
			seen.ScreenFirst, seen.ReadWhole = p.screenFirstOf(ctx, s, frame)
		}
		return f.LoaderID, seen, nil
	}
	// The new document's fetch is in: read it now, so that the host's
	// next read finds it mapped.
	a.OnLoadFetched = func(cdproto.FrameID) { p.readAhead() }
	a.OnWalked = func(frame cdproto.FrameID, w warm.Walk) {
		p.log.Debug("document walked", "frame", frame, "nodes", w.Nodes, "calls", w.Asked, "spared", w.Spared,
			"took", w.Took.Round(time.Millisecond), "mixed", w.Mixed, "as fetched", w.AsFetched)
	}
	a.OnUnheard = func(frame cdproto.FrameID) {
		p.log.Info("a page changed and its watchers' call to the provider never came: Chrome may have stopped sending the page's events; its reads read it whole, and a subscribed host may not be told of its changes",
			"session", s.ID(), "frame", frame)
	}
	s.ax.Store(a)
	return a
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
	var frames map[cdproto.FrameID]*cdproto.Frame
	get := func(ctx context.Context) (err error) {
		frames, err = frameTree(ctx, o.sess)
		return err
	}
	var err error
	switch {
	case o.target != r.tab:
		err = o.sess.FirstCall(ctx, get)
	case r.frames != nil:
		frames, err = r.frames(ctx)
		p.aheadUsed.Add(1)
	default:
		err = get(ctx)
	}
	if err != nil {
		return err
	}
	r.mu.Lock()
	if r.listed == nil {
		r.listed = map[target.ID]map[cdproto.FrameID]*cdproto.Frame{}
	}
	r.listed[o.target] = frames
	r.mu.Unlock()
	// The top document's tree is asked for last in its session: Chrome
	// answers the session's calls in order, and the other frames' few
	// quick calls would otherwise wait behind the one long one, each a
	// round trip after it (see gate).
	var asked sync.WaitGroup
	if o.target == r.tab {
		for id := range frames {
			if id != cdproto.FrameID(r.tab) {
				asked.Add(1)
			}
		}
	}
	var wg sync.WaitGroup
	for _, f := range frames {
		fg := gate{}
		switch {
		case o.target != r.tab:
		case f.ID == cdproto.FrameID(r.tab):
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
func (p *Provider) fetchFrame(ctx context.Context, r *tabRead, o tabSession, f *cdproto.Frame, g gate) {
	if g.asked != nil {
		defer g.asked()
	}
	ff := &frameFetch{sess: o.sess, ax: o.ax, target: o.target, frame: f}
	isTop := f.ID == cdproto.FrameID(r.tab)
	if isTop && r.top.ok {
		ff.state = r.top
	} else {
		ff.state = readPageState(ctx, o.sess, f.ID)
	}
	var chains sync.WaitGroup
	// The chains do not depend on the tree: they are read meanwhile.
	if r.focused && (isTop || ff.state.focus) {
		chains.Go(func() { ff.focus = chainFor(ctx, o.sess, f.ID, focusChain, ff.state.focusKept) })
	}
	if isTop || ff.state.pointer > 0 {
		chains.Go(func() { ff.hover = chainFor(ctx, o.sess, f.ID, hoverChain, ff.state.hoverKept) })
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
	switch {
	case r.behind && isTop && o.sess.DocumentLoading():
		ff.err = errLeftToLoad
	case r.cold:
		ff.nodes, ff.err = warm.FullAXTree(ctx, o.sess, accessibility.GetFullAXTreeParams{FrameID: f.ID})
	case r.screen && isTop && ff.state.ok && ff.state.visible && p.screenFirst(ctx, o, f, ff.state):
		// A large page whose tree is not kept yet (just loaded, or
		// never read): what is on screen alone (screen.go), rather than
		// wait for all of it. (A
		// focused or hovered element off screen need not be among it:
		// the mapping marks its first ancestor there, and those above,
		// as it marks them for it.)
		ff.nodes, ff.partial, ff.err = p.partialFetch(ctx, o, f, ff.state, r.ahead)
		if ff.err == nil {
			break
		}
		p.log.Debug("the screen of a page could not be read alone; its whole tree is", "url", f.URL, "err", ff.err)
		ff.partial = nil
		fallthrough
	default:
		seen := ff.state.activity()
		if isTop {
			seen.Barrier = r.barrier
		}
		ff.nodes, ff.version, ff.err = o.ax.Nodes(ctx, f.ID, f.LoaderID, seen)
	}
	if ff.err == nil {
		ff.scan = p.scanOf(r, ff.nodes, ff.version)
		ff.valueText, ff.textSum = p.valueTextsOf(ctx, r, o.sess, ff.scan, ff.version)
	}
	chains.Wait()
	r.mu.Lock()
	r.fetched[f.ID] = ff
	r.mu.Unlock()
}

// errLeftToLoad: a read in the background found a shown tab's document
// still loading (wire.Session.DocumentLoading), and left it to its load.
var errLeftToLoad = errors.New("a shown tab's document is still loading; it is read after its load")

// leftToLoad reports whether a read in the background left the tab's
// document to its load: it was loading when its tree was to be asked for.
func (r *tabRead) leftToLoad() bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	top := r.fetched[cdproto.FrameID(r.tab)]
	return top != nil && errors.Is(top.err, errLeftToLoad)
}

// lastLoading reports whether the document of a tab the last read read
// is loading now (wire.Session.DocumentLoading): a read in the background
// then does not start.
func (st *connState) lastLoading() bool {
	return slices.ContainsFunc(st.readLast, func(id target.ID) bool {
		s := st.sessions[id]
		return s != nil && s.DocumentLoading()
	})
}

// ownerKey names an <iframe> (or <frame>, <object>) element: the target
// whose session holds its document, and its DOM node.
type ownerKey struct {
	target  target.ID
	element cdproto.BackendNodeID
}

// findOwner records which element holds a frame, asking the session of
// the frame's parent document.
func (r *tabRead) findOwner(ctx context.Context, parent tabSession, frame cdproto.FrameID) {
	o, err := cdproto.Call(ctx, parent.sess, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: frame})
	if err != nil || o.BackendNodeID == 0 {
		return
	}
	r.mu.Lock()
	r.owners[ownerKey{parent.target, o.BackendNodeID}] = frame
	r.mu.Unlock()
}

// frameTree maps the frames of a session's process by id.
func frameTree(ctx context.Context, s *session) (map[cdproto.FrameID]*cdproto.Frame, error) {
	return sendFrameTree(ctx, s)(ctx)
}

// framesWait waits for the answer of a frame tree sent (sendFrameTree).
type framesWait func(context.Context) (map[cdproto.FrameID]*cdproto.Frame, error)

// sendFrameTree sends Page.getFrameTree and returns at once what waits
// for its answer: the frames by id (frameTree).
func sendFrameTree(ctx context.Context, s *session) framesWait {
	reply := s.Send(ctx, page.CommandGetFrameTree, cdproto.Empty{})
	return func(ctx context.Context) (map[cdproto.FrameID]*cdproto.Frame, error) {
		var r page.GetFrameTreeResult
		if err := reply.Wait(ctx, &r); err != nil {
			return nil, err
		}
		return framesOf(r.FrameTree), nil
	}
}

// framesOf lists a frame tree's frames by id.
func framesOf(tree *page.FrameTree) map[cdproto.FrameID]*cdproto.Frame {
	m := map[cdproto.FrameID]*cdproto.Frame{}
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
	walk(tree)
	return m
}

// rangeRoles are the roles whose value a person reads as aria-valuetext
// when the page gives one, written as JSON (roleIs).
var rangeRoles = []string{`"slider"`, `"spinbutton"`, `"progressbar"`, `"meter"`, `"scrollbar"`}

// roleIs reports whether a node's role is one of roles, each written as
// JSON. It is asked of every node of each document at each read, so it
// compares the role's JSON as Chrome writes it (a name as it is); the
// name is looked up (warm.Role) only for a role written with escapes.
func roleIs(n *accessibility.Node, roles ...string) bool {
	if n.Role == nil {
		return false
	}
	raw := n.Role.Value
	for _, r := range roles {
		if string(raw) == r {
			return true
		}
	}
	return bytes.IndexByte(raw, '\\') >= 0 && slices.Contains(roles, strconv.Quote(warm.Role(n)))
}

// nodeScan is what a read looks for in every node of a document: the
// elements that hold its frames (Iframe nodes), in order, and the range
// widgets (valueTexts); and, once read, the range widgets' value texts.
type nodeScan struct {
	owners []cdproto.BackendNodeID
	ranges []cdproto.BackendNodeID
	// texts are the ranges' value texts (valueTexts), when read is set:
	// kept with the scan, by the document's version, so that an
	// unchanged document's are not asked for again (valueTextsOf).
	texts map[cdproto.BackendNodeID]string
	sum   uint64 // sumTexts(texts)
	read  bool
}

// scanOf scans a document's nodes (scanNodes), or takes the scan of the
// read before when the nodes are the same: the warm trees' equal versions
// mean equal nodes, so an unchanged document's nodes are not looked
// through again at each read (counted: scansKept). The scans of this
// read's versions are kept for the next (keepScans); nodes read whole
// and not kept (version 0) are scanned and not kept.
func (p *Provider) scanOf(r *tabRead, nodes []*accessibility.Node, version uint64) nodeScan {
	if version == 0 {
		return scanNodes(nodes)
	}
	sc, ok := p.state.scans[version] // read-only while reads run
	if ok {
		p.scansKept.Add(1)
	} else {
		sc = scanNodes(nodes)
	}
	r.mu.Lock()
	if r.scans == nil {
		r.scans = map[uint64]nodeScan{}
	}
	r.scans[version] = sc
	r.mu.Unlock()
	return sc
}

// scanNodes finds the nodes a read looks for: the Iframe nodes' elements
// and the range widgets' (their elements only: a node without one is
// not asked about).
func scanNodes(nodes []*accessibility.Node) nodeScan {
	var sc nodeScan
	for _, n := range nodes {
		switch {
		case n.BackendDOMNodeID == 0:
		case roleIs(n, `"Iframe"`, `"IframePresentational"`):
			sc.owners = append(sc.owners, n.BackendDOMNodeID)
		case !n.Ignored && roleIs(n, rangeRoles...):
			sc.ranges = append(sc.ranges, n.BackendDOMNodeID)
		}
	}
	return sc
}

// valueTextsOf returns the value texts of a document's range widgets
// (valueTexts): those kept with its scan when its nodes are the same as
// at the read before (scanOf: the warm trees' version), else read, and
// kept with the scan of its version for the next read when every widget
// answered. So an unchanged document costs no DOM.describeNode, where it
// cost one per range widget at every read. A change of aria-valuetext
// alone makes a new version: Chrome sends nodesUpdated for it, set or
// removed, on each of rangeRoles (measured on Chromium 156,
// TestValueTextsKeptWithTheTree), and a document read whole and not kept
// (version 0) has its value texts read at every read.
//
// It returns their sum too (sumTexts), which the memo's fingerprint takes
// for them: summed once a version, not at every read (300 of them took
// 52 µs of each read's fingerprint, 4% of an unchanged read).
func (p *Provider) valueTextsOf(ctx context.Context, r *tabRead, s *session, sc nodeScan, version uint64) (map[cdproto.BackendNodeID]string, uint64) {
	if sc.read {
		p.textsKept.Add(1)
		return sc.texts, sc.sum
	}
	texts, all := valueTexts(ctx, s, sc.ranges)
	sum := sumTexts(texts)
	if version == 0 || !all {
		return texts, sum
	}
	r.mu.Lock()
	if kept, ok := r.scans[version]; ok {
		kept.texts, kept.sum, kept.read = texts, sum, true
		r.scans[version] = kept
	}
	r.mu.Unlock()
	return texts, sum
}

// sumTexts sums up value texts for the memo's fingerprint: equal texts,
// equal sums; 0 for none.
func sumTexts(texts map[cdproto.BackendNodeID]string) uint64 {
	if len(texts) == 0 {
		return 0
	}
	keys := slices.Sorted(maps.Keys(texts))
	h := fnv.New64a()
	var b []byte
	for _, k := range keys {
		b = strconv.AppendInt(b[:0], int64(k), 36)
		b = append(b, '=')
		b = append(b, texts[k]...)
		b = append(b, 0)
		h.Write(b)
	}
	return h.Sum64()
}

// valueTexts returns the aria-valuetext attribute of the range widgets
// (their elements: scanNodes) that have one, keyed by backend DOM node id
// (nil when none has). Chrome leaves it out of the accessibility tree's valuetext
// property. The attribute is read with DOM.describeNode, which changes
// nothing in the page and runs no script; a node that cannot be described
// (removed meanwhile) is left out, and all is false.
func valueTexts(ctx context.Context, s *session, ranges []cdproto.BackendNodeID) (_ map[cdproto.BackendNodeID]string, all bool) {
	var out map[cdproto.BackendNodeID]string
	all = true
	for _, id := range ranges {
		d, err := cdproto.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: id})
		if err != nil || d.Node == nil {
			all = false
			continue
		}
		for i := 0; i+1 < len(d.Node.Attributes); i += 2 {
			if d.Node.Attributes[i] == "aria-valuetext" && d.Node.Attributes[i+1] != "" {
				if out == nil {
					out = map[cdproto.BackendNodeID]string{}
				}
				out[id] = d.Node.Attributes[i+1]
			}
		}
	}
	return out, all
}

// screenFirst reports whether a screen read reads the top document of a
// tab, f, from what is on screen alone (partialFetch): its load was walked
// screen first and that walk goes on, with no full fetch of it that
// answers now (a page read's meanwhile: warm.Activity.ReadWhole), or
// nothing answers its whole tree now (a provider's first read, or its
// first after a rest) and it is large, and its walk begins.
func (p *Provider) screenFirst(ctx context.Context, o tabSession, f *cdproto.Frame, st pageState) bool {
	seen := st.activity()
	if o.ax.LoadWalking(f.ID, f.LoaderID) {
		return !o.ax.FetchAnswers(f.ID, f.LoaderID, seen)
	}
	if !o.ax.Unkept(f.ID, f.LoaderID, seen) {
		return false
	}
	if seen.ScreenFirst, seen.ReadWhole = p.screenFirstOf(ctx, o.sess, f.ID); !seen.ScreenFirst {
		return false
	}
	return o.ax.WalkScreenFirst(f.ID, f.LoaderID, seen)
}

// DefaultScreenFirstFrom is Options.ScreenFirstFrom's default: Chrome's
// first getFullAXTree of a page after its load holds every other call of
// the page meanwhile; a screen read 300 ms after the load waited 154 ms
// for it at umweltbundesamt.de's 6,749 elements, 4 s at p50k's 18,781
// (Chromium 156), where a read of its screen alone took 7 ms and
// 146–208 ms (bench/MODEL.md).
const DefaultScreenFirstFrom = 4000

// DefaultScreenHostFrom is Options.ScreenHostFrom's default. 300 ms
// after the load of saved pages of 2,704 to 3,635 elements, a provider
// whose host reads the screen read it in 11–75 ms screen first, and in
// 59–238 ms after the whole fetch at the load; a page read right after
// the load took 170–430 ms longer (bench/MODEL.md). Below it the fetch
// at the load is short (timesofisrael.com's 1,709 elements: the screen
// read 9 ms either way).
const DefaultScreenHostFrom = 1000

// DefaultWaitWalkFrom is Options.WaitWalkFrom's default, the threshold
// screen first had before: below it, the whole tree is quicker fetched
// than walked. Measured at one page only: 300 ms after the load of
// umweltbundesamt.de's 6,749 elements, a page read that fetched it took
// 406 ms, one that waited for the walk 1.39 s; at p50k's 18,781 a fetch
// takes 4 s, which a walk beats (bench/MODEL.md).
const DefaultWaitWalkFrom = 8000

// screenFirstOf reports whether a frame's document has
// Options.ScreenFirstFrom elements or more (Options.ScreenHostFrom when
// the host's last read was of the screen; never when ScreenFirstFrom is
// negative): its screen is read first, and its whole tree walked
// (warm.Activity's ScreenFirst); and then whether a read of its whole
// tree meanwhile reads it whole, having fewer than Options.WaitWalkFrom
// (always when that is negative; warm.Activity's ReadWhole). 1–4 ms at
// 18,781 elements; asked at a load, and by a screen read that has
// nothing of the document.
func (p *Provider) screenFirstOf(ctx context.Context, s *session, frame cdproto.FrameID) (first, whole bool) {
	if p.opts.ScreenFirstFrom <= 0 {
		return false, false
	}
	from := p.opts.ScreenFirstFrom
	if p.screenLast.Load() {
		from = p.opts.ScreenHostFrom
	}
	var n int
	if err := evalIn(ctx, s, frame, `document.getElementsByTagName("*").length`, &n); err != nil || n < from {
		return false, false
	}
	return true, p.opts.WaitWalkFrom < 0 || n < p.opts.WaitWalkFrom
}
