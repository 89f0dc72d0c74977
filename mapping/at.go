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
	// when Where is OffWindows, or when no element there is in the
	// answer (Note says so).
	Match Match
	// Note, when set, says why Match is not the element the page has at
	// the point: it was cut from the answer by the budget (CutFrom), the
	// page's hit test failed (Failed), or no element there is in the
	// answer. A host told nothing would take the Document, or nothing,
	// for what is there.
	Note string
}

// NotInAnswer is a Hit's Note when the page has elements at the point
// and the answer holds none of them.
const NotInAnswer = "none of the elements there is in the answer"

// HitAt returns what is at the point (x, y), where is on: the element
// of the first of the candidate ids (innermost first) that the tree under
// root has, with its ancestors. Where nothing is at the point
// (OffWindows, or no candidates) it has no element and is OffWindows;
// where there are candidates and the tree has none of them, it has no
// element, keeps where, and its Note is NotInAnswer.
func HitAt(root *Element, x, y float64, where string, candidates []string) *Hit {
	h := &Hit{X: x, Y: y, Where: OffWindows}
	if where == OffWindows || len(candidates) == 0 {
		return h
	}
	h.Where = where
	if h.Match, _ = firstOf(root, candidates); h.Match.Element == nil {
		h.Note = NotInAnswer
	}
	return h
}

// firstOf returns the element of the first of the candidate ids that
// the tree under root has, with its ancestors, and its rank among the
// candidates (len(candidates) when the tree has none).
func firstOf(root *Element, candidates []string) (Match, int) {
	best := len(candidates)
	var m Match
	if root == nil {
		return m, best
	}
	rank := make(map[string]int, len(candidates))
	for i, id := range candidates {
		if _, ok := rank[id]; !ok {
			rank[id] = i
		}
	}
	var above []*Element
	var visit func(e *Element)
	visit = func(e *Element) {
		if r, ok := rank[e.ID]; ok && r < best {
			best = r
			m = Match{Element: e, Ancestors: append([]*Element(nil), above...)}
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
	return m, best
}

// CutFrom says, when the budget cut the element at the point from the
// answer, which element that was: whole is the answer's tree before the
// cut (the same ids), candidates those HitAt was given. When whole has
// a candidate before the one the hit found, the hit keeps the innermost
// element the answer has (or none) and its Note names the one cut, with
// its id, which locate still answers for.
func (h *Hit) CutFrom(whole *Element, candidates []string) {
	if h.Where == OffWindows || whole == nil {
		return
	}
	// The answer is whole less what the budget cut, so whole's first
	// candidate is the answer's, or one before it that was cut.
	cut, _ := firstOf(whole, candidates)
	if cut.Element == nil || (h.Match.Element != nil && cut.Element.ID == h.Match.Element.ID) {
		return
	}
	h.Note = "the element there, " + string(appendLine(nil, cut.Element, nil)) + ", was cut from the answer by the budget"
}

// Failed says that the page's hit test failed with err, so that the
// element is the innermost one found before it failed (the Document, or
// the Window), not necessarily the one at the point.
func (h *Hit) Failed(err error) {
	h.Note = fmt.Sprintf("the page's hit test failed (%v): this is the innermost element found before it failed", err)
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
		Note    string  `json:"note,omitempty"`
	}{h.X, h.Y, h.Where, el, h.Note})
}

// WriteHit writes the hit as one line: the element's line as
// WriteMatches writes it (the outline's line, then " in: " and its
// ancestors), after "at X,Y: " and, on a window's frame, "the frame of";
// or that no window is there. A note follows on a line of its own, in
// parentheses, or stands for the element when there is none.
//
//	at 120,340: Link "Docs" #n1.5 in: Application "Chromium" > Window "Shop" > Document "Shop" > Navigation
//	at 120,12: the frame of Window "Shop" #w1 in: Application "Chromium"
//	at 5000,5000: no window of the browser is there
//	at 120,340: Navigation #n1.3 in: Application "Chromium" > Window "Shop" > Document "Shop"
//	(the element there, Link "Docs" #n1.5, was cut from the answer by the budget)
func WriteHit(w io.Writer, h *Hit) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "at %s,%s: ", num(h.X), num(h.Y))
	switch {
	case h.Match.Element == nil && h.Note != "":
		bw.WriteString(h.Note + "\n")
		return bw.Flush()
	case h.Match.Element == nil:
		bw.WriteString("no window of the browser is there\n")
		return bw.Flush()
	case h.Where == InWindowFrame:
		bw.WriteString("the frame of ")
	}
	bw.Flush()
	if err := WriteMatches(w, []Match{h.Match}, 0); err != nil || h.Note == "" {
		return err
	}
	_, err := fmt.Fprintf(w, "(%s)\n", h.Note)
	return err
}

// num writes a coordinate in screen points as briefly as it is exact.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
