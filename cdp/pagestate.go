package cdp

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
)

// stateScript installs, once per document, the provider's passive
// watchers in its isolated world, and returns what they saw:
//   - t: when the pointer last moved in this document (0: not since);
//   - m, age: how many DOM mutations, input and change events there have
//     been, and how long ago the last one was, in ms.
//
// The watchers are a mousemove listener and a MutationObserver: they
// never change the page or an event. (Chrome leaves a stale :hover in a
// frame the pointer left across a process boundary, so the pointer's
// document is the one that saw it move last; and Chrome sends
// nodesUpdated for a change up to 260 ms late, so a read right after a
// mutation must not trust the warm tree.)
const stateScript = `(() => {
  let s = globalThis.__cdpprovider;
  if (!s) {
    s = globalThis.__cdpprovider = { t: 0, m: 0, last: 0 };
    const bump = () => { s.m++; s.last = Date.now(); };
    addEventListener('mousemove', (e) => { s.t = performance.timeOrigin + e.timeStamp; }, { capture: true, passive: true });
    addEventListener('input', bump, { capture: true, passive: true });
    addEventListener('change', bump, { capture: true, passive: true });
    new MutationObserver(bump).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  return [s.t, s.m, s.last ? Date.now() - s.last : 1e9];
})()`

// pageState is what stateScript returns for one document.
type pageState struct {
	pointer   float64       // when the pointer last moved here
	mutations int64         // mutations seen since the watchers were installed
	quiet     time.Duration // since the last mutation
	ok        bool          // the script answered
}

// readPageState runs stateScript in a frame's isolated world.
func readPageState(ctx context.Context, s *session, frame cdp.FrameID) pageState {
	var v [3]float64
	if err := evalIn(ctx, s, frame, stateScript, &v); err != nil {
		return pageState{}
	}
	return pageState{pointer: v[0], mutations: int64(v[1]), quiet: time.Duration(v[2] * float64(time.Millisecond)), ok: true}
}
