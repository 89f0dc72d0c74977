package mapping

import (
	"bufio"
	"io"
)

// Subtrees of an answer, for readers that want part of it: the tool
// ui_current's root and depth, and the command line's --depth. They
// never change an element: an answer's elements are shared with the
// answers after it (Frame.Mapped, DocumentCache).

// Find returns the element with the id in the tree under root and its
// ancestors, root first, or nil when the tree has no such element.
func Find(root *Element, id string) (e *Element, ancestors []*Element) {
	if root == nil {
		return nil, nil
	}
	if root.ID == id {
		return root, nil
	}
	for _, c := range root.Children {
		if e, above := Find(c, id); e != nil {
			return e, append([]*Element{root}, above...)
		}
	}
	return nil, nil
}

// Cut returns the tree under e down to depth levels below it (0: e
// alone). Each element whose children fall below the cut has them left
// out and counted in its Omitted, as a budget counts what it leaves out
// (section 5.6): the cut children, their descendants, and what those had
// omitted already. A negative depth returns e itself; otherwise each
// element with children down to the cut is a copy.
func Cut(e *Element, depth int) *Element {
	if e == nil || depth < 0 || len(e.Children) == 0 {
		return e
	}
	c := *e
	if depth == 0 {
		for _, child := range e.Children {
			c.Omitted += 1 + count(child)
		}
		c.Children = nil
		c.Off = nil // (+N omitted) says all that is left out now
		return &c
	}
	c.Children = make([]*Element, len(e.Children))
	for i, child := range e.Children {
		c.Children[i] = Cut(child, depth-1)
	}
	return &c
}

// count is the number of elements below e, with what they omitted and
// what e omitted.
func count(e *Element) int {
	n := e.Omitted
	for _, c := range e.Children {
		n += 1 + count(c)
	}
	return n
}

// OutlineIn writes the outline of the tree under root (Outline) after
// one line that says where root is: "in:" and its ancestors, root first,
// each as its role and title as the outline writes them, joined by " > ":
//
//	in: Application Chromium > Window Shop > Document Shop > Main
//
// Without ancestors it is Outline. It returns the first error of w.
func OutlineIn(w io.Writer, ancestors []*Element, root *Element) error {
	if len(ancestors) > 0 {
		bw := bufio.NewWriter(w)
		bw.WriteString("in: ")
		path(bw, ancestors)
		bw.WriteString("\n")
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return Outline(w, root)
}

// path writes ancestors, root first, each as its role and title as the
// outline writes them (appendTitle), joined by " > ".
func path(w *bufio.Writer, ancestors []*Element) {
	var b []byte
	for i, a := range ancestors {
		if i > 0 {
			b = append(b, " > "...)
		}
		b = append(b, a.Role...)
		if a.Title != "" {
			b = appendTitle(append(b, ' '), a.Title)
		}
	}
	w.Write(b)
}
