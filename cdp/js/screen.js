// screenScript (screen.go): every element of the document whose box
// meets the screen, by the rule of box.js (locate): the element's border
// box, clipped by the viewport and by each ancestor that clips it (the
// same ancestors box.js walks up to, found here top down, one walk of the
// flat tree), and by {{clip}}, the part of this frame's viewport its
// <iframe> shows ([x, y, width, height] in this frame's CSS pixels, or
// null for a top frame). Returns an array: its first item a JSON string
// {world, how, on: [serial…], frames: [[serial, x, y, w, h]…],
// fresh: [serial…], up: [serial…], texts: [serial…], n}, then the
// elements the provider has not seen before, in the order of fresh. up
// names the elements of on that a walk found holding another element of
// on (a hint: a read after a scroll names only those in sticky
// elements), and texts those of up that hold text of their own (a text
// node not all white space, or a ::before or ::after with content),
// which is on screen with them. Each element the script has returned
// keeps a serial number in this world (a WeakMap), so a later read
// returns only the elements new on screen; world names this numbering,
// and a {{world}} other than the one kept starts a new one (the provider
// forgot its own).
//
// how is "walk" or "scroll". A walk keeps each element's box and clip,
// and whether they move with the page's scroll; while the provider's
// watchers (state.js) have seen no mutation, interaction, element scroll
// or load since, and the viewport and clip are the same, a read after the
// page scrolled takes them shifted by the scroll instead of walking
// again ("scroll"). What is inside a sticky element moves on its own: it
// is walked again each time.
//
// Each answer but "same" is numbered (n): {{last}} is the number of the
// answer the provider keeps (0: none). When that is the last answer the
// script gave, and the watchers and the scroll are as they were then,
// the script answers how "same" at once, with no element: the provider
// takes its kept answer again. A page not shown has nothing on screen:
// a top frame hidden answers how "hidden", numbering nothing.
//
// The work is a function made once in the world (st.find) and called by
// each run: V8 compiles it to machine code after a few calls, where the
// script evaluated anew each time would run interpreted (a shift of
// 3,500 kept boxes took 1 ms interpreted). Once the provider has taken an
// answer of this numbering, it sends only a call of st.find or st.near
// (screen_call.js), not this script. Right after a scroll every
// millisecond the page's main thread spends before the read's last call
// raises the odds that the read waits for the frame Chrome paints.
(() => {
  let st = globalThis.__cdpproviderScreen;
  if (!st || st.world !== {{world}} || st.version !== {{version}}) st = globalThis.__cdpproviderScreen = {version: {{version}}, world: Math.random().toString(36).slice(2), next: 1, serials: new WeakMap(), kept: null, said: null, answers: 0, indexed: 0, scans: 0};
  st.find ||= (clipArg, last) => {
    if (!clipArg && document.visibilityState !== 'visible') return [JSON.stringify({world: st.world, how: 'hidden', on: [], frames: [], fresh: [], n: 0})];
    const px = (v) => parseFloat(v) || 0;
    const vv = visualViewport, root = document.documentElement;
    const cut = (a, b) => [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3]), a[4]];
    let view = [0, 0, vv ? vv.width : root.clientWidth, vv ? vv.height : root.clientHeight, 1];
    if (clipArg) view = cut(view, [clipArg[0], clipArg[1], clipArg[0] + clipArg[2], clipArg[1] + clipArg[3]]);
    const w = globalThis.__cdpprovider;
    const marks = w && !w.rests && w.v !== undefined ? [w.id, w.m, w.i, w.v, innerWidth, innerHeight, String(clipArg)].join(' ') : '';
    const sx = scrollX, sy = scrollY;
    const said = st.said;
    if (said && marks && said.n === last && said.marks === marks && said.sx === sx && said.sy === sy) {
      return [JSON.stringify({world: st.world, how: 'same', on: [], frames: [], fresh: [], n: said.n})];
    }
    const on = [], frames = [], fresh = [], up = [], texts = [], out = [null];
    const serial = (el) => {
      let n = st.serials.get(el);
      if (n === undefined) {
        n = st.next++;
        st.serials.set(el, n);
        fresh.push(n);
        out.push(el);
      }
      return n;
  };
  // holder takes el, which holds another element on screen (its serial
  // n): n goes in up, and in texts too when el holds text of its own.
  const holder = (el, n) => {
    up.push(n);
    for (let c = (el.shadowRoot || el).firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3 && /\S/.test(c.data)) return texts.push(n);
    }
    const pseudo = (p) => { const c = getComputedStyle(el, p).content; return c !== 'none' && c !== 'normal'; };
    if (pseudo('::before') || pseudo('::after')) texts.push(n);
  };
  // The clips are [x0, y0, x1, y1, fixed] in viewport pixels, without
  // the viewport: fixed 1 when they stay where they are as the page
  // scrolls (inside a fixed element), 0 when they move with it.
  const all = [-1e15, -1e15, 1e15, 1e15, 0], allFixed = [-1e15, -1e15, 1e15, 1e15, 1];
  // kept is what a walk keeps for the next read (null: nothing to keep):
  // for each element that may be on screen, its box and clip; for each
  // <iframe>, its content box; for each sticky element, the clips its
  // parent gave it.
  const kept = marks ? {marks, sx, sy, els: [], nums: [], iframes: [], sticky: []} : null;
  const frameOf = (n, own, c) => {
    const v = cut(cut(own, view), c);
    if (v[2] > v[0] && v[3] > v[1]) frames.push([n, v[0] - c[0], v[1] - c[1], v[2] - v[0], v[3] - v[1]]);
  };
  // A context is what an element gives the elements it holds (one
  // object, no closure: a walk makes one for each element that holds
  // others, and what it allocates is time): mine clips what they hold in
  // normal flow; clipA and clipF give what clips them absolutely
  // positioned and fixed, found when first asked (such elements are
  // few): mine when the element is their containing block, else what
  // its own context (up) gives.
  const contextOf = (cs, ca, cf) => ({s: null, mine: cs, a: ca, f: cf, abs: false, holds: false, contain: '', up: null});
  // holdsFixed: whether the element of c is the containing block of what
  // it holds fixed (and, static, absolutely positioned): four style
  // reads, a sixth of a walk's time were they read for every element.
  const holdsFixed = (c) => {
    if (c.holds === undefined) {
      const s = c.s;
      c.holds = s.transform !== 'none' || s.perspective !== 'none' || s.filter !== 'none' ||
        /transform|perspective|filter/.test(s.willChange) || /paint|strict|content|layout/.test(c.contain);
    }
    return c.holds;
  };
  const clipA = (c) => c.abs ? c.mine : c.a ??= holdsFixed(c) ? c.mine : clipA(c.up);
  const clipF = (c) => c.f ??= holdsFixed(c) ? c.mine : clipF(c.up);
  // visit looks at el and its flat-tree descendants (a shadow root's
  // children, a slot's assigned elements), in the context c of its
  // parent. keep says the walk keeps what it sees (not inside a sticky
  // element). The element's box first: its style's display is read only
  // when it has none (display none, or contents, whose box is that of
  // what it holds).
  const visit = (el, c, keep) => {
    const s = getComputedStyle(el);
    let r = el.getBoundingClientRect(), contents = false;
    if (!(r.width > 0 && r.height > 0)) {
      // (An element without client rects has an empty bounding rect: it
      // meets nothing, as box.js's null box is offscreen.)
      const display = s.display;
      if (display === 'none') return;
      if (display === 'contents') {
        contents = true;
        const range = document.createRange();
        range.selectNodeContents(el);
        r = range.getBoundingClientRect();
      }
    }
    const x = r.x, y = r.y, w = r.width, h = r.height;
    const pos = s.position;
    const own = pos === 'fixed' ? clipF(c) : pos === 'absolute' ? clipA(c) : c.mine;
    if (pos === 'sticky' && keep) {
      if (kept) kept.sticky.push(el, c.mine, clipA(c), clipF(c));
      keep = false;
    }
    let self = 0;
    if (w > 0 && h > 0 && own[2] > own[0] && own[3] > own[1]) {
      if (keep && kept) {
        kept.els.push(el);
        kept.nums.push(x, y, w, h, own[0], own[1], own[2], own[3], own[4]);
      }
      const tag = el.localName;
      const frame = tag === 'iframe' || tag === 'frame' || tag === 'object' || tag === 'embed';
      let content = null;
      if (frame) {
        const l = px(s.borderLeftWidth) + px(s.paddingLeft), t = px(s.borderTopWidth) + px(s.paddingTop);
        content = [x + l, y + t, x + w - px(s.borderRightWidth) - px(s.paddingRight), y + h - px(s.borderBottomWidth) - px(s.paddingBottom)];
        if (keep && kept) kept.iframes.push(kept.els.length - 1, content[0], content[1], content[2], content[3]);
      }
      // Its box meets own and the viewport.
      if (Math.min(x + w, own[2], view[2]) > Math.max(x, own[0], view[0]) && Math.min(y + h, own[3], view[3]) > Math.max(y, own[1], view[1])) {
        const n = self = serial(el);
        on.push(n);
        if (frame) frameOf(n, own, content);
      }
    }
    // What it holds: a shadow root's children, a slot's assigned
    // elements (else its own), or its children; walked by sibling, no
    // collection made.
    let list = null, k = null;
    const shadow = el.shadowRoot;
    if (shadow) k = shadow.firstElementChild;
    else if (el.localName === 'slot' && (list = el.assignedElements()).length === 0) list = null;
    if (!shadow && !list) k = el.firstElementChild;
    if (!k && !list) return;
    const before = on.length;
    let cx = c;
    if (!contents) {
      const contain = s.contain, paint = /paint|strict|content/.test(contain);
      let mine = own;
      const clipX = s.overflowX !== 'visible' || paint, clipY = s.overflowY !== 'visible' || paint;
      if ((clipX || clipY) && el !== root && !(el === document.body && bodyToViewport())) {
        const bl = px(s.borderLeftWidth), br = px(s.borderRightWidth), bt = px(s.borderTopWidth), bb = px(s.borderBottomWidth);
        const sbX = Math.max(0, el.offsetWidth - el.clientWidth - Math.round(bl) - Math.round(br));
        const sbY = Math.max(0, el.offsetHeight - el.clientHeight - Math.round(bt) - Math.round(bb));
        mine = own.slice();
        if (clipX) { mine[0] = Math.max(mine[0], x + bl); mine[2] = Math.min(mine[2], r.right - br - sbX); }
        if (clipY) { mine[1] = Math.max(mine[1], y + bt); mine[3] = Math.min(mine[3], r.bottom - bb - sbY); }
      }
      cx = {s, mine, a: undefined, f: undefined, abs: pos !== 'static', holds: undefined, contain, up: c};
    }
    if (list) for (const e of list) visit(e, cx, keep);
    else for (; k; k = k.nextElementSibling) visit(k, cx, keep);
    if (self && on.length > before) holder(el, self);
  };
  // Whether the root's overflow is visible, when the body's clips the
  // viewport rather than the body: read when a walk first asks, not by
  // a read after a scroll, which walks nothing (a fifth of its time in
  // the page, 0.04 ms at p50k).
  let toViewport;
  const bodyToViewport = () => toViewport ??= ((rs) => rs.overflowX === 'visible' && rs.overflowY === 'visible')(getComputedStyle(root));
  let how = 'walk';
  const k = st.kept;
  if (k && marks && k.marks === marks) {
    // Only the page scrolled since the walk: what moves with it moves by
    // the scroll; what is in a sticky element is walked again.
    how = 'scroll';
    const dx = sx - k.sx, dy = sy - k.sy;
    const at = (c) => c[4] ? c : [c[0] - dx, c[1] - dy, c[2] - dx, c[3] - dy, c[4]];
    const f = k.nums, iframes = new Map();
    for (let i = 0; i < k.iframes.length; i += 5) iframes.set(k.iframes[i], k.iframes.slice(i + 1, i + 5));
    const vx0 = view[0], vy0 = view[1], vx1 = view[2], vy1 = view[3];
    for (const i of st.rows(k, vy0 + sy, vy1 + sy)) {
      const j = i * 9;
      // Its box, shifted, meets its clip and the viewport, as a walk
      // tests it, without an array made.
      const sx = f[j + 8] ? 0 : dx, sy = f[j + 8] ? 0 : dy;
      const x = f[j] - sx, y = f[j + 1] - sy;
      if (!(Math.min(x + f[j + 2], f[j + 6] - sx, vx1) > Math.max(x, f[j + 4] - sx, vx0) &&
        Math.min(y + f[j + 3], f[j + 7] - sy, vy1) > Math.max(y, f[j + 5] - sy, vy0))) continue;
      const n = serial(k.els[i]);
      on.push(n);
      const c = iframes.get(i);
      if (c) frameOf(n, at([f[j + 4], f[j + 5], f[j + 6], f[j + 7], f[j + 8]]), [c[0] - sx, c[1] - sy, c[2] - sx, c[3] - sy]);
    }
    for (let i = 0; i < k.sticky.length; i += 4) {
      const el = k.sticky[i];
      if (el.isConnected) visit(el, contextOf(at(k.sticky[i + 1]), at(k.sticky[i + 2]), at(k.sticky[i + 3])), false);
    }
  } else {
    visit(root, contextOf(all, all, allFixed), true);
    st.kept = kept;
  }
  const n = ++st.answers;
  st.said = marks ? {marks, sx, sy, n} : null;
  out[0] = JSON.stringify({world: st.world, how, on, frames, fresh, up, texts, n});
  return out;
  };
  // rows(k, top, bottom) returns, in the walk's order, the indexes of the
  // elements the walk k kept whose box, clipped, may meet the band of
  // the page from top to bottom (the page's CSS pixels, scrolled to the
  // top: a screen's band is its viewport's plus the scroll): every one
  // that does, and few that do not, from an index of the page in bands
  // of a screen's height, made at the first call after the walk (near
  // makes it while the page is idle). What stays put as the page
  // scrolls (fixed) is always among them, and so is what spans more
  // than 64 bands; what can never be seen (clipped to nothing) never.
  // An index grown past 8 entries an element is dropped, and every
  // element returned (counted: scans).
  st.rows ||= (k, top, bottom) => {
    let x = k.index;
    if (!x) {
      const f = k.nums, size = Math.max(innerHeight, 64), bands = new Map(), always = [], first = [];
      let entries = 0;
      for (let i = 0, j = 0; i < k.els.length && entries <= 8 * k.els.length; i++, j += 9) {
        const lo = Math.max(f[j + 1], f[j + 5]), hi = Math.min(f[j + 1] + f[j + 3], f[j + 7]);
        if (!(hi > lo)) continue;
        const a = Math.floor((lo + k.sy) / size), b = Math.floor((hi + k.sy) / size);
        if (f[j + 8] || b - a > 64) {
          always.push(i);
          continue;
        }
        first[i] = a;
        for (let band = a; band <= b; band++) {
          const list = bands.get(band);
          if (list) list.push(i); else bands.set(band, [i]);
          entries++;
        }
      }
      x = k.index = entries <= 8 * k.els.length ? {size, bands, always, first} : {size: 0};
    }
    if (!x.size) {
      st.scans++;
      return k.els.keys();
    }
    st.indexed++;
    const a = Math.floor(top / x.size), b = Math.floor(bottom / x.size), out = x.always.slice();
    for (let band = a; band <= b; band++) {
      const list = x.bands.get(band);
      // (an element in more than one band is taken in the first of them
      // asked for: the first, or its own first)
      if (list) for (const i of list) if (band === a || x.first[i] === band) out.push(i);
    }
    return Int32Array.from(out).sort(); // (in order as numbers, natively)
  };
  // near(margin) numbers the elements of the last walk, as shifted by
  // the page's scroll since, that have no number yet and whose box is
  // within margin pixels above or below the screen: sent after a read
  // whose answer was new (the person scrolls), it makes their
  // DOM ids come back while the page is idle, so that the read after
  // the next scroll has few new elements to return (Chrome's deep
  // serialization costs about 0.035 ms an element, on the page's main
  // thread, where the read waits for it). It changes no answer's number.
  st.near ||= (margin) => {
    const k = st.kept, fresh = [], out = [null];
    if (k) {
      const dx = scrollX - k.sx, dy = scrollY - k.sy, f = k.nums;
      const y0 = -margin, y1 = innerHeight + margin, x1 = innerWidth;
      for (const i of st.rows(k, scrollY + y0, scrollY + y1)) {
        const j = i * 9, el = k.els[i];
        if (st.serials.has(el)) continue;
        const sx = f[j + 8] ? 0 : dx, sy = f[j + 8] ? 0 : dy;
        const x = f[j] - sx, y = f[j + 1] - sy;
        if (y + f[j + 3] <= y0 || y >= y1 || x + f[j + 2] <= 0 || x >= x1) continue;
        const n = st.next++;
        st.serials.set(el, n);
        fresh.push(n);
        out.push(el);
      }
    }
    out[0] = JSON.stringify({world: st.world, how: 'near', on: [], frames: [], fresh, n: 0});
    return out;
  };
  return st.find({{clip}}, {{last}});
})()
