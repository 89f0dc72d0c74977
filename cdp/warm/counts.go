package warm

import (
	"fmt"
	"sync/atomic"
	"time"
)

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
	// Unwalked: of Fetched and Whole, the reads of a document left
	// unwalked by design: smaller than WalkFrom, and neither it nor the
	// frame's document before read after changes often enough to be
	// walked (rereadsToWalk). No kept tree could have answered them.
	Unwalked atomic.Int64
	// Unheard: of Whole, the reads of a walked document changed since
	// its last read whose watchers' call to the provider's binding for
	// the change never came (errUnheard): the session's events did not
	// reach the provider, so the kept tree vouched for nothing.
	Unheard atomic.Int64

	// Asked counts the getChildAXNodes calls of walks and of fetches below
	// a changed node; Spared the nodes with children they made no call
	// for, because the answer that named the node had all its children
	// too (an ignored node's, for one). Not part of Tally: they count
	// calls, not reads.
	Asked, Spared atomic.Int64
	// Small counts the walks not started because the document was
	// smaller than Trees.WalkFrom: it is read whole when it changed.
	Small atomic.Int64
	// AtLoad counts the walks begun at a document's load instead of its
	// fetch (walkOnly).
	AtLoad atomic.Int64
	// NotAwaited counts the reads of the whole tree of a document walked
	// screen first that did not wait for its walk (Activity.ReadWhole):
	// they fetched the whole tree, or took the fetch such a read kept.
	NotAwaited atomic.Int64
	// BarriersAhead counts the barriers (of reads of a kept tree with no
	// change) whose first call was sent with the page's state
	// (SendBarrier), before the read knew it would need one.
	BarriersAhead atomic.Int64
	// Holds counts the reads that held the session's walks (HoldWalks),
	// Held the times a walk waited for them, with no call under way.
	Holds, Held atomic.Int64
	// Overflows counts the times a session's events queued for its kept
	// trees passed their bound (no read applied them) and the trees were
	// dropped.
	Overflows atomic.Int64
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
	return Tally{c.Quiet.Load(), c.Changed.Load(), c.Waited.Load(), c.Fetched.Load(), c.Whole.Load(), c.Sooner.Load(), c.Awaited.Load(), c.Unwalked.Load(), c.Unheard.Load()}
}

// Tally is Counts at one moment, as numbers.
type Tally struct {
	Quiet, Changed, Waited, Fetched, Whole, Sooner, Awaited, Unwalked, Unheard int64
}

// Minus is what was counted since b.
func (a Tally) Minus(b Tally) Tally {
	return Tally{a.Quiet - b.Quiet, a.Changed - b.Changed, a.Waited - b.Waited, a.Fetched - b.Fetched, a.Whole - b.Whole, a.Sooner - b.Sooner, a.Awaited - b.Awaited, a.Unwalked - b.Unwalked, a.Unheard - b.Unheard}
}

// Plus adds two tallies.
func (a Tally) Plus(b Tally) Tally {
	return Tally{a.Quiet + b.Quiet, a.Changed + b.Changed, a.Waited + b.Waited, a.Fetched + b.Fetched, a.Whole + b.Whole, a.Sooner + b.Sooner, a.Awaited + b.Awaited, a.Unwalked + b.Unwalked, a.Unheard + b.Unheard}
}

// Kept is how many reads the kept trees answered; All counts every read.
func (a Tally) Kept() int64 { return a.Quiet + a.Changed + a.Waited }
func (a Tally) All() int64  { return a.Kept() + a.Fetched + a.Whole }

// Walkable counts the reads a kept tree could have answered: All but
// Unwalked.
func (a Tally) Walkable() int64 { return a.All() - a.Unwalked }

func (a Tally) String() string {
	return fmt.Sprintf("kept tree: %d unchanged, %d right after a change, %d after waiting for Chrome's events (%d of them waited for the walk to end); %d last full fetch again, %d getFullAXTree (%d of them quicker than waiting); %d of those two of a small document not walked yet; %d whole as the watchers' signal never came",
		a.Quiet, a.Changed, a.Waited, a.Awaited, a.Fetched, a.Whole, a.Sooner, a.Unwalked, a.Unheard)
}
