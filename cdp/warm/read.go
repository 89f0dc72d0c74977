package warm

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
)

// Settle is how long after a DOM mutation Chrome has sent its
// nodesUpdated: it sends them at most every 250 ms, 260 ms after the
// accessibility update that follows the change at the latest
// (inspector_accessibility_agent.cc); the rest is room for that update.
const Settle = 600 * time.Millisecond

// throttle is Chrome's window: it sends a document's nodesUpdated at most
// once in it, at the first update of the accessibility tree after it
// ends, and every update outside it starts a new one. A call made later
// than throttle after the last update it can know of makes the update
// that sends what is pending (window).
const throttle = 250*time.Millisecond + 15*time.Millisecond

// Nodes returns the accessibility tree of a frame's document, root first:
// from the warm tree when it is walked, else from getFullAXTree, starting
// the walk in the background.
//
// The version names the nodes answered: that of the warm tree they come
// from, or of the getFullAXTree kept while the walk is not done (the
// same version for the same fetch answered again). It is 0 for nodes
// read whole and not kept (the page's watchers did not answer, or a
// kept tree was read whole instead): such nodes vouch for nothing.
// Equal versions mean equal nodes, so the caller may reuse what it made
// of them.
//
// A read right after a change waits, when it must, for Chrome's events
// for it (fresh), or reads the document whole when that is cheaper.
func (a *Trees) Nodes(ctx context.Context, frame cdproto.FrameID, loader cdproto.LoaderID, seen Activity) ([]*accessibility.Node, uint64, error) {
	if err := a.Enable(ctx); err != nil {
		return nil, 0, err
	}
	a.mu.Lock()
	f := a.frameOf(frame)
	t := f.tree
	if t != nil && t.loader != loader { // navigated: a new document
		f.tree, t = nil, nil
	}
	if seen.OK && seen.Watcher != 0 {
		f.watcher = seen.Watcher
	}
	a.mu.Unlock()
	if t == nil {
		return a.untilWalked(ctx, frame, loader, seen)
	}
	if !seen.OK { // the watchers did not answer: nothing says what changed
		if Tracing() {
			a.read.Lock() // traceRead reads the tree
			a.traceRead("whole, the watchers did not answer", t, seen)
			a.read.Unlock()
		}
		nodes, err := a.whole(ctx, frame)
		return nodes, 0, err
	}
	// Documents of one session are read side by side (by the caller), but
	// the events are applied by one of them at a time, and each returns
	// its tree as the events left it.
	a.read.Lock()
	defer a.read.Unlock()
	// Whether this read's events ask for the focused node again (update)
	// is this read's alone: an ask of an earlier read's came before the
	// watchers' counts this read has, and a blur after it.
	t.focusAsked = false
	answered, how := &a.counts.Quiet, "kept, unchanged"
	settling := false
	if m, ok := a.unsettled(t, seen); ok {
		// Read as right after a change, which makes sure Chrome's events
		// for the changes made during the walk were applied.
		seen.Mutations, seen.Quiet, settling = m, 0, true
	}
	if seen.Mutations != t.mutations {
		answered, how = &a.counts.Changed, "kept, right after a change"
		fresh, err := a.fresh(ctx, t, seen, time.Time{})
		if err == nil && !fresh {
			answered, how = &a.counts.Waited, "kept, after waiting for events"
			fresh, err = a.waitFresh(ctx, t, seen)
		}
		if errors.Is(err, errUnheard) {
			// The tree missed what changed while nothing was heard, and
			// the events that come once the session is heard again would
			// not say so: it is dropped, and the document read as a new
			// one is, whole, its fetch kept and its walk asked for; the
			// walk waits until its watchers are heard again
			// (unheardStill).
			a.counts.Unheard.Add(1)
			a.traceRead("whole, the watchers' signal of the change never came", t, seen)
			a.drop(t)
			a.mu.Lock()
			told := a.unheardOnce(frame, loader)
			a.mu.Unlock()
			if told && a.OnUnheard != nil {
				a.OnUnheard(frame)
			}
			return a.wholeAsNew(ctx, frame, loader, seen)
		}
		if err != nil {
			return nil, 0, err
		}
		if !fresh { // reading it whole is quicker than waiting
			a.counts.Sooner.Add(1)
			a.traceRead("whole, sooner than waiting", t, seen)
			nodes, err := a.whole(ctx, frame)
			return nodes, 0, err
		}
	} else {
		if err := a.barrier(ctx, t, seen.Barrier); err != nil {
			return nil, 0, err
		}
		if err := a.apply(ctx); err != nil {
			return nil, 0, err
		}
	}
	a.mu.Lock()
	t = a.kept(frame)
	a.mu.Unlock()
	if t != nil && t.focused != "" && !t.focusAsked && changedSince(t.lastRead, seen) {
		if err := a.refocus(ctx, t); err != nil {
			a.drop(t)
			t = nil
		}
	}
	if t != nil && t.fresh {
		t.fresh = false
		if err := a.settleMoves(ctx, t); err != nil {
			a.drop(t)
			t = nil
		}
	}
	if t == nil { // a new document, or a change too big to follow
		if Tracing() {
			Tracef("[%p] read of frame %s: whole, the tree was dropped", a, frame)
		}
		nodes, err := a.whole(ctx, frame)
		a.deferWalk(frame, loader, seen)
		return nodes, 0, err
	}
	a.traceRead(how, t, seen)
	t.mutations = seen.Mutations
	if changedSince(t.lastRead, seen) {
		a.mu.Lock()
		a.rereadAfterChange(frame, loader)
		a.mu.Unlock()
	}
	t.lastRead = seen
	if settling {
		t.kept, t.mixed = 0, false
	}
	answered.Add(1)
	return t.ordered(), t.version, nil
}

// changedSince reports whether the page's watchers saw a change (a
// mutation, an interaction, a new document) between a tree's last read,
// last, and now; false when the tree had no read the watchers answered.
func changedSince(last, now Activity) bool {
	return last.OK && (last.Watcher != now.Watcher || last.Mutations != now.Mutations || last.Interactions != now.Interactions)
}

// traceRead tells the trace (SetTrace) how a read of a kept tree was
// answered, with what decided it: the watchers' count and the tree's,
// the last event that changed the tree and the signals of the
// document's watchers.
func (a *Trees) traceRead(how string, t *tree, seen Activity) {
	if !Tracing() {
		return
	}
	a.mu.Lock()
	sigs := slices.Clone(a.signals[seen.Watcher])
	a.mu.Unlock()
	Tracef("[%p] read of frame %s: %s; watchers %d saw %d (quiet %v), tree at %d, touched by event %d, signals %v",
		a, t.frame, how, seen.Watcher, seen.Mutations, seen.Quiet, t.mutations, t.touched, sigs)
}

// unsettled reports whether a walked tree's first read must make sure
// Chrome's events for the changes made while it was walked have come:
// when the walk found a node's children changed (mixed), or the page's
// watchers told of a change during it. A node the walk fetched before
// such a change holds its old data until the change's event, which Chrome
// may hold back 250 ms, while the nodes fetched after it are new: a
// paragraph whose text was replaced can list a text node the tree does
// not have, and show empty. The read is then made as one right after a
// change of count m, the last the document's watchers told of (the
// read's own count may be older than the change). Called holding a.read.
func (a *Trees) unsettled(t *tree, seen Activity) (int64, bool) {
	if t.kept == 0 {
		return 0, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	during := t.mixed
	for _, sigs := range a.signals {
		for _, s := range sigs {
			if s.seq >= t.since && s.seq <= t.kept {
				during = true
			}
		}
	}
	if !during {
		t.kept = 0 // nothing changed while it was walked
		return 0, false
	}
	m := seen.Mutations
	for _, s := range a.signals[seen.Watcher] {
		m = max(m, s.count)
	}
	return m, true
}

// whole reads a document with getFullAXTree for a read (fetchWhole).
func (a *Trees) whole(ctx context.Context, frame cdproto.FrameID) ([]*accessibility.Node, error) {
	nodes, err := a.fetchWhole(ctx, frame)
	if err == nil {
		a.counts.Whole.Add(1)
	}
	return nodes, err
}

// fetchWhole reads a document with getFullAXTree, and remembers how long
// that took, and how many nodes a walk of it gets, for the choices
// between waiting for events or a walk and reading whole.
func (a *Trees) fetchWhole(ctx context.Context, frame cdproto.FrameID) ([]*accessibility.Node, error) {
	t0 := time.Now()
	r, err := call(ctx, a.c, fullAXTree, accessibility.GetFullAXTreeParams{FrameID: frame})
	if err != nil {
		return nil, err
	}
	took := time.Since(t0)
	nodes := r.nodes()
	size := 0
	for _, n := range nodes {
		if Role(n) != "InlineTextBox" { // a walk skips them (hasChildrenToFetch)
			size++
		}
	}
	a.mu.Lock()
	if f := a.frames[frame]; f != nil { // not forgotten meanwhile
		f.cost, f.size, f.measured = took, size, true
	}
	a.mu.Unlock()
	return nodes, nil
}

// fresh makes the barrier, applies the events, and reports whether Chrome
// has sent its events for every change the page's watchers had counted
// (seen.Mutations):
//   - a nodesUpdated that changed this tree came after the watchers'
//     signal for that count: Chrome sent it from an update of the
//     accessibility tree made after the changes, which sent every node
//     they made dirty (one update sends all a document has pending);
//   - or the last change is older than Settle, or than throttle before
//     calm (a time when a call of the barrier was sure to find Chrome's
//     window over).
//
// When neither holds, the change made no node dirty, or Chrome holds its
// events back until its throttle window ends (waitFresh).
func (a *Trees) fresh(ctx context.Context, t *tree, seen Activity, calm time.Time) (bool, error) {
	if err := a.barrier(ctx, t, seen.Barrier); err != nil {
		return false, err
	}
	if err := a.apply(ctx); err != nil {
		return false, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	heard := false
	for _, s := range a.signals[seen.Watcher] {
		if s.count >= seen.Mutations {
			if a.kept(t.frame) != t || t.touched > s.seq {
				return true, nil
			}
			heard = true
			break
		}
	}
	if seen.Quiet >= Settle || !calm.IsZero() {
		if !heard {
			return false, errUnheard
		}
		return true, nil
	}
	return false, nil
}

// errUnheard is why a kept tree cannot answer a read after a change: the
// document's watchers call the provider's binding within 20 ms of each
// change (state.js), yet no call with their count came by the time
// Chrome's events for it must have (Settle, or the window of waitFresh).
// Then the session's events are not reaching the provider (its binding
// gone, or Chrome no longer sending them), and neither can be trusted to
// have kept the tree: the document is read whole (Counts.Unheard).
var errUnheard = errors.New("the watchers' signal of a change never came")

// waitFresh waits, when that is quicker than reading the document whole,
// for Chrome's events for the changes the watchers counted, and tries
// again (fresh):
//   - when a nodesUpdated arrives: perhaps the events held back;
//   - throttle after the last nodesUpdated arrived, when the window that
//     one started is over, unless an update the provider did not see
//     started another; a barrier then makes the update that sends what
//     is pending;
//   - at the latest throttle after the barrier just made: the window
//     starts again at each update of the accessibility tree Chrome makes
//     outside it, the barrier's own is the last one it can have started
//     from, so a barrier then is sure to send what is pending.
func (a *Trees) waitFresh(ctx context.Context, t *tree, seen Activity) (bool, error) {
	calm := time.Now().Add(throttle)
	a.mu.Lock()
	cost := a.peek(t.frame).cost
	early := a.lastSent.Add(throttle)
	a.mu.Unlock()
	if cost > 0 && cost < throttle {
		return false, nil
	}
	for {
		a.mu.Lock()
		arrived := a.arrived
		a.mu.Unlock()
		at, sure := calm, true
		if now := time.Now(); early.After(now) && early.Before(calm) {
			at, sure = early, false
		}
		timer := time.NewTimer(time.Until(at))
		select {
		case <-ctx.Done():
			timer.Stop()
			return false, ctx.Err()
		case <-timer.C:
			if sure {
				return a.fresh(ctx, t, seen, calm)
			}
			early = time.Time{}
		case <-arrived:
			timer.Stop()
		}
		fresh, err := a.fresh(ctx, t, seen, time.Time{})
		if fresh || err != nil {
			return fresh, err
		}
	}
}

// settleMoves finishes the moves of DOM elements. A moved element comes
// back as a new accessibility node under its new parent, and Chrome does
// not always send an update for the parent it left: the old node stays
// there in the tree, with the same DOM node. So when the tree holds two
// nodes of one DOM node, the children of both parents are fetched again.
// What is left after that is Chrome's own (a select and its popup, say).
func (a *Trees) settleMoves(ctx context.Context, t *tree) error {
	for _, parent := range t.twinParents() {
		if n := t.nodes[parent]; n != nil {
			if Tracing() {
				Tracef("  a DOM node twice: refetching the children of %s", parent)
			}
			t.version = versions.Add(1)
			if err := a.refreshChildren(ctx, t, n, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// twinParents returns the parents of the nodes reachable from the root
// that share their DOM node with another reachable node.
func (t *tree) twinParents() []accessibility.NodeID {
	type visit struct{ id, parent accessibility.NodeID }
	first := map[cdproto.BackendNodeID]accessibility.NodeID{} // DOM node -> the parent of its first node
	seen := map[accessibility.NodeID]bool{}
	var out []accessibility.NodeID
	add := func(id accessibility.NodeID) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	stack := []visit{{t.root, ""}}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := t.nodes[v.id]
		if n == nil || seen[v.id] {
			continue
		}
		seen[v.id] = true
		if b := n.BackendDOMNodeID; b != 0 && v.parent != "" {
			if p, twice := first[b]; twice && p != v.parent {
				add(p)
				add(v.parent)
			} else if !twice {
				first[b] = v.parent
			}
		}
		for i := len(n.ChildIDs) - 1; i >= 0; i-- {
			stack = append(stack, visit{n.ChildIDs[i], v.id})
		}
	}
	return out
}

// untilWalked answers for a document whose walk is not done: from the
// last getFullAXTree of it, when the page's watchers have seen nothing
// since, neither a DOM mutation nor an input nor anything the person did
// (the pointer entering an element, focus, a CSS animation or transition,
// which can change what is shown with no mutation), and no loadComplete
// of the frame came since it was asked for (the document's load ending
// changes it with no mutation: it is busy no more); else from a new one,
// kept for the next read. So a host that reads a newly opened page again
// and again is answered at once long before the walk of a big page ends.
// The version of a kept fetch is its own, for the mapping's memo. A read
// of a document walked at its load with no fetch waits for the walk
// first (awaitLoadWalk), unless the last full fetch answers, or such
// reads read it whole (Activity.ReadWhole): those wait for no walk.
func (a *Trees) untilWalked(ctx context.Context, frame cdproto.FrameID, loader cdproto.LoaderID, seen Activity) ([]*accessibility.Node, uint64, error) {
	a.deferWalk(frame, loader, seen)
	a.mu.Lock()
	fr := a.peek(frame)
	bg, w := fr.fetching, fr.walk
	answers := fr.fetchAnswers(loader, seen)
	a.mu.Unlock()
	atLoad := w != nil && w.atLoad && w.loader == loader // walked at its load, not fetched (walkOnly)
	readWhole := atLoad && w.readWhole
	if readWhole {
		a.counts.NotAwaited.Add(1)
	}
	if atLoad && !readWhole && !answers {
		if kept, err := a.awaitLoadWalk(ctx, frame, w); err != nil {
			return nil, 0, err
		} else if kept {
			a.counts.Awaited.Add(1)
			return a.Nodes(ctx, frame, loader, seen)
		}
	}
	if bg != nil && bg.loader == loader { // fetched in the background after its load
		select {
		case <-bg.done:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
	a.mu.Lock()
	fr = a.peek(frame)
	f, load := fr.fetched, fr.loaded
	unwalked := fr.measured && a.smallUnwalked(frame, loader) // never with WalkFrom 0
	a.mu.Unlock()
	if unwalked {
		a.counts.Unwalked.Add(1)
	}
	if fr.fetchAnswers(loader, seen) {
		if Tracing() {
			Tracef("[%p] read of frame %s: the last full fetch again; watchers %d saw %d", a, frame, seen.Watcher, seen.Mutations)
		}
		a.counts.Fetched.Add(1)
		return f.nodes, f.version, nil
	}
	// (A read that reads whole waits for no walk, however it goes:
	// awaitWalk's cost is of the document before, at a load.)
	if !readWhole {
		if kept, err := a.awaitWalk(ctx, frame, loader); err != nil {
			return nil, 0, err
		} else if kept {
			a.counts.Awaited.Add(1)
			return a.Nodes(ctx, frame, loader, seen)
		}
	}
	if Tracing() {
		Tracef("[%p] read of frame %s: whole, not walked (last full fetch %v); watchers %d saw %d, %d (ok %v)", a, frame, f != nil, seen.Watcher, seen.Mutations, seen.Interactions, seen.OK)
	}
	nodes, err := a.whole(ctx, frame)
	if err != nil {
		return nil, 0, err
	}
	if f != nil && f.loader == loader { // read whole again: it changed since
		a.mu.Lock()
		a.rereadAfterChange(frame, loader)
		a.mu.Unlock()
	}
	if !seen.OK {
		return nodes, 0, nil
	}
	a.mu.Lock()
	f = a.keepFetch(frame, newFetched(nodes, loader, load, seen))
	a.mu.Unlock()
	return f.nodes, f.version, nil
}

// wholeAsNew reads a frame's document whole as the first read of a new
// document does (untilWalked): its fetch kept, with what the page's
// watchers had counted, and its walk asked for.
func (a *Trees) wholeAsNew(ctx context.Context, frame cdproto.FrameID, loader cdproto.LoaderID, seen Activity) ([]*accessibility.Node, uint64, error) {
	a.deferWalk(frame, loader, seen)
	a.mu.Lock()
	load := a.peek(frame).loaded
	a.mu.Unlock()
	nodes, err := a.whole(ctx, frame)
	if err != nil || !seen.OK {
		return nodes, 0, err
	}
	a.mu.Lock()
	f := a.keepFetch(frame, newFetched(nodes, loader, load, seen))
	a.mu.Unlock()
	return f.nodes, f.version, nil
}

// keepFetch keeps f as the last full fetch of a frame's document, with a
// version of its own, and returns it; holding mu. A fetch kept meanwhile
// of the same document, asked for after the same loadComplete, the same
// watchers having seen the same (the background fetch after a load, and
// a read's, side by side), stays, and is returned: a read may have mapped
// it under its version already.
func (a *Trees) keepFetch(frame cdproto.FrameID, f *fetched) *fetched {
	fr := a.frames[frame]
	if old := fr.peekFetched(); old.answers(f.loader, f.load, f.seen()) {
		return old
	}
	f.version = versions.Add(1)
	if fr != nil { // not forgotten meanwhile
		fr.fetched = f
	}
	return f
}

// awaitWalk waits for the walk under way of a frame's document to end,
// when it should end sooner than a getFullAXTree of the document takes:
// by its pace at full width so far and the nodes the last getFullAXTree
// had, against how long that took. Then the read is answered from the
// walked tree, and the walk, at full width meanwhile, is not slowed by a
// whole read. A walk that ends later than twice that time is waited for
// no longer. It reports whether the walk ended with the document's tree
// kept.
func (a *Trees) awaitWalk(ctx context.Context, frame cdproto.FrameID, loader cdproto.LoaderID) (bool, error) {
	a.mu.Lock()
	fr := a.peek(frame)
	w, cost, size := fr.walk, fr.cost, fr.size
	a.mu.Unlock()
	if w == nil || w.loader != loader || cost == 0 {
		return false, nil
	}
	if left, ok := w.pace.left(int64(size), w.start); !ok || left > cost {
		return false, nil
	}
	a.awaiting.Add(1)
	defer a.awaiting.Add(-1)
	bound := time.NewTimer(2 * cost)
	defer bound.Stop()
	select {
	case <-w.done:
	case <-bound.C:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.kept(frame)
	return t != nil && t.loader == loader, nil
}

// loadWalkWait bounds how long a read waits for the walk of a small
// document that began at its load with no fetch (walkOnly); a few
// hundred milliseconds at 2,000 nodes. A document that turned out big
// is read whole after it.
const loadWalkWait = time.Second

// awaitLoadWalk waits for the walk w of a frame's document, begun at its
// load with no fetch (walkOnly), for at most loadWalkWait; the walk goes
// at full width meanwhile. It reports whether it ended with the
// document's tree kept.
func (a *Trees) awaitLoadWalk(ctx context.Context, frame cdproto.FrameID, w *walkRun) (bool, error) {
	a.awaiting.Add(1)
	defer a.awaiting.Add(-1)
	bound := time.NewTimer(loadWalkWait)
	defer bound.Stop()
	select {
	case <-w.done:
	case <-bound.C:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.kept(frame)
	return t != nil && t.loader == w.loader, nil
}

// fetched is a document's last getFullAXTree while its walk is not done,
// with what the page's watchers had counted when it was made.
type fetched struct {
	nodes  []*accessibility.Node
	loader cdproto.LoaderID
	// load is the event count of the frame's last loadComplete when the
	// fetch was asked for (Trees.loaded): one asked for before the
	// document's own is not the page as loaded.
	load uint64
	// watcher names the watchers whose counts (mutations, interactions)
	// the read that made the fetch had: those of the document before,
	// when it ran its page-state script just before a navigation's
	// commit and asked for the tree just after. A new document's
	// watchers count from 0 again, and were installed after the fetch:
	// equal counts of other watchers say nothing.
	watcher                 int64
	mutations, interactions int64
	version                 uint64
}

// newFetched is a full fetch of a document (loader) asked for after its
// frame's load number load, by a read whose page's watchers saw seen.
func newFetched(nodes []*accessibility.Node, loader cdproto.LoaderID, load uint64, seen Activity) *fetched {
	return &fetched{nodes: nodes, loader: loader, load: load, watcher: seen.Watcher, mutations: seen.Mutations, interactions: seen.Interactions}
}

// seen is what the page's watchers had seen when f was asked for.
func (f *fetched) seen() Activity {
	return Activity{OK: true, Watcher: f.watcher, Mutations: f.mutations, Interactions: f.interactions}
}

// answers reports whether f, a frame's last full fetch (nil: none),
// answers a read of its document now: the same document (loader), asked
// for after its last loadComplete (load), the same watchers (those of
// the document the read found) having seen nothing since (seen).
func (f *fetched) answers(loader cdproto.LoaderID, load uint64, seen Activity) bool {
	return f != nil && seen.OK && f.loader == loader && f.load == load && f.watcher == seen.Watcher && f.mutations == seen.Mutations && f.interactions == seen.Interactions
}

// barrier returns once Chrome has sent every nodesUpdated event for what
// changed before it was called: asking for a node makes Blink bring its
// accessibility tree up to date, and the second call answers after the
// events that update caused. (queryAXTree would serve too, but it never
// answers in an out-of-process iframe; getPartialAXTree does.)
//
// The first call may have been sent already, right behind this read's
// page-state script (SendBarrier, Activity.Barrier): it is waited for,
// once, and the second sent when it has answered, not with it (the
// events the first's update causes may be sent after a call already
// queued behind it). Only this read's: one sent for an earlier read came
// before changes this read must see.
func (a *Trees) barrier(ctx context.Context, t *tree, ahead *Barrier) error {
	q, ok := barrierOf(t)
	if !ok {
		return nil
	}
	calls := 2
	if ahead != nil && ahead.tree == t && ahead.q.BackendNodeID == q.BackendNodeID && ahead.used.CompareAndSwap(false, true) {
		if err := ahead.wait(ctx); err != nil {
			return err
		}
		a.counts.BarriersAhead.Add(1)
		calls = 1
	}
	for range calls {
		if _, err := call(ctx, a.c, accessibility.GetPartialAXTree, q); err != nil {
			return err
		}
	}
	return nil
}

// barrierOf is the call a barrier of t makes: its root's node, alone;
// false when the root has no DOM node to ask for.
func barrierOf(t *tree) (accessibility.GetPartialAXTreeParams, bool) {
	root := t.nodes[t.root]
	if root == nil || root.BackendDOMNodeID == 0 {
		return accessibility.GetPartialAXTreeParams{}, false
	}
	return accessibility.GetPartialAXTreeParams{BackendNodeID: root.BackendDOMNodeID, FetchRelatives: ptr(false)}, true
}

// Barrier is the first call of a barrier sent ahead (SendBarrier), for
// the read that sent it to pass to Nodes (Activity.Barrier): the tree
// and call it was for, what waits for its answer, and whether a barrier
// took it (once).
type Barrier struct {
	tree *tree
	q    accessibility.GetPartialAXTreeParams
	wait func(context.Context) error
	used atomic.Bool
}

// SendBarrier sends the first call of the barrier of the frame's kept
// tree (barrier), for a read that has just sent the page its state
// script: Chrome runs it right behind the script, while the read waits
// for the script's answer to know whether the page changed. Sent then,
// it runs before the frame Chrome paints after a scroll more often than
// a round trip later. The read passes it to Nodes (Activity.Barrier),
// which waits for it when it needs a barrier; otherwise its answer is
// not used. send sends the call and returns what waits for its answer.
// It returns nil, having sent nothing, when no tree is kept, the trees
// rest, or a read or walk is applying events to them.
func (a *Trees) SendBarrier(frame cdproto.FrameID, send func(accessibility.GetPartialAXTreeParams) (wait func(context.Context) error)) *Barrier {
	a.mu.Lock()
	f := a.frames[frame]
	if a.resting || f == nil || f.tree == nil {
		a.mu.Unlock()
		return nil
	}
	t := f.tree
	a.mu.Unlock()
	// The tree's nodes are the reads' and the events': busy, the barrier
	// goes as it did, after the state.
	if !a.read.TryLock() {
		return nil
	}
	q, ok := barrierOf(t)
	a.read.Unlock()
	if !ok {
		return nil
	}
	return &Barrier{tree: t, q: q, wait: send(q)}
}
