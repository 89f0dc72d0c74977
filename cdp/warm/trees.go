package warm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/chromedp"
)

// tree is the accessibility tree of one document, kept from events.
type tree struct {
	frame  cdp.FrameID
	loader cdp.LoaderID
	root   accessibility.NodeID
	nodes  map[accessibility.NodeID]*accessibility.Node
	// version changes whenever the tree does; unique across trees.
	version uint64
	// born is the version the tree was kept with, when its walk ended.
	born uint64
	// mutations is the page's mutation count when the tree was last known
	// to have every event for it.
	mutations int64
	// since is the sequence number of the first event that can apply to
	// this tree: events before the walk began concern older documents.
	since uint64
	// fresh says nodes were added since the last read: a moved element
	// may have left its old node behind (settleMoves).
	fresh bool
	// mixed says the walk found a node's children other than the node
	// said when it was fetched: the page changed during the walk, and the
	// tree holds nodes from before the change beside nodes from after it
	// until Chrome's events for it are applied (unsettled).
	mixed bool
	// kept is the sequence number of the last event or signal before the
	// walk's tree was kept; 0 once a read has settled it (unsettled).
	kept uint64
	// touched is the sequence number of the last nodesUpdated event that
	// changed a node of this tree.
	touched uint64
	// parents are the nodes whose children are fetched again once the
	// event being applied is: each an old or new parent of a node the event
	// moved (reparent).
	parents map[accessibility.NodeID]bool
	// orderedNodes are the nodes ordered returned at orderedVersion: a
	// read of the unchanged tree gets them again (they are never changed).
	orderedNodes   []*accessibility.Node
	orderedVersion uint64
	// asked and spared count the getChildAXNodes calls made for this
	// tree, and those spared (Counts), by its walk and its updates.
	asked, spared int
	// pace, while the tree's walk is under way, is how it goes, for a
	// read that may wait for it to end (awaitWalk).
	pace *pace
}

// signal is a call of the page's watchers to the provider's binding: the
// count of changes they had seen then, and where it came among the
// session's events.
type signal struct {
	count int64
	seq   uint64
}

// event is an Accessibility event not yet applied, in arrival order.
type event struct {
	seq    uint64
	method string
	params jsonv2.Value
}

// Caller sends one CDP command on the target session the trees belong to
// and decodes its answer into res. cdproto's cdp.Session has this method.
type Caller interface {
	Call(ctx context.Context, method string, params, res any) error
}

// Activity is what the page's own watchers (in the provider's isolated
// world) saw of a document, as of this read. The warm tree trusts itself
// only when the page has been quiet long enough (Settle).
type Activity struct {
	// OK says the watchers answered; without it the document is read cold.
	OK bool
	// Mutations counts DOM mutations and input and change events since
	// the watchers were installed; Quiet is how long ago the last was.
	Mutations int64
	Quiet     time.Duration
	// Interactions counts what the person did that can change what is
	// shown without a mutation (the pointer entering an element, focus,
	// an animation ending, a resize, a details toggle).
	Interactions int64
	// Watcher names the document's watchers in the signals they send
	// (OnSignal); 0 when unknown.
	Watcher int64
}

// Trees keeps the accessibility trees of the documents of one target
// session (a tab's page, or an out-of-process iframe). Its methods are
// safe for concurrent use.
type Trees struct {
	c Caller
	// busy says a read is under way: a walk holds back its calls
	// meanwhile, since Chrome answers a page's calls one at a time and a
	// read's would queue behind them. nil: never.
	busy func() bool

	// read serialises the application of events by the reads of the
	// session's documents: apply must not run concurrently with itself.
	read sync.Mutex

	mu       sync.Mutex
	enabled  bool                          // Accessibility.enable done; guarded by mu
	enabling chan struct{}                 // closed when the enable under way ends; guarded by mu
	trees    map[cdp.FrameID]*tree         // walked documents; guarded by mu
	walking  map[cdp.FrameID]bool          // walks under way; guarded by mu
	fetched  map[cdp.FrameID]*fetched      // last full fetches of unwalked documents; guarded by mu
	deferred map[cdp.FrameID]cdp.LoaderID  // walks to start after the read; guarded by mu
	events   []event                       // guarded by mu
	orphans  []orphan                      // nodes of applied events no tree held (apply); guarded by mu
	seq      uint64                        // sequence of the last event; guarded by mu
	signals  map[int64][]signal            // the last signals of each document's watchers; guarded by mu
	arrived  chan struct{}                 // closed when a nodesUpdated arrives; guarded by mu
	lastSent time.Time                     // when the last nodesUpdated arrived; guarded by mu
	cost     map[cdp.FrameID]time.Duration // how long a document's last getFullAXTree took; guarded by mu
	size     map[cdp.FrameID]int           // how many nodes a walk of the document gets, by its last getFullAXTree; guarded by mu
	// awaiting counts the reads waiting for a walk to end (awaitWalk):
	// the walks do not give way to them.
	awaiting atomic.Int32

	counts *Counts
	// loaded is, for each frame, the sequence number of its last
	// loadComplete; guarded by mu.
	loaded map[cdp.FrameID]uint64

	// Loaded, when set, tells the loader of a frame's document now and what
	// its watchers saw (installing them): with it, a document that loads
	// in a session a read has asked for is read whole and then walked at
	// once in the background, so that the first read after a load is
	// answered from that fetch, or the walk, when the page is unchanged.
	// Set it before the first event.
	Loaded func(ctx context.Context, frame cdp.FrameID) (cdp.LoaderID, Activity, error)
	// OnLoadFetched, when set, is told that the document of a
	// loadComplete was read whole in the background (Loaded), and its
	// walk is starting: the caller may read the browser then, so that
	// what it makes of the fetch is ready for the next read (the fetch's
	// version, from Nodes, names it). It runs on a goroutine of its own
	// per load. Set it before the first event.
	OnLoadFetched func(frame cdp.FrameID)
	// OnWalked, when set, is told of each walk that ended and was kept.
	// It runs on the walk's goroutine and must return at once. Set it
	// before the first read.
	OnWalked func(frame cdp.FrameID, w Walk)
	// fetching are the background fetches under way, by frame; guarded by mu.
	fetching map[cdp.FrameID]*fetching
	// walks are the walks under way, by frame, to stop one whose document
	// is gone; guarded by mu.
	walks map[cdp.FrameID]*walkRun
}

// Counts tells how the reads of documents were answered; tests and
// benchmarks read it to know which path answered, not only what.
type Counts struct {
	// Quiet: from the kept tree, the page unchanged since the tree last
	// knew it complete.
	Quiet atomic.Int64
	// Changed: from the kept tree right after a change, Chrome's events
	// for it seen (after the barrier).
	Changed atomic.Int64
	// Waited: from the kept tree after waiting for Chrome's events for a
	// change (inside its 250 ms throttle window).
	Waited atomic.Int64
	// Fetched: the last getFullAXTree of a document whose walk is not
	// done, unchanged since.
	Fetched atomic.Int64
	// Whole: a new getFullAXTree.
	Whole atomic.Int64
	// Sooner: of Whole, the reads of a walked document right after a
	// change that read it whole because that is quicker than waiting for
	// Chrome's events (a small document).
	Sooner atomic.Int64
	// Awaited: of the kept tree's, the reads of a changed document that
	// waited for its walk to end, which was sooner than reading it whole.
	Awaited atomic.Int64

	// Asked counts the getChildAXNodes calls of walks and of fetches below
	// a changed node; Spared the nodes with children they made no call
	// for, because the answer that named the node had all its children
	// too (an ignored node's, for one). Not part of Tally: they count
	// calls, not reads.
	Asked, Spared atomic.Int64
}

// Walk is what one walk of a document did.
type Walk struct {
	Nodes  int           // the nodes of the tree it made
	Asked  int           // its getChildAXNodes calls
	Spared int           // the nodes with children it made no call for (Counts.Spared)
	Took   time.Duration // from its first call to its last answer
	// Mixed: the page changed during the walk (a node's children were
	// other than it said when it was fetched).
	Mixed bool
	// AsFetched: the tree has exactly the nodes of the document's last
	// full fetch, and keeps its version (keepWalked).
	AsFetched bool
}

// Tally is the counts as they are now.
func (c *Counts) Tally() Tally {
	return Tally{c.Quiet.Load(), c.Changed.Load(), c.Waited.Load(), c.Fetched.Load(), c.Whole.Load(), c.Sooner.Load(), c.Awaited.Load()}
}

// Tally is Counts at one moment, as numbers.
type Tally struct{ Quiet, Changed, Waited, Fetched, Whole, Sooner, Awaited int64 }

// Minus is what was counted since b.
func (a Tally) Minus(b Tally) Tally {
	return Tally{a.Quiet - b.Quiet, a.Changed - b.Changed, a.Waited - b.Waited, a.Fetched - b.Fetched, a.Whole - b.Whole, a.Sooner - b.Sooner, a.Awaited - b.Awaited}
}

// Plus adds two tallies.
func (a Tally) Plus(b Tally) Tally {
	return Tally{a.Quiet + b.Quiet, a.Changed + b.Changed, a.Waited + b.Waited, a.Fetched + b.Fetched, a.Whole + b.Whole, a.Sooner + b.Sooner, a.Awaited + b.Awaited}
}

// Kept is how many reads the kept trees answered; All counts every read.
func (a Tally) Kept() int64 { return a.Quiet + a.Changed + a.Waited }
func (a Tally) All() int64  { return a.Kept() + a.Fetched + a.Whole }

func (a Tally) String() string {
	return fmt.Sprintf("kept tree: %d unchanged, %d right after a change, %d after waiting for Chrome's events (%d of them waited for the walk to end); %d last full fetch again, %d getFullAXTree (%d of them quicker than waiting)",
		a.Quiet, a.Changed, a.Waited, a.Awaited, a.Fetched, a.Whole, a.Sooner)
}

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

// versions numbers the states of the warm trees.
var versions atomic.Uint64

// walkWidth is how many getChildAXNodes calls a walk keeps in flight;
// while a read is under way, one: Chrome answers a page's calls one at a
// time, so the read's calls wait behind one of the walk's at most (well
// under a millisecond), and the walk goes on while the read decodes and
// maps what it got, when the page has nothing else to do. (A walk that
// stopped for reads would never end for a host that reads often.) A read
// that waits for the walk to end (awaitWalk) does not slow it.
const walkWidth = 8

// New returns the trees of one target session, none kept yet. Calls go
// through c; busy (nil: never) says a read is under way, for the walks to
// give way. The caller feeds it the session's Accessibility events
// (OnEvent) and asks it for documents (Nodes).
// counts (nil: not counted) is told how each read was answered.
func New(c Caller, busy func() bool, counts *Counts) *Trees {
	if counts == nil {
		counts = new(Counts)
	}
	return &Trees{c: c, busy: busy, counts: counts, trees: map[cdp.FrameID]*tree{}, walking: map[cdp.FrameID]bool{},
		fetched: map[cdp.FrameID]*fetched{}, signals: map[int64][]signal{}, cost: map[cdp.FrameID]time.Duration{}, size: map[cdp.FrameID]int{}, arrived: make(chan struct{}),
		loaded: map[cdp.FrameID]uint64{}, fetching: map[cdp.FrameID]*fetching{}, walks: map[cdp.FrameID]*walkRun{}}
}

// OnEvent queues an Accessibility event of the session
// (Accessibility.nodesUpdated, Accessibility.loadComplete). The caller
// must deliver them in the order they arrived, before any later answer on
// the session, and from one goroutine (the connection's read loop): so a
// barrier's answer comes after every event sent before it. It returns at
// once and makes no call.
func (a *Trees) OnEvent(method string, params jsonv2.Value) {
	a.mu.Lock()
	a.seq++
	if len(a.trees) > 0 || len(a.walking) > 0 {
		a.events = append(a.events, event{a.seq, method, params})
	}
	close(a.arrived)
	a.arrived = make(chan struct{})
	a.lastSent = time.Now()
	if method == accessibility.LoadComplete.Method {
		a.onLoad(params)
	}
	a.mu.Unlock()
}

// onLoad starts the walk of a document that loaded in a session the
// reads have asked for (Loaded), holding mu: a page loaded again has
// new frames for its iframes. A walk under way of the frame's
// document before is stopped.
func (a *Trees) onLoad(params jsonv2.Value) {
	e, err := decode[slimLoad](params)
	if err != nil || e.Root == nil || e.Root.FrameID == "" || a.Loaded == nil {
		return
	}
	frame := e.Root.FrameID
	a.loaded[frame] = a.seq
	if len(a.trees) == 0 && len(a.cost) == 0 && len(a.walking) == 0 {
		return // the session was never read: walked when a read asks
	}
	if w := a.walks[frame]; w != nil {
		w.stop() // of the document before: its calls would only delay the new one's
	}
	go a.walkLoaded(frame, true)
}

// WalkLoaded reads the document now in a frame whole, then walks it, in
// the background, as for a document whose loadComplete came: for the
// iframes of a document that loaded, which Chrome sends no loadComplete
// of. Call it from Loaded, or after.
func (a *Trees) WalkLoaded(frame cdp.FrameID) {
	go a.walkLoaded(frame, false)
}

// walkLoaded reads the document now in a frame whole, then walks it, in
// the background. A read meanwhile waits for that fetch rather than make
// its own (untilWalked). OnLoadFetched is told of the fetch of a document
// whose loadComplete came (loaded).
func (a *Trees) walkLoaded(frame cdp.FrameID, loaded bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	loader, seen, err := a.Loaded(ctx, frame)
	if Tracing() {
		Tracef("[%p] frame %s loaded (loadComplete %v): document %s, watchers ok %v, err %v", a, frame, loaded, loader, seen.OK, err)
	}
	if err != nil {
		return
	}
	a.mu.Lock()
	if t := a.trees[frame]; t != nil && t.since <= a.loaded[frame] {
		delete(a.trees, frame) // the document before
	}
	if seen.OK && a.fetching[frame] == nil {
		f := &fetching{loader: loader, done: make(chan struct{})}
		a.fetching[frame] = f
		load := a.loaded[frame]
		a.mu.Unlock()
		nodes, err := a.fetchWhole(ctx, frame)
		a.mu.Lock()
		if err == nil {
			a.keepFetch(frame, &fetched{nodes: nodes, loader: loader, load: load, mutations: seen.Mutations, interactions: seen.Interactions})
		}
		delete(a.fetching, frame)
		close(f.done)
		if err == nil && loaded && a.OnLoadFetched != nil {
			defer a.OnLoadFetched(frame)
		}
	}
	w := a.walks[frame]
	a.mu.Unlock()
	if w != nil { // the stopped walk of the document before
		<-w.done
	}
	a.startWalk(frame, loader)
}

// walkRun is a walk under way.
type walkRun struct {
	stop   context.CancelFunc
	done   chan struct{} // closed when it ended
	loader cdp.LoaderID  // of the document walked
	start  time.Time
	pace   pace
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
	loader cdp.LoaderID
	done   chan struct{} // closed when it ended, its nodes in fetched
}

// OnSignal records a call of a document's watchers to the provider's
// binding, with the count of changes they had seen (Activity.Mutations).
// The caller delivers it on the read loop like the events (OnEvent): a
// nodesUpdated that comes after it in the session's stream was sent by an
// update of the accessibility tree made after those changes.
func (a *Trees) OnSignal(watcher, count int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++
	if len(a.signals) > 64 { // documents long gone
		clear(a.signals)
	}
	sig := append(a.signals[watcher], signal{count, a.seq})
	if len(sig) > 16 {
		sig = slices.Delete(sig, 0, len(sig)-16)
	}
	a.signals[watcher] = sig
}

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
func (a *Trees) Nodes(ctx context.Context, frame cdp.FrameID, loader cdp.LoaderID, seen Activity) ([]*accessibility.Node, uint64, error) {
	if err := a.Enable(ctx); err != nil {
		return nil, 0, err
	}
	a.mu.Lock()
	t := a.trees[frame]
	if t != nil && t.loader != loader { // navigated: a new document
		delete(a.trees, frame)
		t = nil
	}
	a.mu.Unlock()
	if t == nil {
		return a.untilWalked(ctx, frame, loader, seen)
	}
	if !seen.OK { // the watchers did not answer: nothing says what changed
		a.traceRead("whole, the watchers did not answer", t, seen)
		nodes, err := a.whole(ctx, frame)
		return nodes, 0, err
	}
	// Documents of one session are read side by side (by the caller), but
	// the events are applied by one of them at a time, and each returns
	// its tree as the events left it.
	a.read.Lock()
	defer a.read.Unlock()
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
		if err != nil {
			return nil, 0, err
		}
		if !fresh {
			answered, how = &a.counts.Waited, "kept, after waiting for events"
			if fresh, err = a.waitFresh(ctx, t, seen); err != nil {
				return nil, 0, err
			}
		}
		if !fresh { // reading it whole is quicker than waiting
			a.counts.Sooner.Add(1)
			a.traceRead("whole, sooner than waiting", t, seen)
			nodes, err := a.whole(ctx, frame)
			return nodes, 0, err
		}
	} else {
		if err := a.barrier(ctx, t); err != nil {
			return nil, 0, err
		}
		if err := a.apply(ctx); err != nil {
			return nil, 0, err
		}
	}
	a.mu.Lock()
	t = a.trees[frame]
	a.mu.Unlock()
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
		a.deferWalk(frame, loader)
		return nodes, 0, err
	}
	a.traceRead(how, t, seen)
	t.mutations = seen.Mutations
	if settling {
		t.kept, t.mixed = 0, false
	}
	answered.Add(1)
	return t.ordered(), t.version, nil
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
func (a *Trees) whole(ctx context.Context, frame cdp.FrameID) ([]*accessibility.Node, error) {
	nodes, err := a.fetchWhole(ctx, frame)
	if err == nil {
		a.counts.Whole.Add(1)
	}
	return nodes, err
}

// fetchWhole reads a document with getFullAXTree, and remembers how long
// that took, and how many nodes a walk of it gets, for the choices
// between waiting for events or a walk and reading whole.
func (a *Trees) fetchWhole(ctx context.Context, frame cdp.FrameID) ([]*accessibility.Node, error) {
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
	a.cost[frame], a.size[frame] = took, size
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
	if err := a.barrier(ctx, t); err != nil {
		return false, err
	}
	if err := a.apply(ctx); err != nil {
		return false, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if seen.Quiet >= Settle || !calm.IsZero() {
		return true, nil
	}
	for _, s := range a.signals[seen.Watcher] {
		if s.count >= seen.Mutations {
			return a.trees[t.frame] != t || t.touched > s.seq, nil
		}
	}
	return false, nil
}

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
	cost := a.cost[t.frame]
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
	first := map[cdp.BackendNodeID]accessibility.NodeID{} // DOM node -> the parent of its first node
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
// The version of a kept fetch is its own, for the mapping's memo.
func (a *Trees) untilWalked(ctx context.Context, frame cdp.FrameID, loader cdp.LoaderID, seen Activity) ([]*accessibility.Node, uint64, error) {
	a.deferWalk(frame, loader)
	a.mu.Lock()
	bg := a.fetching[frame]
	a.mu.Unlock()
	if bg != nil && bg.loader == loader { // fetched in the background after its load
		select {
		case <-bg.done:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
	a.mu.Lock()
	f, load := a.fetched[frame], a.loaded[frame]
	a.mu.Unlock()
	if f != nil && seen.OK && f.loader == loader && f.load == load && f.mutations == seen.Mutations && f.interactions == seen.Interactions {
		if Tracing() {
			Tracef("[%p] read of frame %s: the last full fetch again; watchers %d saw %d", a, frame, seen.Watcher, seen.Mutations)
		}
		a.counts.Fetched.Add(1)
		return f.nodes, f.version, nil
	}
	if kept, err := a.awaitWalk(ctx, frame, loader); err != nil {
		return nil, 0, err
	} else if kept {
		a.counts.Awaited.Add(1)
		return a.Nodes(ctx, frame, loader, seen)
	}
	if Tracing() {
		Tracef("[%p] read of frame %s: whole, not walked (last full fetch %v); watchers %d saw %d, %d (ok %v)", a, frame, f != nil, seen.Watcher, seen.Mutations, seen.Interactions, seen.OK)
	}
	nodes, err := a.whole(ctx, frame)
	if err != nil {
		return nil, 0, err
	}
	if !seen.OK {
		return nodes, 0, nil
	}
	a.mu.Lock()
	f = a.keepFetch(frame, &fetched{nodes: nodes, loader: loader, load: load, mutations: seen.Mutations, interactions: seen.Interactions})
	a.mu.Unlock()
	return f.nodes, f.version, nil
}

// keepFetch keeps f as the last full fetch of a frame's document, with a
// version of its own, and returns it; holding mu. A fetch kept meanwhile
// of the same document, asked for after the same loadComplete, the page's
// watchers having seen the same (the background fetch after a load, and
// a read's, side by side), stays, and is returned: a read may have mapped
// it under its version already.
func (a *Trees) keepFetch(frame cdp.FrameID, f *fetched) *fetched {
	if old := a.fetched[frame]; old != nil && old.loader == f.loader && old.load == f.load && old.mutations == f.mutations && old.interactions == f.interactions {
		return old
	}
	f.version = versions.Add(1)
	a.fetched[frame] = f
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
func (a *Trees) awaitWalk(ctx context.Context, frame cdp.FrameID, loader cdp.LoaderID) (bool, error) {
	a.mu.Lock()
	w, cost, size := a.walks[frame], a.cost[frame], a.size[frame]
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
	t := a.trees[frame]
	return t != nil && t.loader == loader, nil
}

// fetched is a document's last getFullAXTree while its walk is not done,
// with what the page's watchers had counted when it was made.
type fetched struct {
	nodes  []*accessibility.Node
	loader cdp.LoaderID
	// load is the event count of the frame's last loadComplete when the
	// fetch was asked for (Trees.loaded): one asked for before the
	// document's own is not the page as loaded.
	load                    uint64
	mutations, interactions int64
	version                 uint64
}

// Enable turns the Accessibility domain on for the session once: it keeps
// node ids stable between calls and turns on the events. Callers side by
// side wait for the one call.
func (a *Trees) Enable(ctx context.Context) error {
	for {
		a.mu.Lock()
		if a.enabled {
			a.mu.Unlock()
			return nil
		}
		if wait := a.enabling; wait != nil {
			a.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		done := make(chan struct{})
		a.enabling = done
		a.mu.Unlock()
		_, err := call(ctx, a.c, accessibility.Enable, cdp.Empty{})
		a.mu.Lock()
		a.enabled = err == nil
		a.enabling = nil
		close(done)
		a.mu.Unlock()
		return err
	}
}

// barrier returns once Chrome has sent every nodesUpdated event for what
// changed before it was called: asking for a node makes Blink bring its
// accessibility tree up to date, and the second call answers after the
// events that update caused. (queryAXTree would serve too, but it never
// answers in an out-of-process iframe; getPartialAXTree does.)
func (a *Trees) barrier(ctx context.Context, t *tree) error {
	root := t.nodes[t.root]
	if root == nil || root.BackendDOMNodeID == 0 {
		return nil
	}
	q := accessibility.GetPartialAXTreeParams{BackendNodeID: root.BackendDOMNodeID, FetchRelatives: ptr(false)}
	for range 2 {
		if _, err := call(ctx, a.c, accessibility.GetPartialAXTree, q); err != nil {
			return err
		}
	}
	return nil
}

// deferWalk asks for the walk of a frame's document once the read that
// needs it is over (see StartWalks): Chrome answers a session's calls
// one at a time, so a walk started during a read delays the read's later
// calls by the walk's slowest one (8-14 s for a 5 MB text node).
func (a *Trees) deferWalk(frame cdp.FrameID, loader cdp.LoaderID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.deferred == nil {
		a.deferred = map[cdp.FrameID]cdp.LoaderID{}
	}
	a.deferred[frame] = loader
}

// CancelWalk takes back the walk a read asked for: the document turned out not to be shown.
func (a *Trees) CancelWalk(frame cdp.FrameID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.deferred, frame)
}

// StartWalks starts the walks the reads asked for (Nodes asks, rather
// than walk during the read); the caller calls it once a read is over.
func (a *Trees) StartWalks() {
	a.mu.Lock()
	d := a.deferred
	a.deferred = nil
	a.mu.Unlock()
	for frame, loader := range d {
		a.startWalk(frame, loader)
	}
}

// startWalk begins the subscribing walk of a frame's document in the
// background, unless one is under way.
func (a *Trees) startWalk(frame cdp.FrameID, loader cdp.LoaderID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.walking[frame] || a.trees[frame] != nil {
		return
	}
	a.walking[frame] = true
	since := a.seq + 1
	ctx, stop := context.WithCancel(context.Background())
	w := &walkRun{stop: stop, done: make(chan struct{}), loader: loader, start: time.Now()}
	a.walks[frame] = w
	go func() {
		t, err := a.walk(ctx, frame, &w.pace)
		stop()
		var asFetched *fetched
		if err == nil {
			asFetched = a.fetchMatching(frame, loader, t)
		}
		if done, kept := a.keepWalked(frame, w, t, err, since, loader, asFetched); kept && a.OnWalked != nil {
			done.Took = time.Since(w.start)
			a.OnWalked(frame, done)
		}
	}()
}

// keepWalked ends the walk w of a frame: it keeps its tree t, unless the
// walk failed (the next read tries again) or a new document loaded
// meanwhile (onLoad). It reports whether t was kept, and what the walk
// did (taken before t is kept: reads update it from then on). A tree
// whose nodes are those of the document's last full fetch, still kept
// (asFetched, from fetchMatching), keeps that fetch's version: what a
// read made of the fetch serves the tree too, until an event changes it;
// and the mutations the page's watchers had counted for the fetch.
func (a *Trees) keepWalked(frame cdp.FrameID, w *walkRun, t *tree, err error, since uint64, loader cdp.LoaderID, asFetched *fetched) (Walk, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.walking, frame)
	delete(a.walks, frame)
	close(w.done)
	if Tracing() {
		Tracef("[%p] walk of frame %s document %s ended: err %v, loaded since %v, as fetched %v", a, frame, loader, err, a.loaded[frame] >= since, asFetched != nil && a.fetched[frame] == asFetched)
	}
	if err != nil || a.loaded[frame] >= since {
		return Walk{}, false
	}
	done := Walk{Nodes: len(t.nodes), Asked: t.asked, Spared: t.spared, Mixed: t.mixed}
	t.since, t.loader, t.version, t.kept = since, loader, versions.Add(1), a.seq
	if asFetched != nil && a.fetched[frame] == asFetched { // fetchMatching refused a mixed walk
		// The tree is the page as the fetch had it, when its watchers had
		// counted the fetch's mutations: a read that finds no more is not
		// one right after a change.
		t.version, t.mutations = asFetched.version, asFetched.mutations
		done.AsFetched = true
	}
	t.born, t.pace = t.version, nil // the updates that follow are not the walk's
	a.trees[frame] = t
	delete(a.fetched, frame)
	return done, true
}

// fetchMatching returns the document's last full fetch when the walked
// tree t has exactly its nodes, node for node (the fetch's InlineTextBox
// nodes the tree has not aside: a walk does not go below a StaticText,
// though an answer for an ignored node can bring some, and no answer
// shows them), and nil otherwise: the page changed between the two, or
// nothing was fetched. It compares off the lock; keepWalked checks that
// the fetch is still the one kept.
func (a *Trees) fetchMatching(frame cdp.FrameID, loader cdp.LoaderID, t *tree) *fetched {
	a.mu.Lock()
	f := a.fetched[frame]
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
func (a *Trees) walk(ctx context.Context, frame cdp.FrameID, p *pace) (*tree, error) {
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
	inflight := 0
	var first error
	last := time.Now() // of the answer before
	for len(queue) > 0 || inflight > 0 {
		width := walkWidth
		if limit == 0 && a.busy != nil && a.busy() && a.awaiting.Load() == 0 { // a walk, and a read under way that does not wait for it
			width = 1
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
		for _, n := range r.nodes {
			if t.nodes[n.NodeID] == nil {
				t.fresh = true
			}
			t.nodes[n.NodeID] = n
			if !hasChildrenToFetch(n) || queued[n.NodeID] {
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

// errTooBig stops an update that would fetch more than incremental.
var errTooBig = errors.New("the change is too big to fetch node by node")

// incremental is the most nodes an update fetches below a changed node
// before it reads the document whole instead.
const incremental = 1500

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

// decode reads an event's parameters.
func decode[T any](v jsonv2.Value) (T, error) {
	var x T
	err := jsonv2.Unmarshal(v, &x, chromedp.DefaultUnmarshalOptions)
	return x, err
}

// Walking reports whether a walk of one of the session's documents is
// under way.
func (a *Trees) Walking() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.walking) > 0
}

// Walked reports whether a frame's document has a kept (walked) tree.
func (a *Trees) Walked(frame cdp.FrameID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.trees[frame] != nil
}

// Fetching reports whether a getFullAXTree of one of the session's
// documents, made in the background after its load, is under way: the page
// is busy with the provider's own call, not unresponsive.
func (a *Trees) Fetching() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.fetching) > 0
}

// WalkedDocument is the loader of the document of a frame whose kept
// (walked) tree is that of, "" when none is kept.
func (a *Trees) WalkedDocument(frame cdp.FrameID) cdp.LoaderID {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t := a.trees[frame]; t != nil {
		return t.loader
	}
	return ""
}

// WalkAsked reports whether a walk of a frame's document is under way or
// asked for.
func (a *Trees) WalkAsked(frame cdp.FrameID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, deferred := a.deferred[frame]
	return a.walking[frame] || deferred
}

// FullAXTree calls Accessibility.getFullAXTree and decodes the nodes the
// way the warm trees decode theirs, without the sources of names and
// values, their related nodes and the reasons a node is ignored (see
// slimNode): what a cold read of a document uses.
func FullAXTree(ctx context.Context, c Caller, params accessibility.GetFullAXTreeParams) ([]*accessibility.Node, error) {
	r, err := call(ctx, c, fullAXTree, params)
	if err != nil {
		return nil, err
	}
	return r.nodes(), nil
}

// call runs a typed command, as cdproto's cdp.Call does, on a Caller.
func call[P, R any](ctx context.Context, c Caller, cmd cdp.Command[P, R], params P) (R, error) {
	var res R
	if err := c.Call(ctx, cmd.Method, params, &res); err != nil {
		var zero R
		return zero, err
	}
	return res, nil
}

// Role returns the role name of an accessibility node.
func Role(n *accessibility.Node) string {
	if n.Role == nil {
		return ""
	}
	raw := n.Role.Value
	roles.mu.RLock()
	s, ok := roles.names[string(raw)]
	roles.mu.RUnlock()
	if ok {
		return s
	}
	return learnRole(raw)
}

// learnRole decodes a role's JSON, and remembers it.
func learnRole(raw jsonv2.Value) string {
	var s string
	json.Unmarshal(raw, &s) // not a string: ""
	roles.mu.Lock()
	if len(roles.names) >= 1024 { // Chrome has a few hundred roles
		clear(roles.names)
	}
	roles.names[string(raw)] = s
	roles.mu.Unlock()
	return s
}

// roles are the role names decoded so far, by their JSON: a read asks
// for the role of every node, and decoding the JSON each time was a
// sixth of an unchanged read of a big page.
var roles = struct {
	mu    sync.RWMutex
	names map[string]string // guarded by mu
}{names: map[string]string{}}

// axBool reports whether a boolean property of the node is true.
func axBool(n *accessibility.Node, name accessibility.PropertyName) bool {
	for _, pr := range n.Properties {
		if pr.Name == name && pr.Value != nil {
			return string(pr.Value.Value) == "true"
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }
