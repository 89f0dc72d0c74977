package warm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
)

// errTooBig stops an update that would fetch more than incremental.
var errTooBig = errors.New("the change is too big to fetch node by node")

// errUnsettled stops a fetch that found nodes' children changed under
// it more than maxAgain times: a page that changes as fast as it is
// fetched is read whole.
var errUnsettled = errors.New("the page changed under the fetch again and again")

// maxAgain is how many nodes one fetchBelow fetches below again, their
// children changed since (fetchBelow).
const maxAgain = 64

// incremental is the most nodes an update fetches below a changed node
// before it reads the document whole instead.
const incremental = 1500

// walkWidth is how many getChildAXNodes calls a walk keeps in flight;
// while a read is under way, one: Chrome answers a page's calls one at a
// time, so the read's calls wait behind one of the walk's at most (well
// under a millisecond), and the walk goes on while the read decodes and
// maps what it got, when the page has nothing else to do. (A walk that
// stopped for reads would never end for a host that reads often.) A read
// that waits for the walk to end (awaitWalk) does not slow it.
const walkWidth = 8

// HoldWalks keeps the session's walks from sending another call until
// release is called (their calls under way end as they do), unless a
// read waits for a walk to end (awaitWalk). A read of a document's
// screen holds them from its walk of the screen to the end of its
// PartialNodes: Chrome answers a page's calls one after another, and a
// walk's getChildAXNodes of an element with hundreds of children (p50k's
// <main>: 514 kB, about 70 ms) would hold up the read's calls behind it,
// where width 1 (walkWidth) still let one through. The read is over in
// a few hundred milliseconds at most, and the walk goes on between
// reads: a host that reads the screen again and again before the walk
// ends gets its last nodes again while nothing moves (no PartialNodes).
func (a *Trees) HoldWalks() (release func()) {
	a.paused.take()
	a.counts.Holds.Add(1)
	var once sync.Once
	return func() { once.Do(a.paused.give) }
}

// holds counts the holders of the walks (HoldWalks), and closes a
// channel when the last lets go.
type holds struct {
	mu    sync.Mutex
	n     int
	freed chan struct{} // closed when n drops to 0; guarded by mu
}

func (h *holds) take() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == 0 {
		h.freed = make(chan struct{})
	}
	h.n++
}

func (h *holds) give() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n--; h.n == 0 {
		close(h.freed)
	}
}

// free returns nil when nothing holds the walks, else a channel closed
// when nothing does.
func (h *holds) free() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == 0 {
		return nil
	}
	return h.freed
}

// WalkLoaded reads the document now in a frame whole, then walks it, in
// the background, as for a document whose loadComplete came: for the
// iframes of a document that loaded, which Chrome sends no loadComplete
// of. Call it from Loaded, or after.
func (a *Trees) WalkLoaded(frame cdproto.FrameID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.resting {
		return
	}
	a.frameOf(frame)
	a.goBackground(func() { a.walkLoaded(frame, false) })
}

// walkLoaded reads the document now in a frame whole, then walks it, in
// the background. A read meanwhile waits for that fetch rather than make
// its own (untilWalked). OnLoadFetched is told of the fetch of a document
// whose loadComplete came (loaded). It is background work
// (goBackground): the rest ends its context.
func (a *Trees) walkLoaded(frame cdproto.FrameID, loaded bool) {
	ctx, cancel := context.WithTimeout(a.life, time.Minute)
	defer cancel()
	loader, seen, err := a.Loaded(ctx, frame)
	if Tracing() {
		Tracef("[%p] frame %s loaded (loadComplete %v): document %s, watchers ok %v, err %v", a, frame, loaded, loader, seen.OK, err)
	}
	if err != nil {
		return
	}
	a.mu.Lock()
	fr := a.frames[frame]
	if fr == nil { // forgotten meanwhile
		a.mu.Unlock()
		return
	}
	if seen.OK && (seen.ScreenFirst || a.walkOnly(frame, loader)) {
		// Reads follow this frame's changes, or the caller reads its
		// screen first: the walk alone, no fetch; a read meanwhile waits
		// for it (untilWalked), or asks for what is on screen alone.
		w := fr.walk
		a.mu.Unlock()
		if Tracing() {
			Tracef("[%p] frame %s document %s walked at its load, not fetched (screen first %v)", a, frame, loader, seen.ScreenFirst)
		}
		a.counts.AtLoad.Add(1)
		if w != nil {
			<-w.done
		}
		a.beginWalk(frame, loader, seen, true, loaded)
		if seen.ScreenFirst && loaded && a.OnLoadFetched != nil && a.LoadWalking(frame, loader) {
			// Its screen can be read now, without the walk (PartialNodes).
			a.OnLoadFetched(frame)
		}
		return
	}
	if seen.OK && fr.fetching == nil {
		f := &fetching{loader: loader, done: make(chan struct{})}
		fr.fetching = f
		load := fr.loaded
		a.mu.Unlock()
		nodes, err := a.fetchWhole(ctx, frame)
		a.mu.Lock()
		if err == nil && !f.forgotten {
			a.keepFetch(frame, newFetched(nodes, loader, load, seen))
		}
		if fr.fetching == f {
			fr.fetching = nil
		}
		close(f.done)
		if err == nil && loaded && a.OnLoadFetched != nil {
			defer a.OnLoadFetched(frame)
		}
	}
	w := fr.walk
	a.mu.Unlock()
	if w != nil { // the stopped walk of the document before
		<-w.done
	}
	a.beginWalk(frame, loader, seen, false, false)
}

// walkRun is a walk under way.
type walkRun struct {
	stop   context.CancelFunc
	done   chan struct{}    // closed when it ended
	loader cdproto.LoaderID // of the document walked
	start  time.Time
	pace   pace
	// atLoad says the walk began at the document's load with no fetch
	// (walkOnly): reads wait for it, unless readWhole (the document's
	// Activity.ReadWhole): then they read it whole.
	atLoad, readWhole bool
	// forgotten says its frame is gone (Forget): its tree is not kept;
	// guarded by the trees' mu.
	forgotten bool
}

// pace is how a walk goes: the nodes it has, and how many it got in how
// long while it went at full width (no read under way, or one that waits
// for it): the pace it keeps when a read waits for it.
type pace struct {
	nodes                atomic.Int64
	freeNodes, freeNanos atomic.Int64
}

// observe records that the walk has n nodes, d after the answer before,
// at full width or not.
func (p *pace) observe(n int, d time.Duration, full bool) {
	got := int64(n) - p.nodes.Swap(int64(n))
	if full {
		p.freeNodes.Add(got)
		p.freeNanos.Add(int64(d))
	}
}

// left estimates how long the walk takes to reach size nodes at full
// width, by its pace at full width so far (or overall, for a walk that
// has not gone at full width for long), since start; false when it
// cannot tell.
func (p *pace) left(size int64, start time.Time) (time.Duration, bool) {
	got := p.nodes.Load()
	if got == 0 || size <= got {
		return 0, false // no pace yet, or a document that grew
	}
	nodes, took := p.freeNodes.Load(), time.Duration(p.freeNanos.Load())
	if took < 100*time.Millisecond || nodes == 0 {
		nodes, took = got, time.Since(start)
	}
	return time.Duration(float64(took) * float64(size-got) / float64(nodes)), true
}

// fetching is a getFullAXTree of a document made in the background.
type fetching struct {
	loader cdproto.LoaderID
	done   chan struct{} // closed when it ended, its nodes in fetched
	// forgotten says its frame is gone (Forget): its nodes are not kept;
	// guarded by the trees' mu.
	forgotten bool
}

// deferWalk asks for the walk of a frame's document once the read that
// needs it is over (see StartWalks): Chrome answers a session's calls
// one at a time, so a walk started during a read delays the read's later
// calls by the walk's slowest one (8-14 s for a 5 MB text node). seen is
// what the page's watchers had counted at the read: the walk, made
// after it, starts from that count (keepWalked).
func (a *Trees) deferWalk(frame cdproto.FrameID, loader cdproto.LoaderID, seen Activity) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f := a.frames[frame]; f != nil { // not forgotten
		f.asked = &asked{loader, seen}
	}
}

// asked is a walk a read asked for: of which document, and what the
// page's watchers had counted at that read.
type asked struct {
	loader cdproto.LoaderID
	seen   Activity
}

// CancelWalk takes back the walk a read asked for: the document turned out not to be shown.
func (a *Trees) CancelWalk(frame cdproto.FrameID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f := a.frames[frame]; f != nil {
		f.asked = nil
	}
}

// StartWalks starts the walks the reads asked for (Nodes asks, rather
// than walk during the read); the caller calls it once a read is over.
func (a *Trees) StartWalks() {
	a.mu.Lock()
	d := map[cdproto.FrameID]*asked{}
	for id, f := range a.frames {
		if f.asked != nil {
			d[id], f.asked = f.asked, nil
		}
	}
	a.mu.Unlock()
	for frame, w := range d {
		a.beginWalk(frame, w.loader, w.seen, w.seen.ScreenFirst, false)
	}
}

// startWalk begins the subscribing walk of a frame's document in the
// background, unless one is under way, with nothing known of what the
// page's watchers had counted.
func (a *Trees) startWalk(frame cdproto.FrameID, loader cdproto.LoaderID) {
	a.mu.Lock()
	a.frameOf(frame)
	a.mu.Unlock()
	a.beginWalk(frame, loader, Activity{}, false, false)
}

// walkOnly reports whether a small document that just loaded in a frame
// is walked at once without a fetch first: the frame's document before
// was read after changes rereadsToWalk times (smallUnwalked), so the
// host reads this one as it changes too, and the walk, which it needs,
// answers its reads as soon as a fetch would have, less the fetch; a
// read meanwhile waits for the walk (untilWalked). Holding mu.
func (a *Trees) walkOnly(frame cdproto.FrameID, loader cdproto.LoaderID) bool {
	if a.WalkFrom == 0 || a.peek(frame).size >= a.WalkFrom {
		return false
	}
	r := a.rereadOf(frame, loader)
	return r.prev >= rereadsToWalk
}

// beginWalk is startWalk, made after the page's watchers had counted
// seen (seen.OK false: unknown); a walk atLoad is one walkOnly chose,
// which reads wait for; once one is kept, OnLoadFetched is told when
// announce says its document's loadComplete came, as of a fetch after a
// load.
func (a *Trees) beginWalk(frame cdproto.FrameID, loader cdproto.LoaderID, seen Activity, atLoad, announce bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.frames[frame]
	if f == nil || f.walk != nil || f.tree != nil || a.resting { // forgotten, walking or walked
		return
	}
	if a.unheardStill(f, loader) {
		if Tracing() {
			Tracef("[%p] frame %s not walked: its watchers not heard since a change nobody told of", a, frame)
		}
		return
	}
	if !seen.ScreenFirst && a.smallUnwalked(frame, loader) { // (one read screen first is large)
		a.counts.Small.Add(1)
		if Tracing() {
			Tracef("[%p] frame %s not walked: %d nodes, fewer than %d", a, frame, f.size, a.WalkFrom)
		}
		return
	}
	since := a.seq + 1
	ctx, stop := context.WithCancel(a.life)
	w := &walkRun{stop: stop, done: make(chan struct{}), loader: loader, start: time.Now(), atLoad: atLoad, readWhole: seen.ScreenFirst && seen.ReadWhole}
	f.walk = w
	a.goBackground(func() {
		t, err := a.walk(ctx, frame, &w.pace)
		stop()
		var asFetched *fetched
		if err == nil {
			asFetched = a.fetchMatching(frame, loader, t)
		}
		done, kept := a.keepWalked(frame, w, t, err, since, loader, seen, asFetched)
		if kept && a.OnWalked != nil {
			done.Took = time.Since(w.start)
			a.OnWalked(frame, done)
		}
		if kept && atLoad && announce && a.OnLoadFetched != nil {
			a.OnLoadFetched(frame)
		}
	})
}

// keepWalked ends the walk w of a frame: it keeps its tree t, unless the
// walk failed (the next read tries again) or a loadComplete came in the
// session meanwhile (cleared: a new document, or one Chrome no longer
// follows). It reports whether t was kept, and what the walk
// did (taken before t is kept: reads update it from then on). A tree
// whose nodes are those of the document's last full fetch, still kept
// (asFetched, from fetchMatching), keeps that fetch's version: what a
// read made of the fetch serves the tree too, until an event changes it;
// and the mutations the page's watchers had counted for the fetch.
// Another tree starts from the mutations the watchers had counted when
// its walk was asked for (seen), which it holds: their count outlives a
// rest, and trees made after it have no signal of the changes before
// (OnSignal), so a tree that started from none would find its first read
// of the page unchanged one after a change nobody told of (errUnheard).
func (a *Trees) keepWalked(frame cdproto.FrameID, w *walkRun, t *tree, err error, since uint64, loader cdproto.LoaderID, seen Activity, asFetched *fetched) (Walk, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.frames[frame]
	if f != nil && f.walk == w {
		f.walk = nil
	}
	close(w.done)
	if Tracing() {
		Tracef("[%p] walk of frame %s document %s ended: err %v, a loadComplete since %v, as fetched %v", a, frame, loader, err, a.cleared >= since, asFetched != nil && f != nil && f.fetched == asFetched)
	}
	if err != nil || w.forgotten || f == nil || a.cleared >= since { // (a load of its own frame too)
		return Walk{}, false
	}
	done := Walk{Nodes: len(t.nodes), Asked: t.asked, Spared: t.spared, Mixed: t.mixed}
	t.since, t.loader, t.version, t.kept = since, loader, versions.Add(1), a.seq
	if seen.OK {
		t.mutations = seen.Mutations
	}
	if asFetched != nil && f.fetched == asFetched { // fetchMatching refused a mixed walk
		// The tree is the page as the fetch had it, when its watchers had
		// counted the fetch's mutations: a read that finds no more is not
		// one right after a change.
		t.version, t.mutations = asFetched.version, asFetched.mutations
		done.AsFetched = true
	}
	// Born now, whatever version it answers (a fetch's, older than the
	// events that came during the walk): those events' nodes, waiting as
	// orphans, are for this tree (apply).
	t.born, t.pace = versions.Add(1), nil // the updates that follow are not the walk's
	f.tree = t
	if !f.measured || w.atLoad { // not fetched: the walk tells its size
		f.size, f.measured = len(t.nodes), true
	}
	f.fetched = nil
	return done, true
}

// fetchMatching returns the document's last full fetch when the walked
// tree t has exactly its nodes, node for node (the fetch's InlineTextBox
// nodes the tree has not aside: a walk does not go below a StaticText,
// though an answer for an ignored node can bring some, and no answer
// shows them), and nil otherwise: the page changed between the two, or
// nothing was fetched. It compares off the lock; keepWalked checks that
// the fetch is still the one kept.
func (a *Trees) fetchMatching(frame cdproto.FrameID, loader cdproto.LoaderID, t *tree) *fetched {
	a.mu.Lock()
	f := a.peek(frame).fetched
	a.mu.Unlock()
	if f == nil || f.loader != loader || t.mixed || len(f.nodes) == 0 || f.nodes[0] == nil || f.nodes[0].NodeID != t.root {
		return nil
	}
	matched := make(map[accessibility.NodeID]bool, len(t.nodes))
	for _, n := range f.nodes {
		if n == nil {
			return nil
		}
		kept := t.nodes[n.NodeID]
		if kept == nil && Role(n) == "InlineTextBox" {
			continue
		}
		if !reflect.DeepEqual(n, kept) {
			return nil
		}
		matched[n.NodeID] = true // getFullAXTree can answer a node twice
	}
	if len(matched) != len(t.nodes) {
		return nil
	}
	return f
}

// walk fetches a document's tree node by node, which subscribes every node
// to nodesUpdated. Calls are pipelined, walkWidth at a time. It tells
// p how it goes.
func (a *Trees) walk(ctx context.Context, frame cdproto.FrameID, p *pace) (*tree, error) {
	r, err := call(ctx, a.c, rootAXNode, accessibility.GetRootAXNodeParams{FrameID: frame})
	if err != nil {
		return nil, err
	}
	if r.Node == nil {
		return nil, fmt.Errorf("frame %s has no accessibility tree", frame)
	}
	root := r.Node.node()
	t := &tree{frame: frame, root: root.NodeID, nodes: map[accessibility.NodeID]*accessibility.Node{root.NodeID: root}, pace: p}
	if err := a.fetchBelow(ctx, t, []accessibility.NodeID{root.NodeID}, 0); err != nil {
		return nil, err
	}
	return t, nil
}

// fetchBelow fetches the children of each parent, and theirs, to the
// leaves, storing what it gets in t. The data of the parents themselves is
// not refetched. Calls are pipelined, walkWidth at a time. With limit > 0
// it gives up with errTooBig past that many nodes: a big change is read
// whole, faster than node by node.
func (a *Trees) fetchBelow(ctx context.Context, t *tree, parents []accessibility.NodeID, limit int) error {
	type result struct {
		parent accessibility.NodeID
		nodes  []*accessibility.Node
		err    error
	}
	results := make(chan result)
	queue := slices.Clone(parents)
	// getChildAXNodes answers with the children of ignored children too,
	// so a node can come back from several calls: fetch below it once.
	queued := make(map[accessibility.NodeID]bool, len(parents))
	for _, id := range parents {
		queued[id] = true
	}
	// below holds the nodes whose children this fetch has (their answer
	// came, or came in their parent's); again counts the nodes fetched
	// below a second time.
	below := make(map[accessibility.NodeID]bool, len(parents))
	again := 0
	inflight := 0
	var first error
	last := time.Now() // of the answer before
	for len(queue) > 0 || inflight > 0 {
		width := walkWidth
		if limit == 0 && a.awaiting.Load() == 0 { // a walk, and no read waits for it
			if free := a.paused.free(); free != nil {
				// A read of the screen asks for its nodes: none of the
				// walk's calls goes in front of them.
				if inflight == 0 && len(queue) > 0 && first == nil {
					a.counts.Held.Add(1)
					select {
					case <-free:
					case <-ctx.Done():
						first = ctx.Err()
					}
					last = time.Now() // (the wait is not the walk's pace)
					continue
				}
				width = 0
			} else if a.busy != nil && a.busy() { // a read under way
				width = 1
			}
		}
		for first == nil && len(queue) > 0 && inflight < width {
			id := queue[0]
			queue = queue[1:]
			inflight++
			a.counts.Asked.Add(1)
			t.asked++
			go func() {
				r, err := call(ctx, a.c, childAXNodes, accessibility.GetChildAXNodesParams{ID: id, FrameID: t.frame})
				results <- result{id, r.nodes(), err}
			}()
		}
		if inflight == 0 {
			break
		}
		r := <-results
		inflight--
		if r.err != nil {
			first = cmp.Or(first, r.err)
			continue
		}
		got := make(map[accessibility.NodeID]bool, len(r.nodes))
		direct := 0
		for _, n := range r.nodes {
			got[n.NodeID] = true
			if n.ParentID == r.parent {
				direct++
			}
		}
		if p := t.nodes[r.parent]; limit == 0 && p != nil && (direct != len(p.ChildIDs) || !all(p.ChildIDs, got)) {
			t.mixed = true // the parent's children changed since it was fetched
		}
		below[r.parent] = true
		for _, n := range r.nodes {
			if t.nodes[n.NodeID] == nil {
				t.fresh = true
			}
			t.put(n)
			if !hasChildrenToFetch(n) {
				continue
			}
			if queued[n.NodeID] {
				// A node answered again, from another parent (an element
				// moved while the walk went on, keeping its node), with
				// children the tree lacks: they came after its own answer,
				// and Chrome sends no event for nodes never fetched. Fetch
				// below it again.
				if !below[n.NodeID] || t.holds(n.ChildIDs, got) {
					continue
				}
				if again++; again > maxAgain {
					first = cmp.Or(first, errUnsettled)
					continue
				}
				if limit == 0 {
					t.mixed = true // the page changed during the walk
				}
				if Tracing() {
					Tracef("  %s answered again with children %v the tree lacks: fetched below again", n.NodeID, n.ChildIDs)
				}
				delete(below, n.NodeID)
				queue = append(queue, n.NodeID)
				continue
			}
			queued[n.NodeID] = true
			// Chrome answers with the children of an ignored child, or of
			// one with no DOM node, too: they are fetched (and subscribed)
			// already, and a call below that child would only repeat them.
			// Whatever the reason, a node whose children all came in this
			// answer needs no call of its own; its children are in r.nodes
			// and go below themselves.
			if all(n.ChildIDs, got) {
				a.counts.Spared.Add(1)
				t.spared++
				below[n.NodeID] = true
				continue
			}
			queue = append(queue, n.NodeID)
		}
		if t.pace != nil {
			now := time.Now()
			t.pace.observe(len(t.nodes), now.Sub(last), width == walkWidth)
			last = now
		}
		if limit > 0 && len(queued) > limit && first == nil {
			first = errTooBig
		}
	}
	return first
}

// holds reports whether every id is a node of the tree or in answer.
func (t *tree) holds(ids []accessibility.NodeID, answer map[accessibility.NodeID]bool) bool {
	for _, id := range ids {
		if t.nodes[id] == nil && !answer[id] {
			return false
		}
	}
	return true
}

// all reports whether every id is in set.
func all(ids []accessibility.NodeID, set map[accessibility.NodeID]bool) bool {
	for _, id := range ids {
		if !set[id] {
			return false
		}
	}
	return true
}

// hasChildrenToFetch reports whether a walk goes below n. A StaticText's
// children are its InlineTextBoxes, which no answer shows and whose
// changes Chrome reports on the StaticText: skipping them halves a walk.
func hasChildrenToFetch(n *accessibility.Node) bool {
	return len(n.ChildIDs) > 0 && Role(n) != "StaticText"
}

// ordered returns the tree's nodes reachable from the root, root first,
// and forgets the unreachable ones (removed from the document).
func (t *tree) ordered() []*accessibility.Node {
	if t.orderedNodes != nil && t.orderedVersion == t.version {
		return t.orderedNodes // unchanged since: the same nodes, in the same order
	}
	out := make([]*accessibility.Node, 0, len(t.nodes))
	seen := make(map[accessibility.NodeID]bool, len(t.nodes))
	stack := []accessibility.NodeID{t.root}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := t.nodes[id]
		if n == nil || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, n)
		for i := len(n.ChildIDs) - 1; i >= 0; i-- {
			stack = append(stack, n.ChildIDs[i])
		}
	}
	if len(seen) < len(t.nodes) {
		for id := range t.nodes {
			if !seen[id] {
				delete(t.nodes, id)
			}
		}
	}
	t.orderedNodes, t.orderedVersion = out, t.version
	return out
}

// LoadWalking reports whether the document of a frame is being walked at
// its load without a fetch (walkOnly, or Activity.ScreenFirst), no tree
// of it kept yet: a read of its whole tree waits for the walk (unless
// Activity.ReadWhole), and one of what is on screen may ask for those
// nodes alone (PartialNodes).
func (a *Trees) LoadWalking(frame cdproto.FrameID, loader cdproto.LoaderID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.frames[frame].loadWalking(loader)
}

// loadWalking is LoadWalking of the frame f (nil: none), holding the
// trees' mu.
func (f *frame) loadWalking(loader cdproto.LoaderID) bool {
	return f != nil && f.tree == nil && f.walk != nil && f.walk.atLoad && f.walk.loader == loader
}

// Unkept reports whether nothing answers a frame's document's whole
// tree now: no tree of it kept, no walk of it under way, no fetch of it
// under way, and no full fetch of it that the page's watchers have seen
// nothing since (seen, as untilWalked asks). A read of it would fetch it
// whole.
func (a *Trees) Unkept(frame cdproto.FrameID, loader cdproto.LoaderID, seen Activity) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.unkept(frame, loader, seen)
}

// unkept is Unkept holding mu.
func (a *Trees) unkept(frame cdproto.FrameID, loader cdproto.LoaderID, seen Activity) bool {
	f := a.frames[frame]
	if f == nil {
		return true
	}
	kept := f.tree != nil && f.tree.loader == loader
	return !kept && f.walk == nil && f.fetching == nil && !f.fetchAnswers(loader, seen)
}

// FetchAnswers reports whether the last full fetch of a frame's
// document answers a read of it now (untilWalked): the same document,
// asked for after its last load, the same watchers having seen nothing
// since (seen; fetched.answers).
func (a *Trees) FetchAnswers(frame cdproto.FrameID, loader cdproto.LoaderID, seen Activity) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.frames[frame].fetchAnswers(loader, seen)
}

// WalkScreenFirst asks for the walk of a frame's document that nothing
// answers (Unkept) and whose screen the caller reads first, from the
// nodes on screen alone (PartialNodes): once the read is over
// (StartWalks), it is walked as a document read screen first at its
// load is, which reads of the whole tree wait for (LoadWalking). A
// provider's first read of a large page, or its first after a rest, is
// such a read. It reports whether the caller reads the screen first: the
// walk was asked for, or the document's load began that walk since the
// caller found it unkept (its loadComplete and a read's first call come
// at once), and no full fetch answers; never while the trees rest.
func (a *Trees) WalkScreenFirst(frame cdproto.FrameID, loader cdproto.LoaderID, seen Activity) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.resting || !seen.OK {
		return false
	}
	if f := a.frames[frame]; f.loadWalking(loader) {
		return !f.fetchAnswers(loader, seen)
	}
	if !a.unkept(frame, loader, seen) {
		return false
	}
	f := a.frameOf(frame)
	f.tree = nil // none, or the document before's
	seen.ScreenFirst = true
	f.asked = &asked{loader, seen}
	return true
}

// Walking reports whether a walk of one of the session's documents is
// under way.
func (a *Trees) Walking() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.walking()
}

// Walked reports whether a frame's document has a kept (walked) tree.
func (a *Trees) Walked(frame cdproto.FrameID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.kept(frame) != nil
}

// Fetching reports whether a getFullAXTree of one of the session's
// documents, made in the background after its load, is under way: the page
// is busy with the provider's own call, not unresponsive.
func (a *Trees) Fetching() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, f := range a.frames {
		if f.fetching != nil {
			return true
		}
	}
	return false
}

// WalkedDocument is the loader of the document of a frame whose kept
// (walked) tree is that of, "" when none is kept.
func (a *Trees) WalkedDocument(frame cdproto.FrameID) cdproto.LoaderID {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t := a.kept(frame); t != nil {
		return t.loader
	}
	return ""
}

// WalkAsked reports whether a walk of a frame's document is under way or
// asked for.
func (a *Trees) WalkAsked(frame cdproto.FrameID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.peek(frame)
	return f.walk != nil || f.asked != nil
}
