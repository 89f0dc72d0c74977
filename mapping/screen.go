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
// elements. It is updated to this call's.
func Screen(root *Element, br *Browser, memo *ScreenMemo) *Element {
	if root == nil {
		return nil
	}
	s := screener{docs: map[int64]screenDoc{}, tops: map[int64][]onScreenKey{}}
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
	out := s.keep(root, true)
	if memo != nil {
		memo.docs = s.memo
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
}

// screenMemo is what a call of Screen made of a window's Document, and
// the OnScreen slices it was made of.
type screenMemo struct {
	sig []onScreenKey
	out *Element
}

// onScreenKey names one frame's OnScreen slice: its document, where the
// slice's elements are and how many.
type onScreenKey struct {
	doc   uint64
	first *cdproto.BackendNodeID
	n     int
	whole bool
}

// screener is what Screen looks elements up in: each document's
// elements on screen, by document number; the OnScreen slices of each
// window's Document's frames, by its document number (tops); the memo of
// the last call (last) and the one of this call (memo), nil without one.
type screener struct {
	docs       map[int64]screenDoc
	tops       map[int64][]onScreenKey
	last, memo map[*Element]screenMemo
}

// screenDoc is one document's elements on screen and its NodeBase;
// whole when they are not known (Frame.ScreenUnknown).
type screenDoc struct {
	base  cdproto.BackendNodeID
	whole bool
	on    map[cdproto.BackendNodeID]bool
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
	if _, ok := s.docs[int64(f.Doc)]; ok {
		return
	}
	d := screenDoc{base: f.NodeBase, whole: f.ScreenUnknown, on: make(map[cdproto.BackendNodeID]bool, len(f.OnScreen))}
	for _, id := range f.OnScreen {
		d.on[id] = true
	}
	s.docs[int64(f.Doc)] = d
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
	r, ok := Peek(e.ID)
	if !ok {
		return parentOn
	}
	switch r.Kind {
	case KindApp, KindWindow, KindTabList, KindTab, KindDialog:
		return true
	case KindNode:
		if e.Role == roleText {
			return parentOn // a text node: no box of its own to ask
		}
		d := s.docs[r.A]
		return d.whole || d.on[d.base+cdproto.BackendNodeID(r.B)]
	}
	return parentOn // a Document, an accessibility-only node
}

// keep returns e as the screen answer has it, on saying whether e itself
// is on screen: e itself when it and all below it are, a copy when some
// of its children are left out, nil when neither it nor anything below
// it is on screen.
func (s *screener) keep(e *Element, on bool) *Element {
	if e.Role == roleDocument && s.memo != nil {
		if r, ok := Peek(e.ID); ok && r.Kind == KindDocument {
			if sig, top := s.tops[r.A]; top {
				if m, ok := s.last[e]; ok && slices.Equal(m.sig, sig) {
					s.memo[e] = m
					return m.out
				}
				out := s.keepNew(e, on)
				s.memo[e] = screenMemo{sig: sig, out: out}
				return out
			}
		}
	}
	return s.keepNew(e, on)
}

// keepNew is keep without the memo.
func (s *screener) keepNew(e *Element, on bool) *Element {
	if len(e.Children) == 0 { // most elements: nothing to look at below
		if on {
			return e
		}
		return nil
	}
	var off Off
	first, last := -1, -1
	changed := false
	outs := make([]*Element, len(e.Children))
	for i, c := range e.Children {
		outs[i] = s.keep(c, s.own(c, on))
		if outs[i] != nil {
			if first < 0 {
				first = i
			}
			last = i
		}
		if outs[i] != c {
			changed = true
		}
	}
	if !on && first < 0 {
		return nil
	}
	if !changed {
		return e
	}
	kept := make([]*Element, 0, len(e.Children))
	for i, c := range e.Children {
		if outs[i] != nil {
			kept = append(kept, outs[i])
			continue
		}
		n := 1 + count(c)
		if !off.Unknown && hasUnfetched(c) {
			off.Unknown = true
		}
		switch {
		case first >= 0 && i < first:
			off.Above += n
		case first >= 0 && i > last:
			off.Below += n
		default:
			off.Aside += n
		}
	}
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
