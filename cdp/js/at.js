// atScript (at.go): the chain of the element at a point of the frame's
// viewport ({{x}}, {{y}} in its CSS px), deepest first, through open
// shadow roots: the element the page's own hit test finds there
// (elementFromPoint: what a click would reach, pointer-events: none
// passed through), preceded by its text node when the point is on the
// text's glyph boxes. When the element is an <iframe> or <frame>, the
// point in its content box's px is kept in {{store}}.inFrame. It only reads.
// {{chain}} is chain.js.
(() => {
  const x = {{x}}, y = {{y}};
  const store = ({{store}} ||= {});
  store.inFrame = null;
  let el = document.elementFromPoint(x, y);
  while (el && el.shadowRoot) { const inner = el.shadowRoot.elementFromPoint(x, y); if (!inner || inner === el) break; el = inner; }
  if (!el) return [];
  if (el instanceof HTMLIFrameElement || el instanceof HTMLFrameElement) {
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    store.inFrame = [x - r.left - parseFloat(s.borderLeftWidth) - parseFloat(s.paddingLeft),
      y - r.top - parseFloat(s.borderTopWidth) - parseFloat(s.paddingTop)];
  }
  let text = null;
  const range = document.createRange();
  for (const n of el.childNodes) {
    if (n.nodeType !== Node.TEXT_NODE || !n.data.trim()) continue;
    range.selectNodeContents(n);
    for (const q of range.getClientRects()) {
      if (x >= q.left && x < q.right && y >= q.top && y < q.bottom) { text = n; break; }
    }
    if (text) break;
  }
  const chain = (() => { {{chain}} })();
  return text ? [text, ...chain] : chain;
})()
