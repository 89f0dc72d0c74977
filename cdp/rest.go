package cdp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// Rest: what the provider stops doing in the person's browser while no
// host reads.
//
// Awake, the provider keeps what a host may read warm: the accessibility
// trees of the documents shown (Chrome keeping them current, the events,
// the walks), a fetch and a background read after each load, and the
// page watchers' calls to its binding. All of that costs the pages'
// renderers, whether or not a host reads. After RestAfter with no read
// of a host's (Current, Locate, Screenshot) and no host subscribed
// (Watch), the provider rests:
//   - every session's warm trees let go (warm.Trees.Rest: walks stopped,
//     none started, no fetch at a load), and Accessibility.disable, so
//     that Chrome drops the trees and stops keeping them current;
//   - the page watchers stop their MutationObserver and their calls to
//     the binding (state.js: rest), unless another provider attached to
//     the browser, which shares them, is awake;
//   - no background read (readAhead), and the elements kept for the
//     next read are forgotten (their fingerprints would not see a change
//     made while the watchers rest).
//
// Target events (the browser process's, not a page's) and each page's
// health (the Page domain's dialog and crash events) stay on. A host's
// next read wakes it: that read reads each shown document whole, as the
// first read of a document always does, and everything above starts
// again (wake).

// DefaultRestAfter is how long the provider stays awake after a host's
// last read, when Options.RestAfter is 0.
const DefaultRestAfter = 30 * time.Second

// DefaultWalkFrom is the fewest nodes a document must have to be
// walked, when Options.WalkFrom is 0 (warm.Trees.WalkFrom).
const DefaultWalkFrom = 2000

// restState is when a host last read, and whether the provider rests.
type restState struct {
	mu      sync.Mutex
	after   time.Duration // <0: never
	last    time.Time     // of a host's last read; guarded by mu
	timer   *time.Timer   // calls tryRest; guarded by mu
	resting bool          // guarded by mu
	// rests and wakes count the rests and wakes so far, held the rests
	// that came due while a host was subscribed; guarded by mu.
	rests, wakes, held int64
}

// heard records a host's read (or subscription, or its end), and sets
// the rest to come RestAfter from now.
func (p *Provider) heard() {
	r := &p.rest
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = time.Now()
	if r.after < 0 || p.life.Err() != nil {
		return
	}
	if r.timer == nil {
		r.timer = time.AfterFunc(r.after, p.tryRest)
		return
	}
	r.timer.Reset(r.after)
}

// resting reports whether the provider rests.
func (p *Provider) resting() bool {
	p.rest.mu.Lock()
	defer p.rest.mu.Unlock()
	return p.rest.resting
}

// Resting reports whether the provider rests, and how many times it
// went to rest and woke so far: for tests and benchmarks that must know.
func (p *Provider) Resting() (resting bool, rests, wakes int64) {
	p.rest.mu.Lock()
	defer p.rest.mu.Unlock()
	return p.rest.resting, p.rest.rests, p.rest.wakes
}

// tryRest rests the provider when RestAfter has passed since a host's
// last read and no host is subscribed; it waits for a read under way.
// A subscription ending sets the rest again (Watch).
func (p *Provider) tryRest() {
	if err := p.mu.lockContext(p.life); err != nil {
		return
	}
	defer p.mu.Unlock()
	r := &p.rest
	r.mu.Lock()
	if r.resting {
		r.mu.Unlock()
		return
	}
	if p.watcher.Load() != nil {
		r.held++
		r.mu.Unlock()
		return
	}
	if left := r.after - time.Since(r.last); left > 0 {
		r.timer.Reset(left)
		r.mu.Unlock()
		return
	}
	after := r.after
	r.mu.Unlock()
	// The provider rests once it has let go: nothing of its background
	// work sends the pages anything after it says it rests. Reads wait
	// for p.mu meanwhile, and a background read asked for finds it
	// resting (readBehind).
	n := p.letGo()
	r.mu.Lock()
	r.resting = true
	r.rests++
	r.mu.Unlock()
	p.log.Debug("resting: no host has read for a while and none is subscribed; background work in the browser stopped until the next read",
		"after", after, "sessions", n)
}

// letGo stops the background work in every session of the connection,
// and forgets the elements kept for the next read. It makes no call that
// waits for an answer: a page that cannot answer (a dialog, a long
// script) never holds it. It returns how many sessions had warm trees.
// Called with p.mu held.
func (p *Provider) letGo() int {
	st := p.state
	if st == nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(p.life, 5*time.Second)
	defer cancel()
	var rested []*warm.Trees
	for _, s := range st.sessions {
		if a := p.restTrees(ctx, s); a != nil {
			rested = append(rested, a)
		}
		s.tellWatchers(ctx, quietWatchers)
	}
	// The background work stopped (walks, a load's fetch and state
	// script) ends at once (its calls fail); the wait makes sure none
	// sends a call after the rest began.
	for _, a := range rested {
		if err := a.AwaitBackground(ctx); err != nil {
			p.log.Debug("background work stopped by the rest did not end", "err", err)
		}
	}
	for _, d := range st.docs {
		d.mapped = memo{}
	}
	st.budgets = mapping.BudgetCache{}
	st.scans = nil
	return len(rested)
}

// restTrees lets go of a session's warm trees, turning Accessibility off
// when it was on; it returns the trees let go, nil when the session had
// none.
func (p *Provider) restTrees(ctx context.Context, s *session) *warm.Trees {
	a := s.ax.Swap(nil)
	if a == nil {
		return nil
	}
	if a.Rest() {
		if err := s.Post(ctx, accessibility.CommandDisable, cdproto.Empty{}); err != nil {
			p.log.Debug("could not turn accessibility off", "session", s.ID(), "err", err)
		}
	}
	return a
}

// restUnshown lets go of the warm trees of the sessions this read did
// not read (tabs no window shows now, and their frames): only what a
// host can be shown is kept warm. Their watchers go on, to tell of a tab
// shown again. Called with p.mu held, at the end of a read.
func (p *Provider) restUnshown(reads []*tabRead) {
	read := map[*session]bool{}
	for _, r := range reads {
		if r == nil {
			continue
		}
		read[r.sess] = true
		for _, o := range r.oopifs {
			read[o.sess] = true
		}
	}
	ctx, cancel := context.WithTimeout(p.life, 5*time.Second)
	defer cancel()
	for _, s := range p.state.sessions {
		if !read[s] && p.restTrees(ctx, s) != nil {
			p.log.Debug("a tab's documents are not shown: no longer kept warm", "session", s.ID())
		}
	}
}

// wake ends a rest at a host's read: the watchers of every document the
// provider had read call its binding again (those of the documents this
// read reads would on their own: stateScript), so that a tab shown or a
// page changed is told again. The read itself makes the warm trees anew
// (axOf). Called with p.mu held, on a live connection.
func (p *Provider) wake(ctx context.Context) {
	r := &p.rest
	r.mu.Lock()
	was := r.resting
	r.resting = false
	if was {
		r.wakes++
	}
	r.mu.Unlock()
	if !was || p.state == nil {
		return
	}
	p.log.Debug("awake: a host reads; the provider keeps the shown documents warm again")
	for _, s := range p.state.sessions {
		s.tellWatchers(ctx, wakeWatchers)
	}
}

// What a provider tells a document's watchers (state.js): that it rests
// (or closes), or is awake again. The watchers are shared by the
// providers attached to the browser, and stop when none is awake.
const (
	quietWatchers = "rest"
	wakeWatchers  = "wake"
)

// tellWatchers calls the watchers' rest or wake (quietWatchers,
// wakeWatchers), for the session's provider, in the provider's isolated
// world of each frame of the session it has one in, without waiting for
// the answers. A world its document navigated away from is gone, and the
// call with it.
func (s *session) tellWatchers(ctx context.Context, what string) {
	expr := fmt.Sprintf("globalThis.__cdpprovider && globalThis.__cdpprovider.%[1]s && globalThis.__cdpprovider.%[1]s(%[2]d)", what, s.watchID)
	s.worldsMu.Lock()
	worlds := make([]runtime.ExecutionContextID, 0, len(s.worlds))
	for _, w := range s.worlds {
		worlds = append(worlds, w)
	}
	s.worldsMu.Unlock()
	for _, w := range worlds {
		s.Post(ctx, runtime.CommandEvaluate, runtime.EvaluateParams{Expression: expr, ContextID: w, Silent: ptr(true)})
	}
}
