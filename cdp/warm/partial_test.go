package warm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// pageTree is a Caller that answers getPartialAXTree and getChildAXNodes from
// a whole tree, as Chrome does, and counts the calls.
type pageTree struct {
	t     *testing.T
	nodes map[accessibility.NodeID]string // a node's JSON
	tree  map[accessibility.NodeID][]accessibility.NodeID
	up    map[accessibility.NodeID]accessibility.NodeID
	dom   map[cdproto.BackendNodeID]accessibility.NodeID
	mu    sync.Mutex
	calls map[string]int // guarded by mu
}

// newPage makes a pageTree from lines "id parent role backend": the root
// first, each node after its parent.
func newPage(t *testing.T, lines ...string) *pageTree {
	p := &pageTree{t: t, nodes: map[accessibility.NodeID]string{}, tree: map[accessibility.NodeID][]accessibility.NodeID{},
		up: map[accessibility.NodeID]accessibility.NodeID{}, dom: map[cdproto.BackendNodeID]accessibility.NodeID{}, calls: map[string]int{}}
	type row struct {
		id, parent, role string
		backend          int
	}
	var rows []row
	for _, l := range lines {
		var r row
		if _, err := fmt.Sscan(l, &r.id, &r.parent, &r.role, &r.backend); err != nil {
			t.Fatal(err)
		}
		if r.parent == "-" {
			r.parent = ""
		}
		rows = append(rows, r)
		if r.parent != "" {
			p.tree[accessibility.NodeID(r.parent)] = append(p.tree[accessibility.NodeID(r.parent)], accessibility.NodeID(r.id))
			p.up[accessibility.NodeID(r.id)] = accessibility.NodeID(r.parent)
		}
		if r.backend != 0 {
			p.dom[cdproto.BackendNodeID(r.backend)] = accessibility.NodeID(r.id)
		}
	}
	for _, r := range rows {
		kids := make([]string, 0)
		for _, k := range p.tree[accessibility.NodeID(r.id)] {
			kids = append(kids, `"`+string(k)+`"`)
		}
		parent := ""
		if r.parent != "" {
			parent = `,"parentId":"` + r.parent + `"`
		}
		p.nodes[accessibility.NodeID(r.id)] = fmt.Sprintf(`{"nodeId":"%s","ignored":false,"role":{"type":"role","value":"%s"},"childIds":[%s],"backendDOMNodeId":%d%s}`,
			r.id, r.role, strings.Join(kids, ","), r.backend, parent)
	}
	return p
}

func (p *pageTree) Call(ctx context.Context, method string, params, res any) error {
	p.mu.Lock()
	p.calls[method]++
	p.mu.Unlock()
	var ids []accessibility.NodeID
	switch q := params.(type) {
	case accessibility.GetPartialAXTreeParams:
		id, ok := p.dom[q.BackendNodeID]
		if !ok {
			return errors.New("No node with given id found")
		}
		// The node, its ancestors, its siblings and its children.
		for a := p.up[id]; a != ""; a = p.up[a] {
			ids = append(ids, a)
		}
		if par, ok := p.up[id]; ok {
			ids = append(ids, p.tree[par]...)
		} else {
			ids = append(ids, id)
		}
		ids = append(ids, p.tree[id]...)
	case accessibility.GetChildAXNodesParams:
		ids = p.tree[q.ID]
	default:
		p.t.Errorf("unexpected call %s", method)
		return errors.New("unexpected call")
	}
	var js []string
	for _, id := range ids {
		js = append(js, p.nodes[id])
	}
	return jsonv2.Unmarshal([]byte(`{"nodes":[`+strings.Join(js, ",")+`]}`), res)
}

// The nodes that place the elements asked for: each one's ancestors,
// siblings and children, merged, the root first and the rest in tree
// order; below an element on screen what has no box of its own (a list
// item's marker and its text) is asked for too, and nothing below an
// element off screen. An element that has no node is left out; none
// that answers is an error.
func TestPartialNodes(t *testing.T) {
	p := newPage(t,
		"1 - RootWebArea 100",
		"2 1 main 101",
		"3 2 list 102",
		"4 3 listitem 103", // on screen
		"5 4 ListMarker 104",
		"6 5 StaticText 0",
		"7 4 link 105", // on screen
		"8 7 StaticText 0",
		"9 3 listitem 106", // off screen
		"10 9 ListMarker 107",
		"11 10 StaticText 0",
		"12 9 link 108",
		"13 2 heading 109", // off screen: not named by what was asked
	)
	nodes, err := PartialNodes(context.Background(), p, "F", []cdproto.BackendNodeID{103, 105, 999})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		got = append(got, string(n.NodeID))
	}
	want := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}
	if !slices.Equal(got, want) {
		t.Errorf("the nodes %v, want %v", got, want)
	}
	if p.calls[accessibility.CommandGetPartialAXTree] != 3 || p.calls[accessibility.CommandGetChildAXNodes] != 1 {
		t.Errorf("calls %v, want 3 getPartialAXTree and 1 getChildAXNodes (the marker's)", p.calls)
	}
	if _, err := PartialNodes(context.Background(), p, "F", []cdproto.BackendNodeID{998, 999}); err == nil {
		t.Error("no element answered, and no error")
	}
}
