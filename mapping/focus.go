package mapping

import (
	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
)

// findFocus sets the end of the focus path in this document: the owner of
// the first child frame that has focus, else the first node that Chrome
// marks focused (the RootWebArea excepted).
func (m *mapper) findFocus(root *accessibility.Node) {
	for _, n := range m.f.Nodes {
		if n == nil || n.BackendDOMNodeID == 0 {
			continue
		}
		if cf := m.f.Frames[n.BackendDOMNodeID]; cf != nil && cf.HasFocus {
			m.focus, m.focusFrame = n.NodeID, n.BackendDOMNodeID
			return
		}
	}
	if m.f.FocusLive {
		byBackend := m.byBackend()
		for _, b := range m.f.Focus {
			if id, ok := byBackend[b]; ok && id != root.NodeID {
				m.focus = id
				return
			}
		}
		return
	}
	for _, n := range m.f.Nodes {
		if n != nil && n != root && roleOf(n) != "RootWebArea" && isTrue(n, accessibility.PropertyNameFocused) {
			m.focus = n.NodeID
			return
		}
	}
}

// markUp adds state to the element of id and to those of its AX
// ancestors.
func (m *mapper) markUp(id accessibility.NodeID, state string) {
	for steps := 0; id != "" && steps <= len(m.nodes); steps++ {
		if e := m.elems[id]; e != nil {
			addState(e, state)
		}
		n := m.nodes[id]
		if n == nil {
			return
		}
		id = n.ParentID
	}
}

// hoverTarget returns the hovered element: the nearest element at or above
// the first node of the hover chain that has an AX node; nil when none.
func (m *mapper) hoverTarget() *Element {
	byBackend := m.byBackend()
	for _, b := range m.f.Hover {
		if id, ok := byBackend[b]; ok {
			return m.nearest(id)
		}
	}
	return nil
}

// byBackend maps backend DOM node ids to the AX nodes of the document.
func (m *mapper) byBackend() map[cdproto.BackendNodeID]accessibility.NodeID {
	byBackend := make(map[cdproto.BackendNodeID]accessibility.NodeID, len(m.nodes))
	for id, n := range m.nodes {
		if n.BackendDOMNodeID != 0 {
			byBackend[n.BackendDOMNodeID] = id
		}
	}
	return byBackend
}

// nearest returns the element of id or of its nearest AX ancestor that is
// one; nil when none is.
func (m *mapper) nearest(id accessibility.NodeID) *Element {
	for steps := 0; steps <= len(m.nodes); steps++ {
		if e := m.elems[id]; e != nil {
			return e
		}
		n := m.nodes[id]
		if n == nil {
			return nil
		}
		id = n.ParentID
	}
	return nil
}
