package warm

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// ancestry is a Caller for a page where focus moves into an aria-hidden
// section: the section (3), ignored until then with the focused button
// (4) its only child in the tree, is included again with a heading (5)
// beside the button, and no event names it.
type ancestry struct {
	t     *testing.T
	mu    sync.Mutex
	asked []string
}

func (c *ancestry) Call(ctx context.Context, method string, params, res any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	answer := ""
	switch method {
	case accessibility.CommandGetAXNodeAndAncestors:
		c.asked = append(c.asked, "ancestors")
		answer = `{"nodes":[` + focusedButton + `,` + axJSON("3", "2", "region", "5", "4") + `,` + axJSON("2", "1", "main", "3") + `,` + axJSON("1", "", "RootWebArea", "2") + `]}`
	case accessibility.CommandGetChildAXNodes:
		id := params.(accessibility.GetChildAXNodesParams).ID
		c.asked = append(c.asked, string(id))
		switch id {
		case "3":
			answer = `{"nodes":[` + axJSON("5", "3", "heading") + `,` + focusedButton + `]}`
		default:
			c.t.Errorf("children of %s asked for", id)
			answer = `{"nodes":[]}`
		}
	default:
		c.t.Errorf("unexpected call %s", method)
	}
	return jsonv2.Unmarshal([]byte(answer), res)
}

const focusedButton = `{"nodeId":"4","ignored":false,"role":{"type":"role","value":"button"},"properties":[{"name":"focused","value":{"type":"booleanOrUndefined","value":true}}],"parentId":"3","childIds":[],"backendDOMNodeId":40}`

// Focus moving into an aria-hidden section: Chrome's event names the
// focused node only; its ancestors, fetched again, show the section
// included, with children the tree never had. They must be fetched.
func TestAnAncestorOfTheFocusedNodeThatFlippedIsFetchedAgain(t *testing.T) {
	c := &ancestry{t: t}
	a := New(c, nil, nil)
	decode := func(s string) *accessibility.Node {
		var n accessibility.Node
		if err := jsonv2.Unmarshal([]byte(s), &n); err != nil {
			t.Fatal(err)
		}
		return &n
	}
	tr := &tree{frame: "F", root: "1", born: versions.Add(1), nodes: map[accessibility.NodeID]*accessibility.Node{}}
	hidden := `{"nodeId":"3","ignored":true,"role":{"type":"role","value":"none"},"parentId":"2","childIds":["4"]}`
	button := `{"nodeId":"4","ignored":false,"role":{"type":"role","value":"button"},"parentId":"3","childIds":[],"backendDOMNodeId":40}`
	for _, s := range []string{axJSON("1", "", "RootWebArea", "2"), axJSON("2", "1", "main", "3"), hidden, button} {
		n := decode(s)
		tr.nodes[n.NodeID] = n
	}
	a.frameOf("F").tree = tr
	a.OnEvent(accessibility.NodesUpdated.Method, jsonv2.Value(`{"nodes":[`+focusedButton+`]}`))
	if err := a.apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a.frames["F"].tree != tr {
		t.Fatal("the tree was dropped")
	}
	var got []string
	for _, n := range tr.ordered() {
		got = append(got, string(n.NodeID)+" "+Role(n))
	}
	want := []string{"1 RootWebArea", "2 main", "3 region", "5 heading", "4 button"}
	if !slices.Equal(got, want) {
		t.Errorf("the tree is %v, want %v (calls %v)", got, want, c.asked)
	}
}

// blurred is a Caller for a page where focus left a focusable div with a
// listitem role (3) for the document: Chrome sent no event, and the div,
// included while it had focus, is ignored now.
type blurred struct {
	t     *testing.T
	mu    sync.Mutex
	asked []string
}

func (c *blurred) Call(ctx context.Context, method string, params, res any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, method)
	answer := `{}`
	switch method {
	case accessibility.CommandEnable:
	case accessibility.CommandGetPartialAXTree, accessibility.CommandQueryAXTree: // the barrier
		answer = `{"nodes":[]}`
	case accessibility.CommandGetAXNodeAndAncestors:
		answer = `{"nodes":[{"nodeId":"3","ignored":true,"role":{"type":"role","value":"none"},"parentId":"2","childIds":["4"],"backendDOMNodeId":30},` +
			axJSON("2", "1", "tablist", "3") + `,` + axJSON("1", "", "RootWebArea", "2") + `]}`
	case accessibility.CommandGetChildAXNodes:
		answer = `{"nodes":[` + axJSON("4", "3", "StaticText") + `]}`
	default:
		c.t.Errorf("unexpected call %s", method)
	}
	return jsonv2.Unmarshal([]byte(answer), res)
}

// Focus leaving a node for the document (blur()) comes with no event for
// the node; a read after the page changed asks for the node the tree
// last knew focused again, and finds it ignored.
func TestAReadAfterAChangeAsksForTheNodeFocusLeft(t *testing.T) {
	c := &blurred{t: t}
	a := New(c, nil, nil)
	var nodes []*accessibility.Node
	// (The document's node says focused too, while its frame has focus.)
	for _, s := range []string{
		axJSON("2", "1", "tablist", "3"),
		`{"nodeId":"3","ignored":false,"role":{"type":"role","value":"listitem"},"properties":[{"name":"focused","value":{"type":"booleanOrUndefined","value":true}}],"parentId":"2","childIds":["4"],"backendDOMNodeId":30}`,
		axJSON("4", "3", "StaticText"),
		`{"nodeId":"1","ignored":false,"role":{"type":"internalRole","value":"RootWebArea"},"properties":[{"name":"focused","value":{"type":"booleanOrUndefined","value":true}}],"childIds":["2"],"backendDOMNodeId":10}`,
	} {
		var n accessibility.Node
		if err := jsonv2.Unmarshal([]byte(s), &n); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, &n)
	}
	tr := &tree{frame: "F", loader: "L", root: "1", born: versions.Add(1), version: versions.Add(1), nodes: map[accessibility.NodeID]*accessibility.Node{}}
	for _, n := range nodes {
		tr.put(n)
	}
	if tr.focused != "3" {
		t.Fatalf("the tree's focused node is %q, want 3", tr.focused)
	}
	tr.lastRead = Activity{OK: true, Watcher: 1}
	a.frameOf("F").tree = tr
	a.enabled = true
	before := tr.version
	// The watchers saw the blur (an interaction), no mutation.
	got, version, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Watcher: 1, Interactions: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.asked, accessibility.CommandGetAXNodeAndAncestors) {
		t.Fatalf("the node focus left was not asked for again; calls %v", c.asked)
	}
	var div *accessibility.Node
	for _, n := range got {
		if n.NodeID == "3" {
			div = n
		}
	}
	if div == nil || !div.Ignored {
		t.Errorf("the div focus left is %+v in the answer, want it ignored", div)
	}
	if version == before {
		t.Error("the tree changed and kept its version: what was mapped of it would be reused")
	}
	if tr.focused != "" {
		t.Errorf("the tree still knows %q focused", tr.focused)
	}
	// Unchanged since: the next read asks nothing of the sort.
	c.asked = nil
	if _, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Watcher: 1, Interactions: 1}); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(c.asked, accessibility.CommandGetAXNodeAndAncestors) {
		t.Errorf("an unchanged page's read asked for the focused node again; calls %v", c.asked)
	}
}

// focusing is a Caller for a page where focus moved by Tab into a div
// (3): Chrome's event names it, focused.
type focusing struct {
	mu        sync.Mutex
	ancestors int
}

const focusedDiv = `{"nodeId":"3","ignored":false,"role":{"type":"role","value":"generic"},"properties":[{"name":"focused","value":{"type":"booleanOrUndefined","value":true}}],"parentId":"2","childIds":[],"backendDOMNodeId":30}`

func (c *focusing) Call(ctx context.Context, method string, params, res any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	answer := `{"nodes":[]}`
	if method == accessibility.CommandGetAXNodeAndAncestors {
		c.ancestors++
		answer = `{"nodes":[` + focusedDiv + `,` + axJSON("2", "1", "main", "3") + `,` + axJSON("1", "", "RootWebArea", "2") + `]}`
	}
	return jsonv2.Unmarshal([]byte(answer), res)
}

// A read whose own events say a node gained focus asks for it and its
// ancestors once: refocus, which the change since the last read would
// call for, is spared.
func TestAReadAsksForTheNodeThatGainedFocusOnce(t *testing.T) {
	c := &focusing{}
	a := New(c, nil, nil)
	tr := &tree{frame: "F", loader: "L", root: "1", born: versions.Add(1), version: versions.Add(1), nodes: map[accessibility.NodeID]*accessibility.Node{}}
	for _, s := range []string{axJSON("1", "", "RootWebArea", "2"), axJSON("2", "1", "main", "3", "4"), axJSON("3", "2", "generic"), axJSON("4", "2", "button")} {
		var n accessibility.Node
		if err := jsonv2.Unmarshal([]byte(s), &n); err != nil {
			t.Fatal(err)
		}
		tr.put(&n)
	}
	tr.focused = "4" // the button had focus
	tr.lastRead = Activity{OK: true, Watcher: 1}
	a.frameOf("F").tree = tr
	a.enabled = true
	a.OnEvent(accessibility.NodesUpdated.Method, jsonv2.Value(`{"nodes":[`+focusedDiv+`]}`))
	if _, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Watcher: 1, Interactions: 2}); err != nil {
		t.Fatal(err)
	}
	if c.ancestors != 1 {
		t.Errorf("the node that gained focus and its ancestors were asked for %d times, want once", c.ancestors)
	}
	if tr.focused != "3" {
		t.Errorf("the tree knows %q focused, want 3", tr.focused)
	}
}
