package warm

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/chromedp"
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
				n.BackendDOMNodeID = cdproto.BackendNodeID(tok.Int())
			}
			err = terr
		case `"frameId"`:
			var id string
			id, err = readString(d)
			n.FrameID = cdproto.FrameID(id)
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

// Values and properties are shared. Most of a page's values are the same
// few over and over (roles, Chrome's role numbers, true and false,
// heading levels, tokens): each short one is decoded once and shared by
// every node that has it, which takes a third off what a big page's tree
// holds. So a decoded node's values and properties must never be changed,
// only replaced.

// shortValue is the longest value (its JSON) that is shared.
const shortValue = 40

// shared holds the shared values and properties, each under its JSON
// (type and value; for a property, its name too), at most maxShared of
// each: one more empties the table, so that a long session's values do
// not stay shared for good (the nodes that have them keep them).
var shared = struct {
	mu    sync.RWMutex
	vals  map[string]*accessibility.Value    // guarded by mu
	props map[string]*accessibility.Property // guarded by mu
}{vals: map[string]*accessibility.Value{}, props: map[string]*accessibility.Property{}}

const maxShared = 1 << 14

// readValue reads an accessibility value: its type and value, nothing
// else. A short one is shared (see shared).
func readValue(d *jsonv2.Decoder) (*accessibility.Value, error) {
	var scratch [2*shortValue + 8]byte
	v, _, err := readValueKey(d, scratch[:0])
	return v, err
}

// readValueKey is readValue that also returns the value's key in shared,
// built in scratch, or nil when the value is not shared.
func readValueKey(d *jsonv2.Decoder, scratch []byte) (*accessibility.Value, []byte, error) {
	if ok, err := open(d, '{'); !ok || err != nil {
		return nil, nil, err
	}
	// The raw JSON (typ quoted), copied: the decoder's bytes change as it
	// reads on. A short value is copied here, and kept only when it is
	// new to shared.
	var tb [24]byte
	var vb [shortValue]byte
	var typ, val, long []byte // long: a value too long to share, its own copy
	for d.PeekKind() != '}' {
		name, err := d.ReadValue()
		if err != nil {
			return nil, nil, err
		}
		switch string(name) {
		case `"type"`:
			var raw jsonv2.Value
			if raw, err = d.ReadValue(); err == nil {
				typ = append(tb[:0], raw...)
			}
		case `"value"`:
			var raw jsonv2.Value
			if raw, err = d.ReadValue(); err == nil {
				if len(raw) > shortValue {
					long = raw.Clone()
				} else {
					val = append(vb[:0], raw...)
				}
			}
		default:
			err = d.SkipValue()
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if err := expect(d, '}'); err != nil {
		return nil, nil, err
	}
	t, known := valueTypes[string(typ)]
	if !known {
		u, err := unquote(typ)
		if err != nil {
			return nil, nil, fmt.Errorf("accessibility value type %s: %w", string(typ), err)
		}
		t = accessibility.ValueType(u)
	}
	if long != nil {
		return &accessibility.Value{Type: t, Value: long}, nil, nil
	}
	key := append(append(append(scratch[:0], typ...), 0), val...)
	if v, ok := lookup(shared.vals, key); ok {
		return v, key, nil
	}
	v := &accessibility.Value{Type: t}
	if val != nil {
		v.Value = bytes.Clone(val)
	}
	return share(shared.vals, key, v), key, nil
}

// lookup returns what m holds under key, m being one of shared's tables.
func lookup[T any](m map[string]*T, key []byte) (*T, bool) {
	shared.mu.RLock()
	defer shared.mu.RUnlock()
	v, ok := m[string(key)]
	return v, ok
}

// share returns what m, one of shared's tables, holds under key, storing
// v there first when it holds nothing (emptying a full table).
func share[T any](m map[string]*T, key []byte, v *T) *T {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if old, ok := m[string(key)]; ok {
		return old
	}
	if len(m) >= maxShared {
		clear(m)
	}
	m[string(key)] = v
	return v
}

// valueTypes are the types of accessibility values, by their JSON.
var valueTypes = func() map[string]accessibility.ValueType {
	m := map[string]accessibility.ValueType{}
	for _, t := range []accessibility.ValueType{
		accessibility.ValueTypeBoolean, accessibility.ValueTypeTristate, accessibility.ValueTypeBooleanOrUndefined,
		accessibility.ValueTypeIdref, accessibility.ValueTypeIdrefList, accessibility.ValueTypeInteger,
		accessibility.ValueTypeNode, accessibility.ValueTypeNodeList, accessibility.ValueTypeNumber,
		accessibility.ValueTypeString, accessibility.ValueTypeComputedString, accessibility.ValueTypeToken,
		accessibility.ValueTypeTokenList, accessibility.ValueTypeDomRelation, accessibility.ValueTypeRole,
		accessibility.ValueTypeInternalRole, accessibility.ValueTypeValueUndefined,
	} {
		m[`"`+string(t)+`"`] = t
	}
	return m
}()

// unquote returns the string of a quoted JSON string, "" for none.
func unquote(quoted []byte) (string, error) {
	if quoted == nil || string(quoted) == "null" {
		return "", nil
	}
	var s string
	// (A copy: the caller's bytes stay on its stack, on the common path
	// that never gets here.)
	err := jsonv2.Unmarshal(bytes.Clone(quoted), &s, chromedp.DefaultUnmarshalOptions)
	return s, err
}

// readProperties reads a node's properties, each a name and a value. A
// property with a short value is shared (see shared).
func readProperties(d *jsonv2.Decoder) ([]*accessibility.Property, error) {
	if ok, err := open(d, '['); !ok || err != nil {
		return nil, err
	}
	var props []*accessibility.Property
	var scratch [3*shortValue + 8]byte
	var nb [32]byte
	for d.PeekKind() != ']' {
		if err := expect(d, '{'); err != nil {
			return nil, err
		}
		var name []byte // quoted
		var v *accessibility.Value
		var key []byte
		for d.PeekKind() != '}' {
			field, err := d.ReadValue()
			if err != nil {
				return nil, err
			}
			switch string(field) {
			case `"name"`:
				var raw jsonv2.Value
				if raw, err = d.ReadValue(); err == nil {
					name = append(nb[:0], raw...) // read on: the decoder's bytes change
				}
			case `"value"`:
				v, key, err = readValueKey(d, scratch[:0])
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
		p, err := property(name, v, key)
		if err != nil {
			return nil, err
		}
		props = append(props, p)
	}
	return props, expect(d, ']')
}

// property makes the property of name (quoted JSON) and value v, shared
// when v is (key is then v's key in shared, which it may overwrite).
func property(name []byte, v *accessibility.Value, key []byte) (*accessibility.Property, error) {
	if key == nil {
		n, err := unquote(name)
		return &accessibility.Property{Name: accessibility.PropertyName(n), Value: v}, err
	}
	pkey := append(append(key, 0), name...)
	if p, ok := lookup(shared.props, pkey); ok {
		return p, nil
	}
	n, err := unquote(name)
	if err != nil {
		return nil, fmt.Errorf("accessibility property name %s: %w", string(name), err)
	}
	return share(shared.props, pkey, &accessibility.Property{Name: accessibility.PropertyName(n), Value: v}), nil
}

// slimNodes is the result of the commands that answer with nodes, and the
// nodesUpdated event.
type slimNodes struct {
	Nodes []*slimNode `json:"nodes"`
}

// The accessibility commands that answer with nodes, decoded slim.
var (
	fullAXTree   = cdproto.Command[accessibility.GetFullAXTreeParams, slimNodes]{Method: accessibility.CommandGetFullAXTree}
	childAXNodes = cdproto.Command[accessibility.GetChildAXNodesParams, slimNodes]{Method: accessibility.CommandGetChildAXNodes}
	axAncestors  = cdproto.Command[accessibility.GetAXNodeAndAncestorsParams, slimNodes]{Method: accessibility.CommandGetAXNodeAndAncestors}
	partialTree  = cdproto.Command[accessibility.GetPartialAXTreeParams, slimNodes]{Method: accessibility.CommandGetPartialAXTree}
	rootAXNode   = cdproto.Command[accessibility.GetRootAXNodeParams, slimRoot]{Method: accessibility.CommandGetRootAXNode}
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
