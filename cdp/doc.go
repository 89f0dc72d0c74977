// Package cdp is the Provider: it reads what a person sees in their
// browser over the DevTools protocol, for the protocol's answers: a read
// of their windows, tabs and documents (current), where an element is
// (locate), and the changes a subscribed host is told of (watch), with
// the screenshot of a tab for a picture of what locate says.
//
// It stands on three packages: cdp/browsers finds the browser and
// resolves its address to a websocket (the Provider never launches one:
// the provider package does, with cdp/browsers); cdp/wire dials it and
// carries the protocol, its sessions and each page's health; cdp/warm
// keeps the accessibility trees of the documents it reads exact between
// reads. It gathers what the browser shows into the data types of the
// mapping package and lets mapping build the answers; it never decides a
// role, a state or an id format itself. It must not import the mcp
// package, and it never navigates, clicks, types into, opens, closes or
// focuses the user's tabs, nor runs script in a page's own world.
//
// docs/warm-tree.md explains how the accessibility trees are kept between
// reads (package cdp/warm); section numbers in comments (5.6) are those of
// docs/protocol.md.
//
// # The path of a read
//
// Provider.Current (provider.go) calls current, which takes the lock and
// the connection (begin; connect.go: connect reuses the live connection
// or resolves the address with browsers.Endpoint.Resolve, dials it in the
// background with wire.StartDial and waits for it, then identify learns
// the product and attaches to each tab, attach, and discover in watch.go
// turns on the target events), then calls read (read.go), which runs the
// steps in order, each on what the steps before it returned:
//
//  1. the tabs (tabs.go): readTabs lists the targets (listPages;
//     forgetDead drops the gone ones) and asks every tab at once for its
//     window and its state (readTabState, pagestate.go: the watchers'
//     script in the isolated world; a page that crashed, waits on a
//     dialog or does not answer within 1.5 s, wire.Session.FirstCall, is
//     down, not asked; one that answers but not the script is down too,
//     errNoState) and /json/list for recency; a tab whose
//     document the last read read is asked beside the list, not after
//     it, and sent its frame tree (and Accessibility.enable) right
//     behind its state script, unawaited (sendAhead).
//  2. the windows (tabs.go): groupWindows groups the tabs into windows,
//     numbers them and picks each window's active tab (pickActive), the
//     tabs whose window the browser did not say in a window of their own
//     (noWindow); focusWindow picks the focused window.
//  3. the fetch (fetch.go): fetchTabs plans each active tab (planTab,
//     attaching its out-of-process iframes), then fetches all of them
//     side by side (fetch, fetchSession, fetchFrame: page state, the
//     accessibility tree from the warm trees (axOf, warm.Trees.Nodes,
//     which after a change makes sure Chrome's events for it came, told
//     by the watchers' signals in watch.go, and while the document's walk
//     runs reads it whole or waits for the walk, whichever should be
//     sooner; or, for a screen read of a large page whose walk at its
//     load is not done, the nodes on screen alone: partialFetch in
//     screen.go), value texts, frame owners, focus and hover chains read
//     ahead, or taken from the last read when the page state found them
//     the same elements: chainFor in pointer.go).
//  4. the assembly (assemble.go, down.go): assembleTabs makes what each
//     window shows: readDocument and assemble stitch a tab's frames into
//     one doc tree and number the documents, reading late a frame the
//     fetch did not know (fetchLate), and forgetHidden drops the walks of
//     frames not shown; a tab whose page cannot answer, or whose
//     document could not be read (errNoDocument), gets its Document as
//     last shown, and its dialog, from readDown; noteUnread logs the
//     tabs not read, once each (their marks: unreadMarks).
//  5. focus and pointer (focus.go, pointer.go): readFocus finds the
//     focused window's focus path and chain, findPointer the document
//     under the pointer and its hover chain.
//  6. the memo (memo.go): reuseMapped finds the top documents unchanged
//     since the last read (fingerprint) and the elements mapped for them.
//  7. the answer: browserOf builds the windows and their tabs with their
//     Documents (frameOf: each document's frame, marked with the focus
//     and the pointer); mapping.Build builds the answer; applyBudget
//     (budget.go) cuts it to the budgets keeping what is on screen
//     (findScreen, screen.go; a screen read cuts the answer to it,
//     mapping.Screen); keepMapped and rememberShown keep elements for the
//     next read, and restUnshown (rest.go) lets go of the warm trees of
//     the tabs no window shows now. Once the lock is about to go,
//     startWalks starts the warm trees' walks.
//
// world.go has what the steps share in the provider's isolated world:
// its scripts (embedded from js/, filled in by fill) and evaluating them
// (session.world, evalIn, evalObject, elementIDs); session.go the
// provider's side of a target's session (its isolated worlds, its warm
// trees).
//
// # The path of a locate
//
// Provider.Locate (locate.go) parses the id, then begin (as for a read)
// and locate: a window's bounds (locateWindow), a dialog, or a document
// or element: locateInDoc plans one question per frame from the document
// up to its tab's top page (planLocate), asks them all at once
// (measurement.measure in measure.go, running box.js and page.js in each
// frame's isolated world, the page zoom alongside), and composes the
// answers into screen points (place, with mapping's geometry).
//
// # The path of at
//
// Provider.At (at.go) reads as a host's read does, then hitTest takes the
// windows from the one on top (stackWindows), finds the one whose bounds
// hold the point, maps the point into its page area (pageArea, with
// mapping's geometry) and asks each frame's isolated world for the
// element there (at.js), going on into the document of an <iframe> hit;
// mapping.HitAt takes the first of the candidates the answer holds.
//
// # Beside the read
//
// watch.go tells a subscribed host of changes (Provider.Watch, the
// session events that feed the warm trees, and the page watchers'
// signals; the session's health tells the provider through the
// wire.Owner it was given); a document that loads in a tab a read has
// asked for is read whole and walked at once (warm.Trees.Loaded, set in
// axOf), and read in the background once that fetch is in, so that its
// mapping is ready for the next read (warm.Trees.OnLoadFetched); a tab
// opened, shown or hidden after a read starts a read in the background
// too (Provider.readAhead in watch.go), and when the connection ends a
// watched provider reads until the browser is back (followConn: every
// second, and at once when the browser's port listens again).
// rest.go rests the provider RestAfter after a host's last read, with no
// host subscribed: no background work in the browser (the warm trees let
// go, Accessibility off, the watchers quiet, no read in the background)
// until a host's read wakes it (Provider.Current calls wake after
// begin).
// failure.go words every failure for the host (Failure and its reasons);
// service.go follows a browser service's session while the provider reads
// it (it lets go once the agent left, unless HoldSession) and words a
// service's answers: its refusals (401, 429), no session to read, the
// session ended;
// picture.go takes the screenshot of a tab that a picture of what locate
// says is drawn on (Provider.Screenshot: Page.captureScreenshot of what
// the tab shows, nothing else).
package cdp
