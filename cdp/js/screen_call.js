// screenCall (screen.go): a call of the function screen.js keeps in the
// isolated world, {{call}} (find or near), for the numbering {{world}}:
// a few dozen characters where screen.js is ten thousand, which Chrome
// would parse and compile again at each read (the numbers written in it
// differ each time). When the world keeps no screen.js of that numbering
// and version (a new document, a world made again, or another
// provider's numbering in the shared world), it answers how "absent",
// and the provider sends screen.js.
((st) => st && st.version === {{version}} && st.world === {{world}} ? st.{{call}} : [JSON.stringify({world: '', how: 'absent', on: [], frames: [], fresh: [], n: 0})])(globalThis.__cdpproviderScreen)
