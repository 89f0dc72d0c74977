// focusScript (focus.go): the chain of the element with keyboard focus,
// deepest first. {{chain}} is chain.js.
(() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el === document.body || el === document.documentElement) return [];
  {{chain}}
})()
