package mapping

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
)

// MapFrame returns the Document element of f: title the RootWebArea's
// name, url f.URL, and the document's content as children in reading order
// (docs/protocol.md §5.4), with the documents of f.Frames stitched in where their
// <iframe> stands (an untitled one titled by the iframe's accessible name). Strings are cut at maxText characters (no cut below 1).
//
// When f.HasFocus, the focus path (5.3) runs from the Document down to the
// element with keyboard focus, through the child frames that have focus.
// In the frame that has the pointer, the element hovered is the nearest
// reported element at or above the first node of [Frame.Hover] in the
// tree; the Document when there is none.
//
// When f.Mapped is set, MapFrame returns it as it is.
func MapFrame(f *Frame, ids *IDs, maxText int) *Element {
	if f == nil {
		return nil
	}
	if f.Unavailable != "" {
		return unavailable(f, ids, maxText)
	}
	if f.Mapped != nil {
		return f.Mapped
	}
	s := &session{ids: ids, maxText: maxText, seen: map[*Frame]bool{}}
	return s.frame(f, f.HasFocus)
}

// unavailable is the Document of a document that could not be read: the
// title and url last known, a description that says why, the content of
// f.Mapped (its last read) with no element on it focused or hovered, and
// the Document focused when it is on the focus path (HasFocus).
func unavailable(f *Frame, ids *IDs, maxText int) *Element {
	s := &session{ids: ids, maxText: maxText}
	doc := &Element{ID: ids.Document(f.Doc), Role: roleDocument, Title: s.text(f.Title), URL: s.text(f.URL), Description: f.Unavailable}
	if m := f.Mapped; m != nil {
		if doc.Title == "" {
			doc.Title = m.Title
		}
		doc.Children = make([]*Element, len(m.Children))
		for i, c := range m.Children {
			doc.Children[i] = withoutPointing(c)
		}
	}
	if f.HasFocus {
		doc.States = []string{"focused"}
	}
	return doc
}

// withoutPointing copies e without the states focused and hovered, which
// say what is current: a page that was not read says nothing of that.
func withoutPointing(e *Element) *Element {
	c := *e
	c.States = nil
	for _, st := range e.States {
		if st != "focused" && st != "hovered" {
			c.States = append(c.States, st)
		}
	}
	if len(e.Children) > 0 {
		c.Children = make([]*Element, len(e.Children))
		for i, ch := range e.Children {
			c.Children[i] = withoutPointing(ch)
		}
	}
	return &c
}

// session is one run of MapFrame, over a frame and its child frames.
type session struct {
	ids     *IDs
	maxText int
	// hovered is set once an element is hovered: at most one per answer.
	hovered bool
	// seen guards against a frame that contains itself.
	seen map[*Frame]bool
}

// mapper maps one document.
type mapper struct {
	*session
	f     *Frame
	nodes map[accessibility.NodeID]*accessibility.Node
	// elems holds the element of each AX node that became one (Text
	// excepted), and of each iframe node the child Document.
	elems map[accessibility.NodeID]*Element
	used  map[cdproto.BackendNodeID]bool // DOM nodes whose id was given out in this document
	// focus is the AX node at the end of the focus path in this document
	// ("" when the Document is the end); focusFrame the owner of the child
	// frame that has the focus (0 when none).
	focus      accessibility.NodeID
	focusFrame cdproto.BackendNodeID
}

// frame maps the document f; focused says whether it is on the focus path.
func (s *session) frame(f *Frame, focused bool) *Element {
	doc := &Element{ID: s.ids.Document(f.Doc), Role: roleDocument, URL: s.text(f.URL)}
	if s.seen[f] || len(f.Nodes) == 0 {
		return doc
	}
	s.seen[f] = true
	m := &mapper{
		session: s,
		f:       f,
		nodes:   make(map[accessibility.NodeID]*accessibility.Node, len(f.Nodes)),
		elems:   make(map[accessibility.NodeID]*Element, len(f.Nodes)/2),
		used:    make(map[cdproto.BackendNodeID]bool, len(f.Nodes)/2),
	}
	for _, n := range f.Nodes {
		if n != nil {
			m.nodes[n.NodeID] = n
		}
	}
	root := f.Nodes[0]
	if root == nil {
		return doc
	}
	if focused {
		m.findFocus(root)
	}
	doc.Title = s.text(axString(root.Name))
	doc.States = m.states(root, roleDocument)
	seen := make(map[accessibility.NodeID]bool, len(f.Nodes))
	seen[root.NodeID] = true
	doc.Children = m.children(root, 0, seen)
	m.elems[root.NodeID] = doc
	if focused {
		addState(doc, "focused")
		m.markUp(m.focus, "focused")
	}
	if f.Pointer && !s.hovered {
		s.hovered = true
		target := m.hoverTarget()
		if target == nil {
			target = doc
		}
		addState(target, "hovered")
	}
	return doc
}

// children maps the children of n in order. listDepth counts the lists
// around them; seen holds the nodes mapped so far, each mapped once (a
// node listed twice, or a cycle, in a tree kept from events).
func (m *mapper) children(n *accessibility.Node, listDepth int, seen map[accessibility.NodeID]bool) []*Element {
	var out []*Element
	for _, id := range n.ChildIDs {
		c := m.nodes[id]
		if c == nil && m.f.Partial && !seen[id] {
			seen[id] = true
			out = append(out, &Element{Unfetched: true})
			continue
		}
		if c == nil || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, m.node(c, listDepth, seen)...)
	}
	return out
}

// node maps n: one element, or, when n is not an element, its children.
func (m *mapper) node(n *accessibility.Node, listDepth int, seen map[accessibility.NodeID]bool) []*Element {
	role := roleOf(n)
	if skipped[role] {
		return nil
	}
	if cf := m.f.Frames[n.BackendDOMNodeID]; cf != nil && n.BackendDOMNodeID != 0 && !n.Ignored {
		doc := m.frame(cf, n.BackendDOMNodeID == m.focusFrame)
		if doc.Title == "" {
			// An untitled framed document is heard by the iframe's
			// accessible name (its title attribute, or aria-label).
			doc.Title = m.text(axString(n.Name))
		}
		m.elems[n.NodeID] = doc
		return []*Element{doc}
	}
	if role == "list" {
		listDepth++
	}
	kids := m.children(n, listDepth, seen)
	e := m.element(n, role, listDepth)
	if e == nil {
		return kids
	}
	if e.Role == roleText {
		return []*Element{e}
	}
	e.Children = dropEchoes(e, kids)
	if e.Role == "Row" && e.Title != "" && squash(e.Title) == joinedTitles(e.Children) {
		e.Title = "" // Chrome's name of a grid row: its cells, run together
	}
	m.elems[n.NodeID] = e
	return []*Element{e}
}

// element returns the element n is, or nil when it is none.
func (m *mapper) element(n *accessibility.Node, role string, listDepth int) *Element {
	forced := n.NodeID == m.focus
	if n.Ignored && !forced {
		return nil
	}
	title := m.text(axString(n.Name))
	if role == "StaticText" {
		if title == "" || isBullets(title) {
			return nil
		}
		return &Element{ID: m.id(n), Role: roleText, Title: title}
	}
	proto, known := roles[role]
	switch {
	case role == "textbox" && isTrue(n, accessibility.PropertyNameMultiline):
		proto = roleTextArea
	case (proto == "" || proto == roleGroup) && known && m.editableRoot(n):
		proto = roleTextArea // contenteditable
	case !known || namedOnly[role] && title == "":
		proto = roleGroup
	}
	states := m.states(n, proto)
	if proto == "" || (proto == roleGroup && title == "" && len(states) == 0) {
		if !forced {
			return nil
		}
		proto = roleGroup
	}
	e := &Element{ID: m.id(n), Role: proto, Title: title, States: states}
	if d := m.text(axString(n.Description)); !strings.Contains(squash(title), squash(d)) {
		e.Description = d // it says more than the title
	}
	e.Value = m.value(n, proto)
	switch proto {
	case "Link":
		e.URL, _ = prop(n, accessibility.PropertyNameURL)
		e.URL = m.text(e.URL)
	case "Heading", "TreeItem", "ListItem":
		e.Level = level(n, proto, listDepth)
	}
	return e
}

// value returns the value of n for its protocol role, never a masked one.
func (m *mapper) value(n *accessibility.Node, proto string) string {
	var v string
	switch valueRoles[proto] {
	case valueText:
		v = axString(n.Value)
	case valueNumber:
		v = m.f.ValueText[n.BackendDOMNodeID]
		if v == "" {
			v, _ = prop(n, accessibility.PropertyNameValuetext)
		}
		if v == "" {
			v = axString(n.Value)
		}
	}
	if isBullets(v) {
		return ""
	}
	return m.text(v)
}

// level returns the level of a Heading, TreeItem or ListItem: Chrome's,
// else the depth of the lists around a ListItem; 0 for a ListItem of a list
// that is not nested.
func level(n *accessibility.Node, proto string, listDepth int) int {
	v, _ := prop(n, accessibility.PropertyNameLevel)
	l, err := strconv.Atoi(v)
	if err != nil || l < 1 {
		l = 1
		if proto == "ListItem" {
			l = listDepth
		}
	}
	if proto == "ListItem" && l < 2 {
		return 0
	}
	return l
}

// editableRoot reports whether n is editable and its nearest ancestor that
// is not ignored is not: the root of a text field or of a contenteditable
// region, not the editor parts Chrome puts inside them.
func (m *mapper) editableRoot(n *accessibility.Node) bool {
	if v, _ := prop(n, accessibility.PropertyNameEditable); v == "" {
		return false
	}
	for steps, p := 0, m.nodes[n.ParentID]; p != nil && steps <= len(m.nodes); steps, p = steps+1, m.nodes[p.ParentID] {
		if !p.Ignored {
			v, _ := prop(p, accessibility.PropertyNameEditable)
			return v == ""
		}
	}
	return true
}

// id returns the element id of n: by its DOM node when it has one (and no
// other element of this document has it yet), else by its AX node id.
func (m *mapper) id(n *accessibility.Node) string {
	if b := n.BackendDOMNodeID; b != 0 && !m.used[b] {
		m.used[b] = true
		return m.f.nodeID(m.ids, b)
	}
	// No DOM node, or one that already has an element (Chrome gives a
	// few nodes their element's DOM node): the accessibility node's id.
	return m.ids.AXOnly(m.f.Doc, axNumber(n))
}

// ElementID returns the id of the element of accessibility node n of
// f, as mapping gives it when no other node of f has n's DOM node: by
// its DOM node when it has one, else by its accessibility node id.
func (f *Frame) ElementID(ids *IDs, n *accessibility.Node) string {
	if n.BackendDOMNodeID != 0 {
		return f.nodeID(ids, n.BackendDOMNodeID)
	}
	return ids.AXOnly(f.Doc, axNumber(n))
}

// axNumber is the number an accessibility node's id gives: the id itself
// when it is one (Chrome's are), else its hash.
func axNumber(n *accessibility.Node) int64 {
	ax, err := strconv.ParseInt(string(n.NodeID), 10, 64)
	if err != nil {
		h := fnv.New64a()
		h.Write([]byte(n.NodeID))
		ax = int64(h.Sum64())
	}
	return ax
}

// NodeElementID returns the id of the element of DOM node b of f.
func (f *Frame) NodeElementID(ids *IDs, b cdproto.BackendNodeID) string { return f.nodeID(ids, b) }

// nodeID is the id of the element of DOM node b in f.
func (f *Frame) nodeID(ids *IDs, b cdproto.BackendNodeID) string {
	return ids.Node(f.Doc, int64(b-f.NodeBase))
}

// text collapses white space in s and cuts it at the text budget.
func (s *session) text(v string) string { return cut(collapse(v), s.maxText) }

// joinedTitles returns the titles of elems run together without white
// space.
func joinedTitles(elems []*Element) string {
	var b strings.Builder
	for _, e := range elems {
		b.WriteString(squash(e.Title))
	}
	return b.String()
}

// dropEchoes returns kids without the Text elements that only repeat e's
// title or value: a Text child equal to either, or all children when all
// are Text and together read as either.
func dropEchoes(e *Element, kids []*Element) []*Element {
	title, value := squash(e.Title), squash(e.Value)
	echoes := func(s string) bool { return s != "" && (s == title || s == value) }
	out := kids[:0]
	joined, allText := "", true
	for _, k := range kids {
		if k.Role != roleText {
			allText = false
		} else {
			joined += squash(k.Title)
			if echoes(squash(k.Title)) {
				continue
			}
		}
		out = append(out, k)
	}
	if allText && echoes(joined) {
		return nil
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
