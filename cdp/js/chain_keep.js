// chainKeepScript (pointer.go): runs an element chain script ({{script}}),
// keeps its array in the isolated world under {{key}}, with the number
// the provider gave this read of it (/*token*/, filled in at each call)
// under {{key}}Token, and returns its first element. {{store}} is
// chainStore.
(() => { const chain = {{script}}; const st = ({{store}} ||= {}); st['{{key}}'] = chain; st['{{key}}Token'] = /*token*/0; return chain.length ? chain[0] : null; })()
