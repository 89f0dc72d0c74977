package warm

import (
	"fmt"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// Chrome's accessibility nodes come with the sources of every name (the
// text once more, and every attribute it could have come from) and the
// related nodes of every property: half the bytes of a tree, and nothing
// the mapping reads. The commands below decode nodes without them, which
// is what keeps the provider's memory low on big pages, and its decoding
// fast.

// slimNode decodes an accessibility.Node without the sources of its
// values, their related nodes and the reasons it is ignored, straight from
// the decoder's tokens: decoding a big page's tree is most of what a cold
// read costs on the provider's side, and the sources are skipped without
// being parsed into values. TestSlimNodeDecodes holds it to cdproto's own
// decoding of the same JSON.
type slimNode accessibility.Node

// UnmarshalJSONFrom decodes one node object.
func (n *slimNode) UnmarshalJSONFrom(d *jsonv2.Decoder) error {
	if ok, err := open(d, '{'); !ok || err != nil {
		return err
	}
	for d.PeekKind() != '}' {
		name, err := d.ReadValue() // the name, quoted: compared without a copy
		if err != nil {
			return err
		}
		switch string(name) {
		case `"nodeId"`:
			var id string
			id, err = readString(d)
			n.NodeID = accessibility.NodeID(id)
		case `"ignored"`:
			tok, terr := d.ReadToken()
			n.Ignored, err = tok.Kind() == 't', terr
		case `"role"`:
			n.Role, err = readValue(d)
		case `"chromeRole"`:
			n.ChromeRole, err = readValue(d)
		case `"name"`:
			n.Name, err = readValue(d)
		case `"description"`:
			n.Description, err = readValue(d)
		case `"value"`:
			n.Value, err = readValue(d)
		case `"properties"`:
			n.Properties, err = readProperties(d)
		case `"parentId"`:
			var id string
			id, err = readString(d)
			n.ParentID = accessibility.NodeID(id)
		case `"childIds"`:
			n.ChildIDs, err = readIDs(d)
		case `"backendDOMNodeId"`:
			tok, terr := d.ReadToken()
			if terr == nil && tok.Kind() == '0' {
				n.BackendDOMNodeID = cdp.BackendNodeID(tok.Int())
			}
			err = terr
		case `"frameId"`:
			var id string
			id, err = readString(d)
			n.FrameID = cdp.FrameID(id)
		default:
			err = d.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	return expect(d, '}')
}

// open reads the start of an object or array, kind, or a null: ok is
// false for the null.
func open(d *jsonv2.Decoder, kind byte) (ok bool, err error) {
	if d.PeekKind() == 'n' {
		_, err := d.ReadToken()
		return false, err
	}
	return true, expect(d, kind)
}

// expect reads a token that must be the delimiter kind.
func expect(d *jsonv2.Decoder, kind byte) error {
	tok, err := d.ReadToken()
	if err != nil {
		return err
	}
	if byte(tok.Kind()) != kind {
		return fmt.Errorf("accessibility node: %q where %q belongs", tok.Kind(), kind)
	}
	return nil
}

// readString reads a string, or null as "".
func readString(d *jsonv2.Decoder) (string, error) {
	tok, err := d.ReadToken()
	if err != nil || tok.Kind() == 'n' {
		return "", err
	}
	if tok.Kind() != '"' {
		return "", fmt.Errorf("accessibility node: %q where a string belongs", tok.Kind())
	}
	return tok.String(), nil
}

// readIDs reads an array of node ids.
func readIDs(d *jsonv2.Decoder) ([]accessibility.NodeID, error) {
	if ok, err := open(d, '['); !ok || err != nil {
		return nil, err
	}
	var ids []accessibility.NodeID
	for d.PeekKind() != ']' {
		id, err := readString(d)
		if err != nil {
			return nil, err
		}
		ids = append(ids, accessibility.NodeID(id))
	}
	return ids, expect(d, ']')
}

// readValue reads an accessibility value: its type and value, nothing
// else.
func readValue(d *jsonv2.Decoder) (*accessibility.Value, error) {
	if ok, err := open(d, '{'); !ok || err != nil {
		return nil, err
	}
	v := &accessibility.Value{}
	for d.PeekKind() != '}' {
		name, err := d.ReadValue()
		if err != nil {
			return nil, err
		}
		switch string(name) {
		case `"type"`:
			var t string
			t, err = readString(d)
			v.Type = accessibility.ValueType(t)
		case `"value"`:
			var raw jsonv2.Value
			if raw, err = d.ReadValue(); err == nil {
				v.Value = raw.Clone()
			}
		default:
			err = d.SkipValue()
		}
		if err != nil {
			return nil, err
		}
	}
	return v, expect(d, '}')
}

// readProperties reads a node's properties, each a name and a value.
func readProperties(d *jsonv2.Decoder) ([]*accessibility.Property, error) {
	if ok, err := open(d, '['); !ok || err != nil {
		return nil, err
	}
	var props []*accessibility.Property
	for d.PeekKind() != ']' {
		if err := expect(d, '{'); err != nil {
			return nil, err
		}
		p := &accessibility.Property{}
		for d.PeekKind() != '}' {
			name, err := d.ReadValue()
			if err != nil {
				return nil, err
			}
			switch string(name) {
			case `"name"`:
				var s string
				s, err = readString(d)
				p.Name = accessibility.PropertyName(s)
			case `"value"`:
				p.Value, err = readValue(d)
			default:
				err = d.SkipValue()
			}
			if err != nil {
				return nil, err
			}
		}
		if err := expect(d, '}'); err != nil {
			return nil, err
		}
		props = append(props, p)
	}
	return props, expect(d, ']')
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

// node returns the node as the mapping takes it.
func (n *slimNode) node() *accessibility.Node { return (*accessibility.Node)(n) }

// nodes returns the nodes as the mapping takes them.
func (r slimNodes) nodes() []*accessibility.Node {
	out := make([]*accessibility.Node, len(r.Nodes))
	for i, n := range r.Nodes {
		out[i] = n.node()
	}
	return out
}
