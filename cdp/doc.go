// Package cdp owns everything that talks to Chrome over the DevTools
// protocol: launching a browser, connecting to one, the flat sessions of
// page and iframe targets, windows and tabs, per-frame accessibility
// trees, box models, focus and the pointer.
//
// Its Provider gathers what the browser shows into the data types of the
// mapping package and lets mapping build the answers; it never decides a
// role, a state or an id format itself. It must not import the mcp
// package, and it never navigates, clicks, types into, opens, closes or
// focuses the user's tabs, nor runs script in a page's own world.
//
// docs/warm-tree.md explains how the accessibility trees are kept between
// reads; section numbers in comments (5.6) are those of docs/protocol.md.
package cdp
