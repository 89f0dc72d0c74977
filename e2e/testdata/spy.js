// Counts every call of the DOM functions a careless provider would use
// from the page's own world, and every mutation of the document. The tests
// read window.__spy before and after the provider's reads: a read-only
// provider changes neither.
(() => {
  const spy = window.__spy = {calls: {}, mutations: 0};
  const wrap = (proto, name) => {
    const orig = proto[name];
    spy.calls[name] = 0;
    proto[name] = function (...args) {
      spy.calls[name]++;
      return orig.apply(this, args);
    };
  };
  wrap(Document.prototype, 'querySelectorAll');
  wrap(Element.prototype, 'querySelectorAll');
  wrap(Document.prototype, 'querySelector');
  wrap(Element.prototype, 'querySelector');
  wrap(Element.prototype, 'matches');
  wrap(Element.prototype, 'getBoundingClientRect');
  wrap(Element.prototype, 'getClientRects');
  wrap(Document.prototype, 'elementFromPoint');
  wrap(Document.prototype, 'elementsFromPoint');
  wrap(Document.prototype, 'hasFocus');
  wrap(Element.prototype, 'closest');
  const observer = new MutationObserver(records => { spy.mutations += records.length; });
  observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  // Counts the records not yet delivered too, so that a reader needs no
  // wait for the observer's callback (not enumerable: not in the JSON).
  Object.defineProperty(spy, 'flush', {value: () => { spy.mutations += observer.takeRecords().length; return spy; }});
})();
