// Package warm keeps the accessibility trees of a target session's
// documents exact between reads ("warm"), so that a read of an unchanged
// big page costs a barrier and the events since the last read instead of
// a whole Accessibility.getFullAXTree.
//
// It owns, for one target session: the subscribing walk of each document
// (getRootAXNode, then pipelined getChildAXNodes), the kept trees,
// applying Chrome's Accessibility events to them with the refetch rules
// exactness needs, the last full fetch of a document not yet walked, and
// the slim decoding of accessibility nodes (no name sources, related nodes
// or ignored reasons). docs/warm-tree.md says what Chrome's events tell and
// every rule this package applies; cdp/exact_test.go holds it to a cold
// read.
//
// Its API: events in (Trees.OnEvent), nodes out (Trees.Nodes), a walk
// (Trees.StartWalks once the read is over, Trees.CancelWalk for a document
// not shown).
//
//	t := warm.New(session, readUnderWay, counts) // one per target session
//	// on the connection's read loop, for Accessibility events:
//	t.OnEvent(method, params)
//	// in a read, per frame:
//	nodes, version, err := t.Nodes(ctx, frameID, loaderID, activity)
//	// when the read is over:
//	t.StartWalks()
//
// Its files: trees.go holds the types, the events in (OnEvent, OnSignal)
// and Enable; frame.go what is kept of each frame, made and forgotten in
// one place each (frameOf, Forget); read.go answers a read (Nodes: the kept tree, made fresh
// after a change, or the document fetched whole); walk.go walks a
// document node by node, at a pace that keeps out of the reads' way, and
// keeps what it walked; apply.go applies Chrome's events to the kept
// trees, with the refetch rules; partial.go answers the nodes that place
// a few elements (PartialNodes: a read of the screen of a large page
// whose walk at its load, LoadWalking, is not done), kept nowhere;
// slim.go decodes nodes; counts.go counts how reads were answered.
//
// What it must not touch: it must not import its parent package cdp (the
// provider) nor cdp/wire (the connection: a cdp/wire session is the
// Caller package cdp gives it); it reaches Chrome only through the Caller
// it is given and learns of a read under way only through the busy func. It
// calls Accessibility methods only (Accessibility.enable is the one domain
// it enables), never runs script, and knows nothing of tabs, windows,
// focus, the pointer or the mapping: which element has focus or is
// hovered is read live by the caller, never from these trees.
package warm
