package warm

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/chromedp"
)

// tree is the accessibility tree of one document, kept from events.
//
// Its lock rule: a tree is made by its walk alone, which sets its fields
// before it is kept (keepWalked, holding Trees.mu, puts it in its
// frame). Once kept, frame, loader, root, since and born never change;
// every other field is read and written holding Trees.read, by the reads
// (Nodes, and apply and what they call), never under Trees.mu alone.
// What the read loop needs of a kept tree's document (the watchers it
// was last read with) is its frame's, under Trees.mu.
type tree struct {
	frame  cdproto.FrameID
	loader cdproto.LoaderID
	root   accessibility.NodeID
	nodes  map[accessibility.NodeID]*accessibility.Node
	// version changes whenever the tree does; unique across trees.
	version uint64
	// born is a version taken when the tree was kept, its walk ended:
	// the events its walk did not see came before it (apply's orphans).
	// The tree's own version may be older (a fetch's: keepWalked).
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
	// lastRead is what the page's watchers had seen at the tree's last
	// read: a read that finds more is one after a change (rereads).
	lastRead Activity
	// touched is the sequence number of the last nodesUpdated event that
	// changed a node of this tree.
	touched uint64
	// focused is the node Chrome last said has focus (put), "" when
	// none or the document itself: focus that leaves it for the document
	// comes with no event for it (refocus).
	focused accessibility.NodeID
	// focusAsked says the focused node was asked for again during the
	// read under way (it gained focus: update): refocus need not.
	focusAsked bool
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

// keptWatchers is how many documents' watchers' signals a session's
// trees keep: those heard from longest ago go first.
const keptWatchers = 64

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
// and decodes its answer into res. cdproto.Session has this method.
type Caller interface {
	Call(ctx context.Context, method string, params, res any) error
}

// Activity is what the page's own watchers (in the provider's isolated
// world) saw of a document, as of this read. A kept tree answers as it is
// when no mutation was counted since its last read; after one, the read
// first makes sure Chrome's events for it were applied (told by the
// watchers' signals, OnSignal), or reads the document whole when that is
// sooner than waiting for them (Nodes).
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
	// ScreenFirst, told by Loaded, says the caller will read what is on
	// screen of the document before its whole tree (a large document,
	// whose full fetch would hold every other call of its page for
	// seconds): it is walked at its load, not fetched, and a read of
	// its screen meanwhile asks Chrome for the nodes on screen alone
	// (LoadWalking, PartialNodes).
	ScreenFirst bool
	// ReadWhole, with ScreenFirst, says a read of the whole tree while
	// that walk goes on reads the document whole at once rather than
	// wait for the walk (counted: NotAwaited): a document whose whole
	// fetch is quicker than its walk (one of a few thousand elements).
	ReadWhole bool
	// Barrier is the first call of the tree's barrier, sent by this read
	// right behind the page's state script (SendBarrier); nil: none.
	Barrier *Barrier
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
	enabled  bool                       // Accessibility.enable done; guarded by mu
	enabling chan struct{}              // closed when the enable under way ends; guarded by mu
	sent     bool                       // an Accessibility.enable was sent (Rest); guarded by mu
	frames   map[cdproto.FrameID]*frame // what is kept of each frame (frameOf, Forget); guarded by mu
	gone     map[cdproto.FrameID]bool   // the frames forgotten last (Forget, keptGone); guarded by mu
	events   []event                    // guarded by mu
	queued   int                        // the bytes of the events' parameters; guarded by mu
	orphans  []orphan                   // nodes of applied events no tree held (apply); guarded by mu
	seq      uint64                     // sequence of the last event; guarded by mu
	signals  map[int64][]signal         // the last signals of each document's watchers; guarded by mu
	arrived  chan struct{}              // closed when a nodesUpdated arrives; guarded by mu
	lastSent time.Time                  // when the last nodesUpdated arrived; guarded by mu
	// cleared is the sequence of the session's last loadComplete. Chrome
	// keeps one record of the nodes the client fetched, for all the
	// session's documents, and a loadComplete empties it but for the new
	// root (inspector_accessibility_agent.cc): after it no event comes for
	// a node fetched before, of any frame. So no tree walked, in part or
	// whole, before it is kept (unfollowed, keepWalked). Guarded by mu.
	cleared uint64
	// awaiting counts the reads waiting for a walk to end (awaitWalk):
	// the walks do not give way to them.
	awaiting atomic.Int32
	// paused counts the reads of a screen that hold the session's walks
	// (HoldWalks).
	paused holds

	counts *Counts

	// Loaded, when set, tells the loader of a frame's document now and what
	// its watchers saw (installing them): with it, a document that loads
	// in a session a read has asked for is read whole and then walked at
	// once in the background, so that the first read after a load is
	// answered from that fetch, or the walk, when the page is unchanged.
	// Set it before the first event.
	Loaded func(ctx context.Context, frame cdproto.FrameID) (cdproto.LoaderID, Activity, error)
	// OnLoadFetched, when set, is told that the document of a
	// loadComplete was read whole in the background (Loaded), and its
	// walk is starting: the caller may read the browser then, so that
	// what it makes of the fetch is ready for the next read (the fetch's
	// version, from Nodes, names it). A document walked at its load is
	// told of once its walk is kept; one read screen first
	// (Activity.ScreenFirst) as its walk begins too: its screen can be
	// read then. It runs on a goroutine of its own per load. Set it before
	// the first event.
	OnLoadFetched func(frame cdproto.FrameID)
	// OnWalked, when set, is told of each walk that ended and was kept.
	// It runs on the walk's goroutine and must return at once. Set it
	// before the first read.
	OnWalked func(frame cdproto.FrameID, w Walk)
	// OnUnheard, when set, is told of a kept tree's document found
	// changed with nobody telling of it (Counts.Unheard), once a
	// document: its reads read it whole from then on, and a host
	// subscribed may not hear of its changes. It runs on the read's
	// goroutine and must return at once. Set it before the first read.
	OnUnheard func(frame cdproto.FrameID)
	// resting says the trees were let go of (Rest): no walk or fetch
	// starts any more; guarded by mu.
	resting bool
	// life is the context of all background work (walks, the fetch and
	// the caller's Loaded after a load); Rest ends it.
	life context.Context
	rest context.CancelFunc
	// background counts the goroutines of background work under way
	// (goBackground); idle is closed when it comes to 0. Guarded by mu.
	background int
	idle       chan struct{}

	// WalkFrom is the fewest nodes (as a walk counts them, by the
	// document's last getFullAXTree) a document must have to be walked:
	// a smaller one is read whole whenever it changed, which costs the
	// page less than a walk and every event of it would, until reads
	// have read it whole after a change rereadsToWalk times (rereads),
	// or at its load when reads did so for the frame's document before.
	// 0 walks every document. Set it before the first read.
	WalkFrom int
}

// versions numbers the states of the warm trees.
var versions atomic.Uint64

// New returns the trees of one target session, none kept yet. Calls go
// through c; busy (nil: never) says a read is under way, for the walks to
// give way. The caller feeds it the session's Accessibility events
// (OnEvent) and asks it for documents (Nodes).
// counts (nil: not counted) is told how each read was answered.
func New(c Caller, busy func() bool, counts *Counts) *Trees {
	if counts == nil {
		counts = new(Counts)
	}
	life, rest := context.WithCancel(context.Background())
	return &Trees{c: c, life: life, rest: rest, busy: busy, counts: counts, frames: map[cdproto.FrameID]*frame{}, gone: map[cdproto.FrameID]bool{},
		signals: map[int64][]signal{}, arrived: make(chan struct{})}
}

// OnEvent takes an Accessibility event of the session: it queues a
// nodesUpdated for the next read to apply, and a loadComplete drops every
// kept tree of the session at once (unfollowed) and starts the walk of
// the document loaded (onLoad). The caller must deliver them in the
// order they arrived, before any later answer on the session, and from
// one goroutine (the connection's read loop): so a barrier's answer comes
// after every event sent before it. It returns at once and makes no
// call.
func (a *Trees) OnEvent(method string, params jsonv2.Value) {
	a.mu.Lock()
	a.seq++
	if method == accessibility.LoadComplete.Method {
		a.cleared = a.seq
		a.unfollowed()
	} else if a.keeping() {
		a.events = append(a.events, event{a.seq, method, params})
		a.queued += len(params)
		if len(a.events) > MaxEvents || a.queued > MaxEventBytes {
			a.overflow()
		}
	}
	close(a.arrived)
	a.arrived = make(chan struct{})
	a.lastSent = time.Now()
	if method == accessibility.LoadComplete.Method {
		a.onLoad(params)
	}
	a.mu.Unlock()
}

// unfollowed drops the kept trees of every frame at a loadComplete, and
// stops the walks under way (keepWalked would not keep them): Chrome
// sends no event for their nodes from now on (cleared). The events
// queued, and the orphans, were for them: they go too. The top
// document's load walks each document again (onLoad, Loaded's
// WalkLoaded); a read before that reads them whole. Holding mu.
func (a *Trees) unfollowed() {
	for _, f := range a.frames {
		if f.walk != nil {
			f.walk.stop()
		}
		f.tree = nil
	}
	a.events, a.orphans, a.queued = nil, nil, 0
}

// MaxEvents and MaxEventBytes bound the events queued for the kept
// trees, which only a read applies: a host subscribed that does not read
// after each notification, on a page that changes all the time (a
// ticker, a chat, captions), would grow the queue for as long as it
// stays. A page whose text changes every 20 ms sent 2,477 nodesUpdated
// in a minute (TestEventsOfAPageNobodyReadsAreBounded without the
// bound): MaxEvents is 25 s of that, far more than a host that reads
// after it acts lets pile up.
const (
	MaxEvents     = 1024
	MaxEventBytes = 4 << 20
)

// overflow lets go of what the queued events were for, the queue past
// its bound: the kept trees are dropped, the walks under way (whose
// trees the events are queued for too) stopped, and the events and
// orphans let go. The next read of each document reads it whole, as
// after any drop, and walks it again. Holding mu.
func (a *Trees) overflow() {
	if Tracing() {
		Tracef("[%p] %d events queued (%d bytes), past the bound: the kept trees dropped", a, len(a.events), a.queued)
	}
	a.counts.Overflows.Add(1)
	for _, f := range a.frames {
		if f.walk != nil {
			f.walk.stop()
		}
		f.tree = nil
	}
	a.events, a.orphans, a.queued = nil, nil, 0
}

// Queued is how many events wait for a read to apply them (bounded by
// MaxEvents).
func (a *Trees) Queued() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.events)
}

// onLoad starts the walk of a document that loaded in a session the
// reads have asked for (Loaded), holding mu: a page loaded again has
// new frames for its iframes. (OnEvent stopped the walks under way.)
func (a *Trees) onLoad(params jsonv2.Value) {
	e, err := decode[slimLoad](params)
	if err != nil || e.Root == nil || e.Root.FrameID == "" || a.Loaded == nil {
		return
	}
	frame := e.Root.FrameID
	if a.gone[frame] { // forgotten: its event came late (frameOf)
		return
	}
	f := a.frameOf(frame)
	f.loaded = a.seq
	if a.resting {
		return
	}
	if !a.everRead() {
		return // the session was never read: walked when a read asks
	}
	a.goBackground(func() { a.walkLoaded(frame, true) }) // (the walk of the document before is stopped: unfollowed)
}

// everRead reports whether a read asked for any of the session's
// documents: a tree is kept, a walk under way, or a document was read
// whole; holding mu.
func (a *Trees) everRead() bool {
	for _, f := range a.frames {
		if f.tree != nil || f.walk != nil || f.measured {
			return true
		}
	}
	return false
}

// goBackground runs f on a goroutine of its own as background work,
// unless the trees rest: f must take its contexts from a.life, which
// Rest ends, and AwaitBackground waits for it to return. Holding mu.
func (a *Trees) goBackground(f func()) {
	if a.resting {
		return
	}
	if a.background == 0 {
		a.idle = make(chan struct{})
	}
	a.background++
	go func() {
		defer func() {
			a.mu.Lock()
			if a.background--; a.background == 0 {
				close(a.idle)
			}
			a.mu.Unlock()
		}()
		f()
	}()
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
	if _, known := a.signals[watcher]; !known && len(a.signals) >= keptWatchers {
		a.forgetWatcher()
	}
	sig := append(a.signals[watcher], signal{count, a.seq})
	if len(sig) > 16 {
		sig = slices.Delete(sig, 0, len(sig)-16)
	}
	a.signals[watcher] = sig
}

// forgetWatcher forgets the signals of one document's watchers, to make
// room: those heard from longest ago (a document long gone, an iframe's
// reloaded), and not those of a kept tree's document while another will
// do. A read of a changed document whose signal was forgotten would take
// the change for one nobody told of (errUnheard). Called holding a.mu.
func (a *Trees) forgetWatcher() {
	kept := make(map[int64]bool, len(a.frames))
	for _, f := range a.frames {
		if f.tree != nil {
			kept[f.watcher] = true
		}
	}
	var oldest int64
	at := uint64(math.MaxUint64)
	for w, sigs := range a.signals {
		last := sigs[len(sigs)-1].seq
		if kept[w] {
			last |= 1 << 63 // after every other: a kept tree's document's go last
		}
		if last < at {
			oldest, at = w, last
		}
	}
	delete(a.signals, oldest)
}

// Rest lets go of every document of the session: the walks under way
// stop, none starts any more (nor a fetch after a load), and the kept
// trees and fetches are forgotten. It reports whether the Accessibility
// domain was on, for the caller to turn it off (Accessibility.disable,
// which lets Chrome drop the session's accessibility trees and stop
// keeping them current): Rest itself makes no call, so that a page that
// cannot answer never holds it. The trees are not used again: a read
// after makes new ones.
func (a *Trees) Rest() (enabled bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.resting = true
	a.rest() // the background work's calls under way fail, and no more are sent
	for _, f := range a.frames {
		if f.walk != nil {
			f.walk.stop()
		}
		f.asked, f.tree, f.fetched = nil, nil, nil
	}
	a.events, a.orphans, a.queued = nil, nil, 0
	// Sent is what counts: an enable may be under way, or its answer
	// lost to a read that ended first, and Chrome's domain on all the same.
	enabled, a.enabled, a.sent = a.sent, false, false
	return enabled
}

// AwaitBackground waits until no background work of the trees is under
// way (walks, and the fetch after a load with the caller's Loaded), or
// ctx ends. After Rest, none starts, and what was under way ends at once
// (its calls under way fail, and no more are sent): once it returns nil,
// the trees send the page nothing more.
func (a *Trees) AwaitBackground(ctx context.Context) error {
	a.mu.Lock()
	if a.background == 0 {
		a.mu.Unlock()
		return nil
	}
	idle := a.idle
	a.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// put holds n in the tree, and notes whether it is the focused node (the
// document's own node, focused too while its frame has focus, aside).
func (t *tree) put(n *accessibility.Node) {
	t.nodes[n.NodeID] = n
	if n.NodeID == t.root {
		return
	}
	if axBool(n, accessibility.PropertyNameFocused) {
		t.focused = n.NodeID
	} else if t.focused == n.NodeID {
		t.focused = ""
	}
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
		a.sent = true
		a.mu.Unlock()
		_, err := call(ctx, a.c, accessibility.Enable, cdproto.Empty{})
		a.enableAnswered(err, done)
		return err
	}
}

// SendEnable is Enable for a caller that sends Accessibility.enable
// itself, right behind a command of its own, so that the session's
// calls after it need not wait a round trip for it (Chrome runs a
// session's commands in the order they come): send sends it and returns
// what waits for its answer. Enable then waits for that answer instead
// of sending another. It sends nothing when the domain is on, being
// turned on, or the trees rest.
func (a *Trees) SendEnable(ctx context.Context, send func() (wait func(context.Context) error)) {
	a.mu.Lock()
	if a.enabled || a.enabling != nil || a.resting {
		a.mu.Unlock()
		return
	}
	done := make(chan struct{})
	a.enabling = done
	a.sent = true
	a.mu.Unlock()
	wait := send()
	// The answer is waited for even when the read that sent it ends
	// first: the state must say what Chrome did. It comes, or the
	// session ends and fails it.
	go func() { a.enableAnswered(wait(context.WithoutCancel(ctx)), done) }()
}

// enableAnswered notes the answer of the enable under way, and wakes those
// waiting for it.
func (a *Trees) enableAnswered(err error, done chan struct{}) {
	a.mu.Lock()
	a.enabled = err == nil
	a.enabling = nil
	close(done)
	a.mu.Unlock()
}

// decode reads an event's parameters.
func decode[T any](v jsonv2.Value) (T, error) {
	var x T
	err := jsonv2.Unmarshal(v, &x, chromedp.DefaultUnmarshalOptions)
	return x, err
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

// call runs a typed command, as cdproto.Call does, on a Caller.
func call[P, R any](ctx context.Context, c Caller, cmd cdproto.Command[P, R], params P) (R, error) {
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
