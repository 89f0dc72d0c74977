package warm

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// noCalls is a Caller for tests that must make no call.
type noCalls struct{ t *testing.T }

func (c noCalls) Call(ctx context.Context, method string, params, res any) error {
	c.t.Errorf("unexpected call %s", method)
	return errors.New("no calls in this test")
}

// twinParents finds the parents of two nodes of one DOM node: the old
// node a moved element left behind and the new one.
func TestTwinParents(t *testing.T) {
	node := func(id string, backend int, kids ...string) *accessibility.Node {
		n := &accessibility.Node{NodeID: accessibility.NodeID(id), BackendDOMNodeID: cdp.BackendNodeID(backend)}
		for _, k := range kids {
			n.ChildIDs = append(n.ChildIDs, accessibility.NodeID(k))
		}
		return n
	}
	tr := &tree{root: "1", nodes: map[accessibility.NodeID]*accessibility.Node{}}
	for _, n := range []*accessibility.Node{
		node("1", 100, "2", "3", "9"),
		node("2", 200, "4", "5"), // the list the item left, not told
		node("3", 300, "6"),      // the list it moved to
		node("4", 400),
		node("5", 500), // the item's old node
		node("6", 500), // and its new one
		node("9", 900, "10", "11"),
		node("10", 1000), // one DOM node, two nodes, one parent: Chrome's own
		node("11", 1000),
		node("12", 400), // unreachable: not counted
	} {
		tr.nodes[n.NodeID] = n
	}
	if got, want := tr.twinParents(), []accessibility.NodeID{"2", "3"}; !slices.Equal(got, want) {
		t.Errorf("twinParents = %v, want %v", got, want)
	}
	delete(tr.nodes, "5")
	tr.nodes["2"].ChildIDs = []accessibility.NodeID{"4"}
	if got := tr.twinParents(); len(got) != 0 {
		t.Errorf("twinParents after the move = %v, want none", got)
	}
}

// The read of one document of a session applies all the session's
// events, also while another document's walk is under way: the events
// of nodes that walk fetched must wait for its tree, not be lost.
func TestEventsOfAWalkUnderWayWait(t *testing.T) {
	a := New(noCalls{t}, nil, nil)
	ctx := context.Background()
	event := func(checked string) jsonv2.Value {
		return jsonv2.Value(`{"nodes":[{"nodeId":"7","ignored":false,"role":{"type":"role","value":"checkbox"},"properties":[{"name":"checked","value":{"type":"tristate","value":"` + checked + `"}}],"parentId":"1","backendDOMNodeId":70}]}`)
	}
	// The walk of frame F is under way: it has fetched node 7, unchecked.
	a.mu.Lock()
	a.walking["F"] = true
	since := a.seq + 1
	a.mu.Unlock()
	// The box is checked; the event comes before the walk's tree is kept,
	// and a read of another document applies it.
	a.OnEvent(accessibility.NodesUpdated.Method, event("true"))
	if err := a.apply(ctx); err != nil {
		t.Fatal(err)
	}
	// The walk ends with what it fetched before the change.
	old := &accessibility.Node{NodeID: "7", Role: &accessibility.Value{Type: "role", Value: jsonv2.Value(`"checkbox"`)}, ParentID: "1", BackendDOMNodeID: 70,
		Properties: []*accessibility.Property{{Name: "checked", Value: &accessibility.Value{Type: "tristate", Value: jsonv2.Value(`"false"`)}}}}
	root := &accessibility.Node{NodeID: "1", ChildIDs: []accessibility.NodeID{"7"}, BackendDOMNodeID: 10}
	a.mu.Lock()
	delete(a.walking, "F")
	a.trees["F"] = &tree{frame: "F", root: "1", since: since, born: versions.Add(1), nodes: map[accessibility.NodeID]*accessibility.Node{"1": root, "7": old}}
	a.mu.Unlock()
	if err := a.apply(ctx); err != nil {
		t.Fatal(err)
	}
	got := a.trees["F"].nodes["7"]
	if v, _ := got.Properties[0].Value.Value.MarshalJSON(); string(v) != `"true"` {
		t.Errorf("node 7 is checked=%s in the warm tree, want true", v)
	}
	a.mu.Lock()
	if len(a.orphans) != 0 {
		t.Errorf("%d orphans left once no walk is under way", len(a.orphans))
	}
	// An orphan is not for a tree that lacked the node then: when such a
	// tree has it later, it fetched it since, fresher than the event.
	a.walking["G"] = true
	a.mu.Unlock()
	a.OnEvent(accessibility.NodesUpdated.Method, jsonv2.Value(`{"nodes":[{"nodeId":"9","ignored":false,"role":{"type":"role","value":"button"},"name":{"type":"computedString","value":"Old name"}}]}`))
	if err := a.apply(ctx); err != nil {
		t.Fatal(err)
	}
	fresh := &accessibility.Node{NodeID: "9", Role: &accessibility.Value{Type: "role", Value: jsonv2.Value(`"button"`)},
		Name: &accessibility.Value{Type: "computedString", Value: jsonv2.Value(`"New name"`)}, ParentID: "1"}
	a.trees["F"].nodes["9"] = fresh
	root.ChildIDs = append(root.ChildIDs, "9")
	a.mu.Lock()
	delete(a.walking, "G")
	a.mu.Unlock()
	if err := a.apply(ctx); err != nil {
		t.Fatal(err)
	}
	if n := a.trees["F"].nodes["9"]; n != fresh {
		t.Errorf("the event older than the fetch replaced node 9: %s", n.Name.Value)
	}
}
