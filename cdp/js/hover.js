// hoverScript (pointer.go): the chain of hovered elements, deepest first.
// {{chain}} is chain.js.
(() => {
  const last = (root) => { const l = root.querySelectorAll(':is(*):hover'); return l.length ? l[l.length - 1] : null; };
  let el = last(document);
  while (el && el.shadowRoot) { const inner = last(el.shadowRoot); if (!inner) break; el = inner; }
  {{chain}}
})()
