package cdp

import (
	"context"
	"strconv"
	"strings"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
)

// Each tab's state in a read (tabs.go, fetch.go), as the
// provider's watchers in its isolated world see it.

// stateScript installs, once per document, the provider's passive
// watchers in its isolated world, and returns what they saw:
//   - t: when the pointer last moved in this document (0: not since);
//   - m, quiet: how many DOM mutations, input and change events there have
//     been, and how long ago the last one was, in ms;
//   - visible, focus: document.visibilityState and hasFocus();
//   - i: how many things the person did that can change what is shown
//     without a mutation (a :hover or :focus style, an animation);
//   - id: a random number that names these watchers;
//   - v: how many scrolls of elements in the page and loads there have
//     been, which move what is on screen without a mutation (screen.go),
//     and the page's scroll position (which a scroll's event comes after).
//
// The watchers are event listeners and a MutationObserver: they never
// change the page or an event. Chrome leaves a stale :hover in a frame the
// pointer left across a process boundary, so the pointer's document is
// the one that saw it move last. Chrome sends nodesUpdated for a change
// up to 260 ms late, so a read right after a mutation makes sure they
// came (warm.Trees.Nodes). And each watcher calls the provider's binding (bindingName),
// at most every 20 ms, so that a host subscribed to current hears of a
// change at once; it passes "id m v", which tells the warm trees where
// the change came in the session's events (warm.Trees.OnSignal), and
// whether the page is shown (v 1) or hidden (0): a change of that is a
// tab switch, which starts a read in the background (readAhead).
//
// It also tells whether the focus and hover chains are empty, or the
// ones the provider read last in the document (kept under a token,
// readChain), the same elements in the same order: then a read takes
// what it made of them then (chainFor) instead of reading them again. The elements are
// compared, not guessed from events: a change that no event tells (a
// focused element removed, the layout moved under the pointer) makes a
// chain of other elements, and it is read again.
var stateScript = fill(jsTemplate("state.js"), "bindingName", bindingName, "focus", focusScript, "hover", hoverScript, "store", chainStore)

// stateScriptFor is stateScript for the provider whose id in the
// watchers is me (session.watchID).
func stateScriptFor(me int64) string {
	return strings.Replace(stateScript, "/*me*/0", strconv.FormatInt(me, 10), 1)
}

// pageState is what stateScript returns for one document.
type pageState struct {
	pointer   float64       // when the pointer last moved here
	mutations int64         // mutations seen since the watchers were installed
	quiet     time.Duration // since the last mutation
	// interactions counts what the person did that can change what is
	// shown without a mutation: the pointer entering an element, focus,
	// CSS transitions and animations ending, a resize, a details toggle.
	interactions int64
	// moves counts the scrolls of elements in the page and the loads
	// (images, frames, fonts): what moves what is on screen without a
	// mutation (screen.go); the page's own scroll is in scroll.
	moves int64
	// scroll is the page's scroll position (scrollX, scrollY), read with
	// the rest: a scroll is seen at once, before its event comes.
	scroll  [2]float64
	watcher int64 // the watchers' id
	visible bool  // document.visibilityState is visible
	focus   bool  // document.hasFocus()
	ok      bool  // the script answered
	err     error // why it did not
	// focusKept and hoverKept are the tokens of the focus and hover
	// chains the provider read last in the document when they are still
	// the same elements (0: not, or none read; noChain: there is none).
	focusKept, hoverKept int64
}

// noChain is pageState.focusKept or hoverKept when nothing is focused, or
// nothing hovered: the chain is empty, and needs no call.
const noChain = -1

// readPageState runs stateScript in a frame's isolated world.
func readPageState(ctx context.Context, s *session, frame cdproto.FrameID) pageState {
	return readPageStateThen(ctx, s, frame, nil)
}

// readPageStateThen is readPageState that calls then right after the
// script is sent (evalObjectThen).
func readPageStateThen(ctx context.Context, s *session, frame cdproto.FrameID, then func()) pageState {
	var v [12]float64
	if err := evalInThen(ctx, s, frame, s.stateJS, &v, then); err != nil {
		return pageState{err: err}
	}
	return pageState{
		focusKept:    int64(v[7]),
		hoverKept:    int64(v[8]),
		watcher:      int64(v[6]),
		pointer:      v[0],
		mutations:    int64(v[1]),
		quiet:        time.Duration(v[2] * float64(time.Millisecond)),
		visible:      v[3] == 1,
		focus:        v[4] == 1,
		interactions: int64(v[5]),
		moves:        int64(v[9]),
		scroll:       [2]float64{v[10], v[11]},
		ok:           true,
	}
}

// activity is what the warm trees need of the page state: whether the
// page changed, and how long ago (warm.Activity).
func (ps pageState) activity() warm.Activity {
	return warm.Activity{OK: ps.ok, Mutations: ps.mutations, Quiet: ps.quiet, Interactions: ps.interactions, Watcher: ps.watcher}
}
