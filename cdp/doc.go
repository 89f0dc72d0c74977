// Package cdp owns everything that talks to Chrome over the DevTools
// protocol: launching a browser, connecting to one, the flat sessions of
// page and iframe targets, windows and tabs, per-frame accessibility
// trees, box models, focus and the pointer, and screenshots of a tab.
//
// Its Provider gathers what the browser shows into the data types of the
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
// The files of a read are numbered in the order it runs. Provider.Current
// (read0_provider.go) calls current, which does, under the provider's
// lock:
//
//  1. connect (read1_connect.go): begin takes the lock and calls connect,
//     which reuses the live connection or finds the browser
//     (endpoint.go resolve, discover.go), dials it in the background
//     (dial.go; conn.go multiplexes the sessions over transport.go's
//     websocket), then identify learns the product and attaches to each
//     tab (attach), and discover (watch.go) turns on the target events.
//  2. targets and tabs (read2_tabs.go): gather runs the rest of the steps.
//     listPages lists the targets (forgetDead drops the gone ones),
//     readTabStates asks every tab at once for its window and state
//     (readTabState) and /json/list for recency, groupWindows picks each
//     window's active tab (pickActive), focusWindow the focused window.
//  3. each tab's state (read3_pagestate.go, read3_health.go):
//     readPageState runs the watchers' script in the isolated world; a page
//     that crashed, waits on a dialog or does not answer within 1.5 s
//     (markStuck, probe) is reported without being asked (readDown).
//  4. plan and fetch every frame (read4_fetch.go): readContents plans each
//     active tab (planTab, attaching its out-of-process iframes), then
//     fetches all of them side by side (fetch, fetchSession, fetchFrame:
//     page state, the accessibility tree from the warm trees (axOf,
//     warm.Trees.Nodes, which after a change makes sure Chrome's events
//     for it came, told by the watchers' signals in watch.go, and while
//     the document's walk runs reads it whole or waits for the walk,
//     whichever should be sooner), value
//     texts, frame owners, focus and hover chains read ahead).
//  5. assemble (read5_assemble.go): readDocument and assemble stitch each
//     tab's frames into one doc tree and number the documents, reading
//     late a frame the fetch did not know (fetchLate); forgetHidden drops
//     the walks of frames not shown.
//  6. focus and pointer (read6_focus.go, read6_pointer.go): markFocus
//     marks the focused window's focus chain, findPointer the document
//     under the pointer and its hover chain.
//  7. build, budget, memo (read7_memo.go, read7_budget.go): back in
//     current, reuseMapped hands unchanged documents their kept element,
//     mapping.Build builds the answer, applyBudget cuts it to the budgets
//     keeping what is on screen (findOnScreen), keepMapped and
//     rememberShown keep elements for the next read, and once the lock is
//     about to go startWalks starts the warm trees' walks.
//
// world.go has what the steps share in the provider's isolated world:
// its scripts (embedded from js/, filled in by fill) and evaluating them
// (evalIn, evalObject, elementIDs).
//
// # The path of a locate
//
// Provider.Locate (locate1_locate.go) parses the id, then begin (as in
// step 1) and locate: a window's bounds (locateWindow), a dialog, or a
// document or element: locateInDoc plans one question per frame from the
// document up to its tab's top page (planLocate), asks them all at once
// (measurement.measure in locate2_measure.go, running box.js and page.js
// in each frame's isolated world, the page zoom alongside), and composes
// the answers into screen points (place, with mapping's geometry).
//
// # Beside the read
//
// watch.go tells a subscribed host of changes (Provider.Watch, the
// session events that feed the warm trees and the health, and the page
// watchers' signals); a document that loads in a tab a read has asked
// for is read whole and walked at once (warm.Trees.Loaded, set in axOf),
// and read in the background once that fetch is in, so that its mapping
// is ready for the next read (warm.Trees.OnLoadFetched); a tab opened,
// shown or hidden after a read starts a read in the background too
// (Provider.readAhead in watch.go);
// launch*.go and installed.go start and find browsers; picture.go takes the screenshot
// of a tab that a picture of what locate says is drawn on
// (Provider.Screenshot: Page.captureScreenshot of what the tab shows,
// nothing else); rawtree.go is the benchmarks' baseline call.
package cdp
