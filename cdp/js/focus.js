// focusScript (focus.go): the chain of the element with keyboard focus,
// deepest first. {{chain}} is chain.js.
(() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el === document.body || el === document.documentElement) return [];
  // An element hidden while it had focus (display: none on it or above
  // it) keeps it until Chrome's blur task runs: it is focused no more.
  if (!el.checkVisibility()) return [];
  {{chain}}
})()
