package mapping

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// What lies at a point of the screen, for readers that know where the
// person points or clicks and want the element there: the tool ui_at and
// the command at. The provider finds, by the page's own hit test, the
// candidates at the point, innermost first, as ids; HitAt takes the
// first the answer holds.

// Where a point of the screen is (Hit.Where).
const (
	// InPage: on a window's page area; the element is the innermost one
	// there that the answer has (a Document where the page has none).
	InPage = "page"
	// InWindowFrame: on a window, outside its page area: the tab strip,
	// toolbar, infobars or border that the browser draws; the element is
	// the Window.
	InWindowFrame = "window-frame"
	// OffWindows: on no window of the browser; there is no element.
	OffWindows = "none"
)

// Hit is what lies at a point of the screen.
type Hit struct {
	// X and Y are the point, in screen points (section 6).
	X, Y float64
	// Where says what the point is on: InPage, InWindowFrame or
	// OffWindows.
	Where string
	// Match is the element there and its ancestors; its Element is nil
	// when Where is OffWindows.
	Match Match
}

// HitAt returns what is at the point (x, y), where is on: the element
// of the first of the candidate ids (innermost first) that the tree under
// root has, with its ancestors. Where nothing is at the point
// (OffWindows), or none of the candidates is in the tree, it has no
// element and is OffWindows.
func HitAt(root *Element, x, y float64, where string, candidates []string) *Hit {
	h := &Hit{X: x, Y: y, Where: OffWindows}
	if where == OffWindows || len(candidates) == 0 || root == nil {
		return h
	}
	rank := make(map[string]int, len(candidates))
	for i, id := range candidates {
		if _, ok := rank[id]; !ok {
			rank[id] = i
		}
	}
	best := len(candidates)
	var above []*Element
	var visit func(e *Element)
	visit = func(e *Element) {
		if r, ok := rank[e.ID]; ok && r < best {
			best = r
			h.Match = Match{Element: e, Ancestors: append([]*Element(nil), above...)}
		}
		if best == 0 {
			return
		}
		above = append(above, e)
		for _, c := range e.Children {
			visit(c)
		}
		above = above[:len(above)-1]
	}
	visit(root)
	if h.Match.Element != nil {
		h.Where = where
	}
	return h
}

// MarshalJSON writes the hit as {"x", "y", "where", "element"}: the
// element as a search's Match writes it, without a location; no element
// off every window.
func (h *Hit) MarshalJSON() ([]byte, error) {
	var el *Match
	if h.Match.Element != nil {
		el = &h.Match
	}
	return json.Marshal(struct {
		X       float64 `json:"x"`
		Y       float64 `json:"y"`
		Where   string  `json:"where"`
		Element *Match  `json:"element,omitempty"`
	}{h.X, h.Y, h.Where, el})
}

// WriteHit writes the hit as one line: the element's line as
// WriteMatches writes it (the outline's line, then " in: " and its
// ancestors), after "at X,Y: " and, on a window's frame, "the frame of";
// or that no window is there.
//
//	at 120,340: Link "Docs" #n1.5 in: Application "Chromium" > Window "Shop" > Document "Shop" > Navigation
//	at 120,12: the frame of Window "Shop" #w1 in: Application "Chromium"
//	at 5000,5000: no window of the browser is there
func WriteHit(w io.Writer, h *Hit) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "at %s,%s: ", num(h.X), num(h.Y))
	switch {
	case h.Match.Element == nil:
		bw.WriteString("no window of the browser is there\n")
		return bw.Flush()
	case h.Where == InWindowFrame:
		bw.WriteString("the frame of ")
	}
	bw.Flush()
	return WriteMatches(w, []Match{h.Match}, 0)
}

// num writes a coordinate in screen points as briefly as it is exact.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
