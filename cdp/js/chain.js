// chain.js, inside focus.js and hover.js where el is an element (or
// null): returns el and its ancestors, deepest first, across shadow roots.
const chain = [];
for (let n = el; n && chain.length < 16; ) {
  chain.push(n);
  const up = n.parentNode;
  n = up instanceof ShadowRoot ? up.host : (up instanceof Element ? up : null);
}
return chain;
