package mapping

import (
	"slices"

	cdproto "github.com/chromedp/cdproto/cdp"
)

// The screen: the part of an answer a person sees (docs/protocol.md,
// "The screen").

// Off counts what a screen answer left out directly below an element
// (the elements, their descendants and what those had omitted, as
// Omitted counts), by where it is in reading order: before the first
// child the screen shows (Above), after the last (Below), or elsewhere
// (between two children it shows, or below an element none of whose
// children it shows: Aside). The outline writes a line for each; the
// JSON has only their sum, in Omitted.
type Off struct {
	Above, Below, Aside int
	// Unknown says some of what was left out was never read (a stand-in
	// of Frame.Partial, counted as one element, may hold many or none):
	// the outline says there is more, without a number.
	Unknown bool
}

// total is how many elements o says where they are; 0 for nil (the
// outline's (+N omitted) says the rest).
func (o *Off) total() int {
	if o == nil {
		return 0
	}
	return o.Above + o.Below + o.Aside
}

// Screen returns the part of the tree under root (Build's tree of br)
// that is on screen: the Application, the windows, their tab lists and
// tabs, and their dialogs as they are; in each window's Document, the
// elements whose DOM element is in its Frame's OnScreen, each with its
// ancestors. An element with no DOM element of its own (a Text, an
// accessibility-only node, an iframe's Document) is on screen when its
// parent is. A document whose Frame says ScreenUnknown is kept whole. An element the answer keeps whose children it leaves out
// (some or all) is a copy, with Omitted and Off counting them; a subtree
// kept whole is root's own. root is not changed.
//
// memo, when not nil, holds what the last call made of each window's
// Document: a Document element of root that is the same element as then,
// with the same OnScreen slices in its frames (the caller's screen found
// again, not found anew), is answered as then without a look at its
// elements. The same element with other OnScreen slices (the page
// scrolled) is answered from its index (screenIndex), made the first time
// so: a look at the elements on screen, their ancestors and those
// ancestors' children, not at every element. It is updated to this
// call's.
func Screen(root *Element, br *Browser, memo *ScreenMemo) *Element {
	if root == nil {
		return nil
	}
	s := screener{docs: map[uint64]bool{}, tops: map[int64][]onScreenKey{}}
	if br != nil {
		for _, w := range br.Windows {
			for _, t := range w.Tabs {
				if t.Doc != nil {
					var sig []onScreenKey
					s.addFrame(t.Doc, &sig)
					s.tops[int64(t.Doc.Doc)] = sig
				}
			}
		}
	}
	if memo != nil {
		s.last, s.memo = memo.docs, map[*Element]screenMemo{}
	}
	out, _ := s.keep(root, true)
	if memo != nil {
		memo.docs = s.memo
		memo.Indexed += s.indexed
		memo.Indexes += s.indexes
	}
	if out == nil { // (the root is the Application, always kept)
		out = root
	}
	return out
}

// ScreenMemo is what Screen keeps from one call for the next. The zero
// value is empty.
type ScreenMemo struct {
	docs map[*Element]screenMemo
	// Indexed counts the Documents answered from their index, Indexes
	// the indexes made (for the tests: the fast path answered).
	Indexed, Indexes int
}

// screenMemo is what a call of Screen made of a window's Document, and
// the OnScreen slices it was made of; and the Document's index, once
// made (noIndex when it cannot have one).
type screenMemo struct {
	sig []onScreenKey
	out *Element
	idx *screenIndex
}

// onScreenKey names one frame's OnScreen slice: its document, where the
// slice's elements are and how many.
type onScreenKey struct {
	doc   uint64
	first *cdproto.BackendNodeID
	n     int
	whole bool
}

// screener is what Screen looks elements up in: the documents added and
// their elements on screen; the OnScreen slices of each window's
// Document's frames, by its document number (tops); the memo of the last
// call (last) and the one of this call (memo), nil without one.
type screener struct {
	docs       map[uint64]bool // the documents added
	tops       map[int64][]onScreenKey
	last, memo map[*Element]screenMemo
	// frames are the frames added, whose OnScreen the index looks up
	// (screenIndex.screen); on holds the ids of their elements on
	// screen, without their check letters (an id's payload, IDs.Make),
	// made when own first asks (onScreen), and whole the documents kept
	// whole: own asks them of every element, which parsing each id made
	// most of a screen's time (5.5 ms of 73,502 nodes).
	frames []*Frame
	on     map[string]bool
	whole  map[uint64]bool
	// indexed and indexes count the Documents answered from an index
	// and the indexes made (ScreenMemo).
	indexed, indexes int
}

// addFrame adds f and the frames in it, and their OnScreen slices to sig.
func (s *screener) addFrame(f *Frame, sig *[]onScreenKey) {
	if f == nil {
		return
	}
	k := onScreenKey{doc: f.Doc, n: len(f.OnScreen), whole: f.ScreenUnknown}
	if len(f.OnScreen) > 0 {
		k.first = &f.OnScreen[0]
	}
	*sig = append(*sig, k)
	if s.docs[f.Doc] {
		return
	}
	s.docs[f.Doc] = true
	if f.ScreenUnknown {
		if s.whole == nil {
			s.whole = map[uint64]bool{}
		}
		s.whole[f.Doc] = true
	}
	s.frames = append(s.frames, f)
	for _, c := range f.Frames {
		s.addFrame(c, sig)
	}
}

// own reports whether e itself is on screen, its parent being (parentOn)
// or not.
func (s *screener) own(e *Element, parentOn bool) bool {
	if e.Unfetched {
		return false
	}
	switch ownKind(e) {
	case ownAlways:
		return true
	case ownAsParent:
		return parentOn
	}
	payload := e.ID[:len(e.ID)-macChars]
	if s.onScreen()[payload] {
		return true
	}
	if len(s.whole) > 0 {
		doc, _, ok := cutDoc(payload)
		return ok && s.whole[doc]
	}
	return false
}

// onScreen returns s.on, made the first time.
func (s *screener) onScreen() map[string]bool {
	if s.on == nil {
		s.on = map[string]bool{}
		var b []byte
		for _, f := range s.frames {
			for _, id := range f.OnScreen {
				b = appendPayload(b[:0], Ref{Kind: KindNode, A: int64(f.Doc), B: int64(id - f.NodeBase)})
				s.on[string(b)] = true
			}
		}
	}
	return s.on
}

// keep returns e as the screen answer has it, on saying whether e itself
// is on screen: e itself when it and all below it are, a copy when some
// of its children are left out, nil when neither it nor anything below
// it is on screen. When nil, left says what was left out: e's
// descendants and what they had omitted (count), and whether it holds a
// stand-in for what was not read (Unfetched).
func (s *screener) keep(e *Element, on bool) (*Element, leftOut) {
	if e.Role == roleDocument && s.memo != nil {
		if r, ok := Peek(e.ID); ok && r.Kind == KindDocument {
			if sig, top := s.tops[r.A]; top {
				m, ok := s.last[e]
				if ok && slices.Equal(m.sig, sig) {
					s.memo[e] = m
					if m.out == nil {
						return nil, leftOut{count(e), hasUnfetched(e)}
					}
					return m.out, leftOut{}
				}
				if ok && len(s.whole) == 0 {
					// The same Document, scrolled: from its index,
					// made the first time.
					if m.idx == nil {
						m.idx = indexOf(e)
						s.indexes++
					}
					if m.idx != noIndex {
						s.indexed++
						out, left := m.idx.screen(s, on)
						s.memo[e] = screenMemo{sig: sig, out: out, idx: m.idx}
						return out, left
					}
				}
				out, left := s.keepNew(e, on)
				s.memo[e] = screenMemo{sig: sig, out: out, idx: m.idx}
				return out, left
			}
		}
	}
	return s.keepNew(e, on)
}

// leftOut is what keep says of an element it left out: the elements
// below it (count) and whether one is a stand-in for what was not read.
type leftOut struct {
	n         int
	unfetched bool
}

// keepNew is keep without the memo. It looks at each element once: the
// counts of what it leaves out come from the same walk.
func (s *screener) keepNew(e *Element, on bool) (*Element, leftOut) {
	if len(e.Children) == 0 { // most elements: nothing to look at below
		if on {
			return e, leftOut{}
		}
		return nil, leftOut{e.Omitted, e.Unfetched}
	}
	var c childScreen
	for i, ch := range e.Children {
		out, left := s.keep(ch, s.own(ch, on))
		c.add(ch, out, left, len(e.Children)-i)
	}
	return c.of(e, on)
}

// childScreen gathers what keep makes of an element's children, in
// order. The children left out are counted as they come: those since the
// last child kept (pending) are above the first kept, beside (between
// two kept) or, at the end, below the last.
type childScreen struct {
	off     Off
	pending leftOut
	kept    []*Element // made once a child is kept: most subtrees are off screen
	changed bool       // a child is left out, or kept as a copy
}

// add gathers child ch, which keep made out (nil: left out, left saying
// what), rest the children from it on.
func (c *childScreen) add(ch, out *Element, left leftOut, rest int) {
	if out != ch {
		c.changed = true
	}
	if out == nil {
		c.pending.n += 1 + left.n
		c.pending.unfetched = c.pending.unfetched || left.unfetched
		return
	}
	if c.kept == nil {
		c.kept = make([]*Element, 0, rest)
		c.off.Above = c.pending.n
	} else {
		c.off.Aside += c.pending.n
	}
	c.off.Unknown = c.off.Unknown || c.pending.unfetched
	c.pending = leftOut{}
	c.kept = append(c.kept, out)
}

// of returns e as the screen has it once its children are gathered, on
// saying whether e itself is on screen (keepNew).
func (c *childScreen) of(e *Element, on bool) (*Element, leftOut) {
	if c.kept == nil {
		if !on {
			return nil, leftOut{e.Omitted + c.pending.n, e.Unfetched || c.pending.unfetched}
		}
		c.off.Aside = c.pending.n // below an element none of whose children is on screen
	} else {
		c.off.Below = c.pending.n
	}
	c.off.Unknown = c.off.Unknown || c.pending.unfetched
	if !c.changed {
		return e, leftOut{}
	}
	return keptCopy(e, c.kept, c.off), leftOut{}
}

// keptCopy is the copy of e that the screen keeps: the children kept,
// and what was left out counted in Omitted and Off.
func keptCopy(e *Element, kept []*Element, off Off) *Element {
	cp := *e
	cp.Children = kept
	if n := off.total(); n > 0 {
		cp.Omitted += n
		cp.Off = &off
	}
	return &cp
}

// hasUnfetched reports whether e is or holds a stand-in for a node not
// read (Frame.Partial).
func hasUnfetched(e *Element) bool {
	if e.Unfetched {
		return true
	}
	for _, c := range e.Children {
		if hasUnfetched(c) {
			return true
		}
	}
	return false
}

// screenIndex is a Document element's tree in preorder, for the screens of
// a Document that stays the same element while the page scrolls: keepNew
// looks at every element of it for each screen, about 15 ns an element
// (1.5 to 3 ms at 50,000 elements, more than the rest of a read), where
// the index looks at the elements on screen, their ancestors, and the
// children of those. Made once for the Document (about the cost of one
// keepNew), the first time it is asked again with another screen.
type screenIndex struct {
	els    []*Element
	parent []int32 // the index of its parent; -1 for the Document
	end    []int32 // one past the last of its subtree
	count  []int   // count: what a subtree left out counts
	own    []int8  // how own decides (ownAlways…)
	// at finds a DOM-backed element by its document and node number (an
	// id's payload, parsed once here): a screen looks up each element on
	// screen, and a map of numbers answers without reading the strings
	// of a map of every element's id, cold in the cache by then (0.1 ms
	// of a read of 50,000 nodes after a scroll).
	at map[nodeKey]int32
	// on and below hold the stamp of the last screen that had the
	// element (DOM-backed) on screen itself, or one of those below it.
	on, below []uint32
	stamp     uint32
}

// nodeKey is a node's document and number, as its id says them.
type nodeKey struct{ doc, node int64 }

// How own decides, for an element of an index.
const (
	ownByID     = iota // a DOM-backed element: on screen when its id is (screener.on)
	ownAsParent        // no box of its own: on screen when its parent is
	ownAlways          // the browser's parts
)

// noIndex is the index of a Document that cannot have one: it holds a
// stand-in for what was not read (Unfetched), whose count the screen
// reports otherwise.
var noIndex = &screenIndex{}

// indexOf makes the index of the Document d, noIndex when it cannot have
// one.
func indexOf(d *Element) *screenIndex {
	x := &screenIndex{at: map[nodeKey]int32{}}
	var add func(e *Element, parent int32) bool
	add = func(e *Element, parent int32) bool {
		if e.Unfetched {
			return false
		}
		i := int32(len(x.els))
		x.els = append(x.els, e)
		x.parent = append(x.parent, parent)
		x.end = append(x.end, 0)
		x.count = append(x.count, e.Omitted)
		x.own = append(x.own, ownKind(e))
		if x.own[i] == ownByID {
			if doc, node, ok := parsePair(e.ID[:len(e.ID)-macChars]); ok {
				x.at[nodeKey{doc, node}] = i
			}
		}
		for _, c := range e.Children {
			j := int32(len(x.els))
			if !add(c, i) {
				return false
			}
			x.count[i] += 1 + x.count[j]
		}
		x.end[i] = int32(len(x.els))
		return true
	}
	if !add(d, -1) {
		return noIndex
	}
	x.on, x.below = make([]uint32, len(x.els)), make([]uint32, len(x.els))
	return x
}

// ownKind is how own decides for e (not Unfetched).
func ownKind(e *Element) int8 {
	id := e.ID
	switch {
	case len(id) <= macChars, id[0] == axPrefix, e.Role == roleText:
		return ownAsParent
	case id[0] == kindPrefix:
		r, _ := Peek(id)
		switch r.Kind {
		case KindApp, KindWindow, KindTabList, KindTab, KindDialog:
			return ownAlways
		}
		return ownAsParent // a Document
	}
	return ownByID
}

// screen is keep of the index's Document, on saying whether it is on
// screen itself, for the screen of s: the same answer, made from the
// elements on screen.
func (x *screenIndex) screen(s *screener, on bool) (*Element, leftOut) {
	x.stamp++
	if x.stamp == 0 { // wrapped: the stamps of 2^32 screens ago would match
		clear(x.on)
		clear(x.below)
		x.stamp = 1
	}
	for _, f := range s.frames {
		for _, id := range f.OnScreen {
			i, ok := x.at[nodeKey{int64(f.Doc), int64(id - f.NodeBase)}]
			if !ok {
				continue
			}
			x.on[i] = x.stamp
			for p := x.parent[i]; p >= 0 && x.below[p] != x.stamp; p = x.parent[p] {
				x.below[p] = x.stamp
			}
		}
	}
	return x.keep(0, on)
}

// keep is keepNew over the index: i the element, on whether it is on
// screen itself.
func (x *screenIndex) keep(i int32, on bool) (*Element, leftOut) {
	e := x.els[i]
	if x.end[i] == i+1 {
		if on {
			return e, leftOut{}
		}
		return nil, leftOut{n: e.Omitted}
	}
	var c childScreen
	for j, k := i+1, 0; j < x.end[i]; j, k = x.end[j], k+1 {
		var cOn bool
		switch x.own[j] {
		case ownAlways:
			cOn = true
		case ownAsParent:
			cOn = on
		default:
			cOn = x.on[j] == x.stamp
		}
		if !cOn && x.below[j] != x.stamp { // nothing of it on screen
			c.add(x.els[j], nil, leftOut{n: x.count[j]}, 0)
			continue
		}
		out, left := x.keep(j, cOn)
		c.add(x.els[j], out, left, len(e.Children)-k)
	}
	return c.of(e, on)
}
