package cdp

import (
	"sync"
	"sync/atomic"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
)

// session is one attached target's session as the provider keeps it: the
// wire's session (its calls, its page's health), the provider's isolated
// worlds in its frames (world.go), and its warm trees.
type session struct {
	*wire.Session

	// watchID is its provider's id in the page watchers it shares with
	// other providers (state.js), and stateJS the state script with it.
	watchID int64
	stateJS string

	worldsMu sync.Mutex
	worlds   map[cdproto.FrameID]runtime.ExecutionContextID // isolated worlds by frame; guarded by worldsMu

	chainsMu sync.Mutex
	// chains are the focus and hover chains read last in each frame,
	// each under the token it is kept with in the isolated world
	// (chainFor); guarded by chainsMu.
	chains map[chainKey]*chainRead

	// ax keeps the warm trees of the session's documents (package warm),
	// once a read has asked for them (axOf); the read loop hands it the
	// session's Accessibility events (onSessionEvent).
	ax atomic.Pointer[warm.Trees]
}

// knownWorld returns the context id of the provider's isolated world in
// a frame, when one is known (world).
func (s *session) knownWorld(frame cdproto.FrameID) (runtime.ExecutionContextID, bool) {
	s.worldsMu.Lock()
	defer s.worldsMu.Unlock()
	w, ok := s.worlds[frame]
	return w, ok
}

// forgetWorld forgets the provider's isolated world in a frame whose
// document went away (navigated): the next script run there makes a new
// one (world).
func (s *session) forgetWorld(frame cdproto.FrameID) {
	s.worldsMu.Lock()
	delete(s.worlds, frame)
	s.worldsMu.Unlock()
	s.chainsMu.Lock()
	for k := range s.chains {
		if k.frame == frame {
			delete(s.chains, k)
		}
	}
	s.chainsMu.Unlock()
}

// forgetFrame forgets all the session keeps of a frame that is gone
// (Page.frameDetached, or a read's frame tree that no longer lists it:
// forgetUnlisted): its world and chains, and its warm trees. The
// session's memory is then bounded by the frames alive, however many
// iframes a page makes and removes while the provider is attached.
func (s *session) forgetFrame(frame cdproto.FrameID) {
	s.forgetWorld(frame)
	if a := s.ax.Load(); a != nil {
		a.Forget(frame)
	}
}

// forgetUnlisted forgets all the session keeps of the frames a frame
// tree of its no longer lists (forgetFrame): those it has a world or a
// chain in, and others (documents the provider forgot).
func (s *session) forgetUnlisted(listed map[cdproto.FrameID]*cdproto.Frame, others []cdproto.FrameID) {
	gone := map[cdproto.FrameID]bool{}
	for _, f := range others {
		gone[f] = listed[f] == nil
	}
	s.worldsMu.Lock()
	for f := range s.worlds {
		gone[f] = listed[f] == nil
	}
	s.worldsMu.Unlock()
	s.chainsMu.Lock()
	for k := range s.chains {
		gone[k.frame] = listed[k.frame] == nil
	}
	s.chainsMu.Unlock()
	for f, g := range gone {
		if g {
			s.forgetFrame(f)
		}
	}
}

// chainKey names the chain of one kind (chainScript.key) in a frame.
type chainKey struct {
	frame cdproto.FrameID
	key   string
}

// fetchingLoaded reports whether the page is busy with the provider's own
// getFullAXTree of a document that just loaded (seconds for a big one):
// a page that answers nothing meanwhile is not frozen (the session's
// health asks).
func (s *session) fetchingLoaded() bool {
	a := s.ax.Load()
	return a != nil && a.Fetching()
}
