// chainKeepScript (pointer.go): runs an element chain script ({{script}}),
// keeps its array in the isolated world under {{key}} and returns its
// first element. {{store}} is chainStore.
(() => { const chain = {{script}}; ({{store}} ||= {})['{{key}}'] = chain; return chain.length ? chain[0] : null; })()
