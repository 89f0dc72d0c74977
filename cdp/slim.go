package cdp

import (
	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// Chrome's accessibility nodes come with the sources of every name (the
// text once more, and every attribute it could have come from) and the
// related nodes of every property: half the bytes of a tree, and nothing
// the mapping reads. The commands below decode nodes without them, which
// is what keeps the provider's memory low on big pages.

// slimValue is an accessibility.Value without its sources and related
// nodes.
type slimValue struct {
	Type  accessibility.ValueType `json:"type"`
	Value jsonv2.Value            `json:"value,omitempty,omitzero"`
}

type slimProperty struct {
	Name  accessibility.PropertyName `json:"name"`
	Value *slimValue                 `json:"value"`
}

// slimNode is an accessibility.Node with what the mapping reads.
type slimNode struct {
	NodeID           accessibility.NodeID   `json:"nodeId"`
	Ignored          bool                   `json:"ignored"`
	Role             *slimValue             `json:"role,omitempty,omitzero"`
	ChromeRole       *slimValue             `json:"chromeRole,omitempty,omitzero"`
	Name             *slimValue             `json:"name,omitempty,omitzero"`
	Description      *slimValue             `json:"description,omitempty,omitzero"`
	Value            *slimValue             `json:"value,omitempty,omitzero"`
	Properties       []*slimProperty        `json:"properties,omitempty,omitzero"`
	ParentID         accessibility.NodeID   `json:"parentId,omitempty,omitzero"`
	ChildIDs         []accessibility.NodeID `json:"childIds,omitempty,omitzero"`
	BackendDOMNodeID cdp.BackendNodeID      `json:"backendDOMNodeId,omitempty,omitzero"`
	FrameID          cdp.FrameID            `json:"frameId,omitempty,omitzero"`
}

// slimNodes is the result of the commands that answer with nodes, and the
// nodesUpdated event.
type slimNodes struct {
	Nodes []*slimNode `json:"nodes"`
}

// The accessibility commands that answer with nodes, decoded slim.
var (
	fullAXTree   = cdp.Command[accessibility.GetFullAXTreeParams, slimNodes]{Method: accessibility.CommandGetFullAXTree}
	childAXNodes = cdp.Command[accessibility.GetChildAXNodesParams, slimNodes]{Method: accessibility.CommandGetChildAXNodes}
	axAncestors  = cdp.Command[accessibility.GetAXNodeAndAncestorsParams, slimNodes]{Method: accessibility.CommandGetAXNodeAndAncestors}
	rootAXNode   = cdp.Command[accessibility.GetRootAXNodeParams, slimRoot]{Method: accessibility.CommandGetRootAXNode}
)

// slimRoot is the result of getRootAXNode.
type slimRoot struct {
	Node *slimNode `json:"node"`
}

// slimLoad is the loadComplete event.
type slimLoad struct {
	Root *slimNode `json:"root"`
}

func (v *slimValue) value() *accessibility.Value {
	if v == nil {
		return nil
	}
	return &accessibility.Value{Type: v.Type, Value: v.Value}
}

// node returns the node as the mapping takes it.
func (n *slimNode) node() *accessibility.Node {
	if n == nil {
		return nil
	}
	out := &accessibility.Node{
		NodeID:           n.NodeID,
		Ignored:          n.Ignored,
		Role:             n.Role.value(),
		ChromeRole:       n.ChromeRole.value(),
		Name:             n.Name.value(),
		Description:      n.Description.value(),
		Value:            n.Value.value(),
		ParentID:         n.ParentID,
		ChildIDs:         n.ChildIDs,
		BackendDOMNodeID: n.BackendDOMNodeID,
		FrameID:          n.FrameID,
	}
	if len(n.Properties) > 0 {
		out.Properties = make([]*accessibility.Property, len(n.Properties))
		for i, p := range n.Properties {
			out.Properties[i] = &accessibility.Property{Name: p.Name, Value: p.Value.value()}
		}
	}
	return out
}

// nodes returns the nodes as the mapping takes them.
func (r slimNodes) nodes() []*accessibility.Node {
	out := make([]*accessibility.Node, len(r.Nodes))
	for i, n := range r.Nodes {
		out[i] = n.node()
	}
	return out
}
