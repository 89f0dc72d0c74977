package warm

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
)

// apply brings the walked trees up to date with the events queued since
// the last read, in order. Called by Nodes holding a.read, so never
// concurrently with itself.
//
// A node no tree holds may be one a walk under way has fetched: the
// read of another document of the session applies the events before that
// walk's tree is kept. Such nodes wait, as orphans, for the next apply,
// are tried first, on the trees kept since only, and are dropped once no
// walk is under way.
func (a *Trees) apply(ctx context.Context) error {
	a.mu.Lock()
	evs := a.events
	a.events, a.queued = nil, 0
	orphans := a.orphans
	a.orphans = nil
	a.mu.Unlock()
	var left []orphan
	var moved []*tree // trees with parents to fetch children of again
	updateOrKeep := func(o orphan) {
		t := a.treeOf(o.node.NodeID, o.seq)
		if t != nil && o.after > 0 && t.born <= o.after {
			t = nil // a tree that lacked the node then: not the one it waited for
		}
		if t == nil {
			if o.after == 0 {
				o.after = versions.Load()
			}
			left = append(left, o)
			return
		}
		n := o.node
		t.version = versions.Add(1)
		t.touched = max(t.touched, o.seq)
		if err := a.update(ctx, t, n); err != nil {
			a.drop(t) // cannot be made exact: walk it again
			return
		}
		if len(t.parents) > 0 && !slices.Contains(moved, t) {
			moved = append(moved, t)
		}
	}
	// reparent fetches again the children of the parents the nodes just
	// applied left or joined, once per parent and event.
	reparent := func() {
		for _, t := range moved {
			a.mu.Lock()
			kept := a.kept(t.frame) == t
			a.mu.Unlock()
			if !kept {
				continue // dropped since
			}
			if err := a.reparent(ctx, t); err != nil {
				a.drop(t)
			}
		}
		moved = moved[:0]
	}
	for _, o := range orphans {
		updateOrKeep(o)
	}
	reparent()
	for _, ev := range evs {
		if Tracing() {
			Tracef("[%p] event %d %s %s", a, ev.seq, ev.method, ev.params)
		}
		// (Only nodesUpdated is queued: a loadComplete dropped every tree
		// of the session as it came, and the events queued before it.)
		if ev.method != accessibility.NodesUpdated.Method {
			continue
		}
		e, err := decode[slimNodes](ev.params)
		if err != nil {
			continue
		}
		for _, n := range e.nodes() {
			updateOrKeep(orphan{seq: ev.seq, node: n})
		}
		reparent()
	}
	a.mu.Lock()
	if a.walking() {
		a.orphans = append(left, a.orphans...)
	}
	a.mu.Unlock()
	return nil
}

// orphan is a node of an event that no tree held when it was applied. It
// waits for a tree kept after that (born later than after): a node an
// older tree lacked then and has now was fetched since, fresher than the
// event.
type orphan struct {
	seq   uint64
	node  *accessibility.Node
	after uint64 // versions when it was orphaned; 0 for an event's node not tried yet
}

// tracer is the function SetTrace set, nil for none.
var tracer atomic.Pointer[func(format string, args ...any)]

// SetTrace makes f (nil: nothing) told each event applied, what was
// fetched for it, and how each read was answered. It is for tests (the
// cdp package's print it on a failure), and safe to call while reads and
// walks run.
func SetTrace(f func(format string, args ...any)) {
	if f == nil {
		tracer.Store(nil)
		return
	}
	tracer.Store(&f)
}

// Tracing reports whether a trace is set: a caller whose trace line is
// costly to make asks first.
func Tracing() bool { return tracer.Load() != nil }

// Tracef tells the trace a line, if one is set.
func Tracef(format string, args ...any) {
	if f := tracer.Load(); f != nil {
		(*f)(format, args...)
	}
}

// treeOf returns the walked tree that holds the node and is young enough
// for the event.
func (a *Trees) treeOf(id accessibility.NodeID, seq uint64) *tree {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, f := range a.frames {
		if t := f.tree; t != nil {
			if _, ok := t.nodes[id]; ok && seq >= t.since {
				return t
			}
		}
	}
	return nil
}

// drop forgets a tree; the next read of its document starts over.
func (a *Trees) drop(t *tree) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f := a.frames[t.frame]; f != nil && f.tree == t {
		f.tree = nil
	}
}

// update applies one node's new data. The data Chrome sends is complete
// for that node; what it does not say is what happened below it, so:
//   - a node whose role, ignored or hidden state flipped, or a select-like
//     node (whose options' selection Chrome does not report), has its
//     whole subtree fetched again (aria-hidden hides descendants without
//     an event for them);
//   - any other node that has or had children has them fetched again
//     (the answer, not the event, says which they are), and the subtrees
//     of those that are new, moved here from elsewhere, re-ordered, or whose
//     role, ignored or hidden state changed (moved nodes come back
//     re-created; a child hidden with aria-hidden is reported only as an
//     update of its parent, with the same children); a child whose
//     children alone changed gets the same treatment one level down;
//   - a node that gains focus has its ancestors fetched again;
//   - a node whose parent changed has the children of its old and its new
//     parent fetched again, once the whole event is applied (reparent).
func (a *Trees) update(ctx context.Context, t *tree, n *accessibility.Node) error {
	old := t.nodes[n.NodeID]
	t.put(n)
	if old == nil {
		return nil
	}
	if Tracing() {
		Tracef("update %s %s: flipped %v, parent %s -> %s, children %v -> %v", n.NodeID, Role(n), flipped(old, n), old.ParentID, n.ParentID, old.ChildIDs, n.ChildIDs)
	}
	switch {
	case flipped(old, n) || selectLike[Role(n)]:
		if err := a.fetchBelow(ctx, t, []accessibility.NodeID{n.NodeID}, incremental); err != nil {
			return err
		}
	case hasChildrenToFetch(n) || hasChildrenToFetch(old):
		if err := a.refreshChildren(ctx, t, old, n); err != nil {
			return err
		}
	}
	if old.ParentID != n.ParentID {
		if t.parents == nil {
			t.parents = make(map[accessibility.NodeID]bool)
		}
		for _, p := range []accessibility.NodeID{old.ParentID, n.ParentID} {
			if p != "" {
				t.parents[p] = true
			}
		}
	}
	if axBool(n, accessibility.PropertyNameFocused) && !axBool(old, accessibility.PropertyNameFocused) && n.BackendDOMNodeID != 0 {
		if _, err := a.refreshAncestors(ctx, t, n.BackendDOMNodeID); err != nil {
			return err
		}
		t.focusAsked = true
	}
	return nil
}

// refreshAncestors fetches a node and its ancestors again
// (getAXNodeAndAncestors) and treats each the tree holds as an event's
// node: one whose role, ignored or hidden state flipped has its subtree
// fetched again, one whose children changed its children. Focus changes
// them with no event of their own: focus moving into an aria-hidden
// section makes Chrome include the section, its children with it, and
// focus leaving a node for the document (refocus) can leave the node, or
// that section, ignored again. It reports whether any of them changed.
func (a *Trees) refreshAncestors(ctx context.Context, t *tree, backend cdproto.BackendNodeID) (bool, error) {
	r, err := call(ctx, a.c, axAncestors, accessibility.GetAXNodeAndAncestorsParams{BackendNodeID: backend})
	if err != nil {
		return false, err
	}
	changed := false
	for _, m := range r.nodes() {
		prev, ok := t.nodes[m.NodeID]
		if !ok {
			continue
		}
		t.put(m)
		if !changed && !reflect.DeepEqual(prev, m) {
			changed = true
		}
		switch {
		case flipped(prev, m):
			if Tracing() {
				Tracef("  %s %s, the focused node or its ancestor, flipped: its subtree again", m.NodeID, Role(m))
			}
			if err := a.fetchBelow(ctx, t, []accessibility.NodeID{m.NodeID}, incremental); err != nil {
				return changed, err
			}
		case !slices.Equal(prev.ChildIDs, m.ChildIDs):
			if Tracing() {
				Tracef("  %s %s, the focused node or its ancestor, has children %v, not %v", m.NodeID, Role(m), m.ChildIDs, prev.ChildIDs)
			}
			if err := a.refreshChildren(ctx, t, prev, m); err != nil {
				return changed, err
			}
		}
	}
	return changed, nil
}

// refocus fetches again the node the tree last knew focused, and its
// ancestors (refreshAncestors), when the page changed since the tree's
// last read: Chrome sends no event for a node that focus leaves for the
// document (blur(), or its element made inert), though the node, included
// while it had focus, may be ignored now (a div with a listitem role and a
// tabindex), and an aria-hidden section around it hidden again. A change
// makes the tree a new version.
func (a *Trees) refocus(ctx context.Context, t *tree) error {
	n := t.nodes[t.focused]
	if n == nil || n.BackendDOMNodeID == 0 {
		t.focused = ""
		return nil
	}
	changed, err := a.refreshAncestors(ctx, t, n.BackendDOMNodeID)
	if changed {
		t.version = versions.Add(1)
	}
	return err
}

// reparent fetches again the children of the parents that nodes of the
// event just applied left or joined. A node can change parent with no
// event for either parent: focus moving into an aria-hidden section makes
// Chrome include the section, and its children, until then children of
// the section's parent, are sent with the section as their new parent,
// which no event names. Fetching the old parent's children again finds
// the section, new, and fetches its subtree. A move whose parents the tree
// holds neither of cannot be followed: the tree is dropped.
func (a *Trees) reparent(ctx context.Context, t *tree) error {
	var held []*accessibility.Node // those the tree holds now, not those fetched below them
	for id := range t.parents {
		if p := t.nodes[id]; p != nil {
			held = append(held, p)
		}
	}
	t.parents = nil
	if len(held) == 0 {
		return errors.New("a node moved between parents the tree does not hold")
	}
	slices.SortFunc(held, func(p, q *accessibility.Node) int { return strings.Compare(string(p.NodeID), string(q.NodeID)) })
	for _, p := range held {
		if Tracing() {
			Tracef("  children of %s again: a child changed parent", p.NodeID)
		}
		if err := a.refreshChildren(ctx, t, p, p); err != nil {
			return err
		}
	}
	return nil
}

// flipped reports whether a node's role, ignored or hidden state changed:
// what can change its whole subtree without events for it.
func flipped(old, n *accessibility.Node) bool {
	return Role(old) != Role(n) || old.Ignored != n.Ignored ||
		axBool(old, accessibility.PropertyNameHidden) != axBool(n, accessibility.PropertyNameHidden)
}

// selectLike are the roles whose descendants' selection can change with
// an event for the node itself only.
var selectLike = map[string]bool{"combobox": true, "listbox": true, "MenuListPopup": true}

// refreshChildren fetches a node's children again, and the subtrees below
// those that changed.
func (a *Trees) refreshChildren(ctx context.Context, t *tree, old, n *accessibility.Node) error {
	before := make(map[accessibility.NodeID]int, len(old.ChildIDs))
	for i, id := range old.ChildIDs {
		before[id] = i
	}
	a.counts.Asked.Add(1)
	t.asked++
	res, err := call(ctx, a.c, childAXNodes, accessibility.GetChildAXNodesParams{ID: n.NodeID, FrameID: t.frame})
	if err != nil {
		return err
	}
	kids := res.nodes()
	// The event's data can be older than this answer (events wait for
	// the next read) or caught Chrome between two states: the children
	// are what the answer says.
	var direct []accessibility.NodeID
	for _, c := range kids {
		if c.ParentID == n.NodeID {
			direct = append(direct, c.NodeID)
		}
	}
	if !slices.Equal(direct, n.ChildIDs) {
		if Tracing() {
			Tracef("  children of %s are %v, not %v", n.NodeID, direct, n.ChildIDs)
		}
		n.ChildIDs = direct
	}
	if Tracing() {
		for _, c := range kids {
			Tracef("  child of %s: %s %s %v", n.NodeID, c.NodeID, Role(c), c.ChildIDs)
		}
	}
	var deeper []accessibility.NodeID
	var refresh [][2]*accessibility.Node // {before, now}
	last, reordered := -1, false
	for _, c := range kids {
		if i, ok := before[c.NodeID]; ok {
			if i < last {
				reordered = true
			}
			last = i
		}
	}
	for _, c := range kids {
		prev := t.nodes[c.NodeID]
		t.put(c)
		if prev == nil {
			t.fresh = true
		}
		// (getChildAXNodes answers with the children of ignored children
		// too: each node is compared with where it was.)
		switch {
		case prev == nil || prev.ParentID != c.ParentID || reordered || flipped(prev, c):
			if hasChildrenToFetch(c) {
				deeper = append(deeper, c.NodeID)
			}
		case !slices.Equal(prev.ChildIDs, c.ChildIDs) && (hasChildrenToFetch(c) || hasChildrenToFetch(prev)):
			// Only its children changed (one inserted or removed in a big
			// list): the same again one level down, not its whole
			// subtree, which would be all of a page's main content.
			refresh = append(refresh, [2]*accessibility.Node{prev, c})
		}
	}
	if err := a.fetchBelow(ctx, t, deeper, incremental); err != nil {
		return err
	}
	for _, r := range refresh {
		if err := a.refreshChildren(ctx, t, r[0], r[1]); err != nil {
			return err
		}
	}
	return nil
}
