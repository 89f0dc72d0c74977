// onScreenScript (budget.go): the elements a person sees in the
// document's viewport, sampled with elementsFromPoint.
(() => {
  const w = innerWidth, h = innerHeight, out = new Set();
  const step = Math.max(16, Math.ceil(Math.sqrt(w * h / 2000)));
  const at = (root, x, y) => {
    for (const el of root.elementsFromPoint(x, y)) {
      if (out.has(el)) continue;
      out.add(el);
      if (el.shadowRoot && el.shadowRoot !== root) at(el.shadowRoot, x, y);
    }
  };
  for (let y = step / 2; y < h && out.size < 4000; y += step)
    for (let x = step / 2; x < w && out.size < 4000; x += step) at(document, x, y);
  return Array.from(out).slice(0, 4000);
})()
