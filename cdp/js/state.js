// stateScript (pagestate.go): installs the provider's passive watchers
// in a document's isolated world once, and returns what they saw.
// {{bindingName}} is the Runtime binding the watchers call (watch.go);
// {{focus}} and {{hover}} are focus.js and hover.js, {{store}} chainStore;
// /*me*/0 is the id of the provider that runs it (session.watchID).
//
// The isolated world is the same for every DevTools client that asks for
// it by its name: two providers attached to one browser (two hosts, or a
// host and the command line) share these watchers. Each provider that
// reads is awake until it rests (s.rest(me)) or closes; the watchers
// stop only when no provider is awake.
(() => {
  const me = /*me*/0;
  let s = globalThis.__cdpprovider;
  if (!s) {
    // id names these watchers in what they tell the binding: 'id m v',
    // v 1 when the page is shown, 0 when hidden.
    s = globalThis.__cdpprovider = { t: 0, m: 0, i: 0, v: 0, last: 0, said: 0, later: 0, id: 1 + Math.floor(Math.random() * 2 ** 52), awake: new Set([me]) };
    const tell = (f) => { s.said = Date.now(); f(s.id + ' ' + s.m + ' ' + (document.visibilityState === 'visible' ? 1 : 0)); };
    const say = () => {
      const f = globalThis.{{bindingName}};
      if (typeof f !== 'function' || s.later || s.rests) return;
      const wait = s.said + 20 - Date.now();
      if (wait <= 0) { tell(f); return; }
      s.later = setTimeout(() => { s.later = 0; tell(f); }, wait);
    };
    const bump = () => { s.m++; s.last = Date.now(); say(); };
    const opts = { capture: true, passive: true };
    addEventListener('mousemove', (e) => { s.t = performance.timeOrigin + e.timeStamp; }, opts);
    for (const type of ['input', 'change']) addEventListener(type, bump, opts);
    const did = () => { s.i++; say(); };
    for (const type of ['mouseover', 'focusin', 'focusout', 'focus', 'blur', 'hashchange', 'transitionend', 'animationend', 'resize', 'toggle']) addEventListener(type, did, opts);
    document.addEventListener('visibilitychange', say, opts);
    // v counts what moves the page under the screen without a mutation,
    // but the page's own scroll (whose position the read takes): a scroll
    // of an element in it, and a load (an image, a frame, a font), which
    // moves what follows it (screen.js).
    const moved = () => { s.v++; say(); };
    addEventListener('scroll', (e) => { if (e.target !== document) s.v++; say(); }, opts);
    addEventListener('load', moved, opts);
    if (document.fonts) document.fonts.addEventListener('loadingdone', moved);
    const mo = new MutationObserver(bump);
    s.watch = () => mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    // rest(id): the provider id rests (or closes). When no provider is
    // awake, the MutationObserver and the calls to the binding stop; the
    // next read of the document (this script), or a wake, starts them
    // again.
    s.rest = (id) => {
      s.awake.delete(id);
      if (s.awake.size || s.rests) return;
      mo.disconnect(); clearTimeout(s.later); s.later = 0; s.rests = 1;
      const sc = globalThis.__cdpproviderScreen;
      if (sc) sc.kept = sc.said = null; // what screen.js kept of its last walk and answer
    };
    // A wake counts as a move: what the rest did not watch is not known.
    s.wake = (id) => { s.awake.add(id); if (s.rests) { s.rests = 0; s.v++; s.watch(); } };
    s.watch();
  } else if (s.wake) {
    s.wake(me);
  }
  // kept tells, for the focus and the hover chains, -1 when there is
  // none (nothing focused, nothing hovered), the token of the chain the
  // provider kept last (chain_keep.js) when the chain is now the same
  // elements, in the same order; else 0.
  const kept = (key, chain) => {
    if (!chain.length) return -1;
    const st = {{store}} || {}, k = st[key];
    if (!k || !st[key + 'Token'] || k.length !== chain.length) return 0;
    for (let j = 0; j < k.length; j++) if (k[j] !== chain[j]) return 0;
    return st[key + 'Token'];
  };
  return [s.t, s.m, s.last ? Date.now() - s.last : 1e9, document.visibilityState === 'visible' ? 1 : 0, document.hasFocus() ? 1 : 0, s.i, s.id || 0,
    kept('focus', {{focus}}), kept('hover', {{hover}}), s.v ?? -1, scrollX, scrollY];
})()
