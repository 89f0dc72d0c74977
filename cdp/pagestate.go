package cdp

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
)

// stateScript installs, once per document, the provider's passive
// watchers in its isolated world, and returns what they saw:
//   - t: when the pointer last moved in this document (0: not since);
//   - m, quiet: how many DOM mutations, input and change events there have
//     been, and how long ago the last one was, in ms;
//   - visible, focus: document.visibilityState and hasFocus();
//   - i: how many things the person did that can change what is shown
//     without a mutation (a :hover or :focus style, an animation).
//
// The watchers are event listeners and a MutationObserver: they never
// change the page or an event. Chrome leaves a stale :hover in a frame the
// pointer left across a process boundary, so the pointer's document is
// the one that saw it move last. Chrome sends nodesUpdated for a change
// up to 260 ms late, so a read right after a mutation must not trust the
// warm tree. And each watcher calls the provider's binding (bindingName),
// at most every 20 ms, so that a host subscribed to current hears of a
// change at once.
const stateScript = `(() => {
  let s = globalThis.__cdpprovider;
  if (!s) {
    s = globalThis.__cdpprovider = { t: 0, m: 0, i: 0, last: 0, said: 0, later: 0 };
    const say = () => {
      const f = globalThis.` + bindingName + `;
      if (typeof f !== 'function' || s.later) return;
      const wait = s.said + 20 - Date.now();
      if (wait <= 0) { s.said = Date.now(); f(''); return; }
      s.later = setTimeout(() => { s.later = 0; s.said = Date.now(); f(''); }, wait);
    };
    const bump = () => { s.m++; s.last = Date.now(); say(); };
    const opts = { capture: true, passive: true };
    addEventListener('mousemove', (e) => { s.t = performance.timeOrigin + e.timeStamp; }, opts);
    for (const type of ['input', 'change']) addEventListener(type, bump, opts);
    const did = () => { s.i++; say(); };
    for (const type of ['mouseover', 'focusin', 'focusout', 'focus', 'blur', 'hashchange', 'transitionend', 'animationend', 'resize', 'toggle']) addEventListener(type, did, opts);
    document.addEventListener('visibilitychange', say, opts);
    new MutationObserver(bump).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  return [s.t, s.m, s.last ? Date.now() - s.last : 1e9, document.visibilityState === 'visible' ? 1 : 0, document.hasFocus() ? 1 : 0, s.i];
})()`

// pageState is what stateScript returns for one document.
type pageState struct {
	pointer   float64       // when the pointer last moved here
	mutations int64         // mutations seen since the watchers were installed
	quiet     time.Duration // since the last mutation
	// interactions counts what the person did that can change what is
	// shown without a mutation: the pointer entering an element, focus,
	// CSS transitions and animations ending, a resize, a details toggle.
	interactions int64
	visible      bool // document.visibilityState is visible
	focus        bool // document.hasFocus()
	ok           bool // the script answered
}

// readPageState runs stateScript in a frame's isolated world.
func readPageState(ctx context.Context, s *cdpSession, frame cdp.FrameID) pageState {
	var v [6]float64
	if err := evalIn(ctx, s, frame, stateScript, &v); err != nil {
		return pageState{}
	}
	return pageState{
		pointer:      v[0],
		mutations:    int64(v[1]),
		quiet:        time.Duration(v[2] * float64(time.Millisecond)),
		visible:      v[3] == 1,
		focus:        v[4] == 1,
		interactions: int64(v[5]),
		ok:           true,
	}
}

// activity is what the warm trees need of the page state: whether the
// page changed, and how long ago (warm.Activity).
func (ps pageState) activity() warm.Activity {
	return warm.Activity{OK: ps.ok, Mutations: ps.mutations, Quiet: ps.quiet, Interactions: ps.interactions}
}
