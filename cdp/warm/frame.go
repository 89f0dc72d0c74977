package warm

import (
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
)

// frame is what the trees keep of one frame of the session, of its
// documents one after another: made in one place (frameOf) and
// forgotten in one (Forget), so that nothing of a frame gone outlives it
// (a page that makes and removes iframes all day would grow the memory
// by each).
//
// Its lock rule: every field is guarded by Trees.mu. The tree it holds
// keeps a rule of its own (tree).
type frame struct {
	// tree is the walked document's, kept from events; nil: none.
	tree *tree
	// walk is the walk under way, nil: none; asked is the walk a read
	// asked for, to start once the read is over (StartWalks), nil: none.
	walk  *walkRun
	asked *asked
	// fetched is the document's last full fetch while it is not walked;
	// fetching is the fetch after its load, under way.
	fetched  *fetched
	fetching *fetching
	// cost is how long the document's last getFullAXTree took (0: none
	// yet); size is how many nodes a walk of it gets, by that fetch or
	// the walk, known once measured.
	cost     time.Duration
	size     int
	measured bool
	// loaded is the sequence number of the frame's last loadComplete.
	loaded uint64
	// reread counts the reads of its document that came after a change
	// (read whole again, or from the kept tree with the watchers' counts
	// changed since the read before).
	reread reread
	// watcher names the watchers of its document at its last read
	// (Activity.Watcher): a kept tree's document's signals are forgotten
	// last (forgetWatcher), and with the frame (Forget).
	watcher int64
}

// frameOf returns what is kept of a frame, made empty the first time;
// holding mu. It is the one place a frame is made. A frame forgotten
// (Forget) is not made again: what comes of it after its end (a
// loadComplete on its way, a walk of the iframes a load listed, a read
// that listed it) gets an empty frame that is not kept.
func (a *Trees) frameOf(id cdproto.FrameID) *frame {
	f := a.frames[id]
	if f == nil {
		f = &frame{}
		if a.gone[id] {
			return f
		}
		a.frames[id] = f
	}
	return f
}

// peek returns a copy of what is kept of a frame, empty when nothing
// is (or it was forgotten), for a look that changes nothing; holding mu.
func (a *Trees) peek(id cdproto.FrameID) frame {
	if f := a.frames[id]; f != nil {
		return *f
	}
	return frame{}
}

// fetchAnswers reports whether f's last full fetch answers a read of its
// document now (fetched.answers); false for no frame.
func (f *frame) fetchAnswers(loader cdproto.LoaderID, seen Activity) bool {
	return f != nil && f.fetched.answers(loader, f.loaded, seen)
}

// peekFetched is f's last full fetch, nil when f is.
func (f *frame) peekFetched() *fetched {
	if f == nil {
		return nil
	}
	return f.fetched
}

// kept returns the kept tree of a frame's document, nil when none;
// holding mu.
func (a *Trees) kept(id cdproto.FrameID) *tree {
	if f := a.frames[id]; f != nil {
		return f.tree
	}
	return nil
}

// keeping reports whether a tree is kept or a walk under way, of any
// frame: what the events are queued for; holding mu.
func (a *Trees) keeping() bool {
	for _, f := range a.frames {
		if f.tree != nil || f.walk != nil {
			return true
		}
	}
	return false
}

// walking reports whether a walk is under way, of any frame; holding mu.
func (a *Trees) walking() bool {
	for _, f := range a.frames {
		if f.walk != nil {
			return true
		}
	}
	return false
}

// reread is how many times reads read a document after a change, and
// how many times they did the frame's document before.
type reread struct {
	loader cdproto.LoaderID
	n      int
	// prev is n of the frame's document before this one.
	prev int
	// unheard is the sequence number of the first event or signal after
	// a read last found a change of this document nobody told of
	// (errUnheard), 0 when none; told says OnUnheard was told.
	unheard uint64
	told    bool
}

// rereadsToWalk is how many reads of a small document after changes
// make it worth a walk: a host that reads a page as it changes (one
// subscribed, reading at every notification) pays less for the walk and
// its events than for a getFullAXTree at each read. A frame whose
// document was read that often has its next document walked at its
// load: the host that read the one reads the next as it changes too,
// and a walk then spares the whole reads that would come first.
const rereadsToWalk = 2

// rereadOf returns the count of reads after a change of a frame's
// document, the count of the document before moved to prev when the
// frame has a new one; holding mu.
func (a *Trees) rereadOf(frame cdproto.FrameID, loader cdproto.LoaderID) reread {
	f := a.frames[frame]
	if f == nil { // forgotten
		return reread{loader: loader}
	}
	if f.reread.loader != loader {
		f.reread = reread{loader: loader, prev: f.reread.n}
	}
	return f.reread
}

// setReread keeps r as the count of a frame's reads after a change
// (rereadOf); holding mu.
func (a *Trees) setReread(frame cdproto.FrameID, r reread) {
	if f := a.frames[frame]; f != nil {
		f.reread = r
	}
}

// unheardOnce notes that a read found a change of a frame's document
// nobody told of, and reports whether it is the first for the document;
// holding mu.
func (a *Trees) unheardOnce(frame cdproto.FrameID, loader cdproto.LoaderID) bool {
	r := a.rereadOf(frame, loader)
	first := !r.told
	r.unheard, r.told = a.seq+1, true
	a.setReread(frame, r)
	return first
}

// unheardStill reports whether a frame's document was found changed
// with nobody telling of it (unheardOnce) and its watchers, the frame's
// (frame.watcher), have not been heard since: a walk now would make a
// tree its events may not keep, found unheard at the next change, walk
// after walk. Holding mu.
func (a *Trees) unheardStill(f *frame, loader cdproto.LoaderID) bool {
	if f.reread.loader != loader || f.reread.unheard == 0 {
		return false
	}
	for _, s := range a.signals[f.watcher] {
		if s.seq >= f.reread.unheard {
			return false
		}
	}
	return true
}

// rereadAfterChange counts a read of a frame's document after a change;
// holding mu.
func (a *Trees) rereadAfterChange(frame cdproto.FrameID, loader cdproto.LoaderID) {
	r := a.rereadOf(frame, loader)
	r.n++
	a.setReread(frame, r)
}

// smallUnwalked reports whether a frame's document stays unwalked: it is
// smaller than WalkFrom, and neither it nor the frame's document before
// was read after changes rereadsToWalk times; holding mu.
func (a *Trees) smallUnwalked(frame cdproto.FrameID, loader cdproto.LoaderID) bool {
	if a.peek(frame).size >= a.WalkFrom {
		return false
	}
	r := a.rereadOf(frame, loader)
	return r.n < rereadsToWalk && r.prev < rereadsToWalk
}

// Forget lets go of everything kept of a frame that is gone from the
// session (Page.frameDetached: an iframe removed, or its document's
// frame replaced): its tree, its last full fetch, the walk asked for or
// under way (stopped, and nothing of it kept, nor of a fetch under way),
// what the reads measured and counted of its documents, and the signals
// of its document's watchers. A frame's id never comes back in the
// session, so without this a page that makes and removes iframes all day
// (a rotating advertisement, a widget) would grow the provider's memory
// with each. It is the one place a frame is forgotten.
func (a *Trees) Forget(id cdproto.FrameID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// What comes of it after its end must not make it again (frameOf),
	// though nothing of it is kept yet (a walk of the iframes a load
	// listed may ask for it after): its id never comes back, so the last
	// ones are remembered.
	if len(a.gone) >= keptGone {
		clear(a.gone)
	}
	a.gone[id] = true
	f := a.frames[id]
	if f == nil {
		return
	}
	if f.walk != nil {
		f.walk.stop()
		f.walk.forgotten = true
	}
	if f.fetching != nil {
		f.fetching.forgotten = true
	}
	if f.watcher != 0 {
		delete(a.signals, f.watcher)
	}
	delete(a.frames, id)
}

// keptGone bounds the frames forgotten that the trees remember (gone):
// an event of a frame comes within moments of its end, not after a
// thousand others have ended.
const keptGone = 1024

// Kept is how much the trees keep: of how many frames anything (a tree,
// a fetch, a walk asked for or under way, a fetch's cost or size, a
// load, the reads' counts), how many documents' watchers' signals, and
// how many events and orphans wait for a read. Frames are bounded by
// those alive (Forget), signals by keptWatchers, events by MaxEvents.
type Kept struct {
	Frames, Signals, Events, Orphans int
}

// Held is what the trees keep now (Kept).
func (a *Trees) Held() Kept {
	a.mu.Lock()
	defer a.mu.Unlock()
	return Kept{Frames: len(a.frames), Signals: len(a.signals), Events: len(a.events), Orphans: len(a.orphans)}
}
