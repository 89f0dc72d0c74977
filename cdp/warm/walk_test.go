package warm

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// moving is a Caller for a page whose list item moves while a walk goes
// on, keeping its accessibility node (as Chrome does for an element
// moved in the DOM): its children are asked for at its old place, then
// the item comes in its new parent's answer with children the walk has
// not seen (a new list marker, its text again).
type moving struct {
	t     *testing.T
	mu    sync.Mutex
	moved bool
	asked []accessibility.NodeID
}

func axJSON(id, parent, role string, kids ...string) string {
	ks := `[]`
	if len(kids) > 0 {
		ks = `["` + strings.Join(kids, `","`) + `"]`
	}
	return `{"nodeId":"` + id + `","ignored":false,"role":{"type":"role","value":"` + role + `"},"parentId":"` + parent + `","childIds":` + ks + `}`
}

func (c *moving) Call(ctx context.Context, method string, params, res any) error {
	answer := ""
	c.mu.Lock()
	defer c.mu.Unlock()
	switch method {
	case accessibility.CommandGetRootAXNode:
		answer = `{"node":` + axJSON("1", "", "RootWebArea", "2", "4") + `}`
	case accessibility.CommandGetChildAXNodes:
		id := params.(accessibility.GetChildAXNodesParams).ID
		c.asked = append(c.asked, id)
		var kids []string
		switch {
		case id == "1":
			kids = []string{axJSON("2", "1", "region", "5"), axJSON("4", "1", "generic", "3")}
		case id == "2" && !c.moved:
			kids = []string{axJSON("5", "2", "listitem", "6")}
		case id == "2":
		case id == "4":
			kids = []string{axJSON("3", "4", "list", "5")}
		case id == "3":
			kids = []string{axJSON("5", "3", "listitem", "7", "8")}
		case id == "5" && !c.moved:
			kids = []string{axJSON("6", "5", "StaticText")}
			c.moved = true // the item moves once its children were answered
		case id == "5":
			kids = []string{axJSON("7", "5", "ListMarker"), axJSON("8", "5", "StaticText")}
		}
		answer = `{"nodes":[` + strings.Join(kids, ",") + `]}`
	default:
		c.t.Errorf("unexpected call %s", method)
	}
	return jsonv2.Unmarshal([]byte(answer), res)
}

// A list item moves while the walk goes on: its children are fetched at
// its old place, then its new parent answers with it and children the
// walk never fetched. Chrome sends no event for nodes never fetched, so
// the walk must fetch below the item again, or the tree lacks its text
// (one call at a time, as while a read is under way, makes the order
// Chrome's).
func TestWalkFetchesBelowANodeAnsweredAgainWithNewChildren(t *testing.T) {
	c := &moving{t: t}
	a := New(c, func() bool { return true }, nil)
	tr, err := a.walk(context.Background(), "F", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []accessibility.NodeID{"7", "8"} {
		if tr.nodes[id] == nil {
			t.Errorf("the tree lacks node %s, a child of the moved item (calls %v)", id, c.asked)
		}
	}
	if n := slices.Index(c.asked, "5"); n < 0 || slices.Index(c.asked[n+1:], "5") < 0 {
		t.Errorf("the moved item's children were asked for once, want twice: %v", c.asked)
	}
	if !tr.mixed {
		t.Error("the tree is not marked mixed: the page changed during its walk")
	}
	var ids []accessibility.NodeID
	for _, n := range tr.ordered() {
		ids = append(ids, n.NodeID)
	}
	if want := []accessibility.NodeID{"1", "2", "5", "7", "8", "4", "3"}; !slices.Equal(ids, want) {
		t.Errorf("ordered nodes %v, want %v", ids, want)
	}
}

// A screen read that finds a large document unkept and asks for its walk
// screen first (WalkScreenFirst) just as the document's load began that
// walk (its loadComplete and the read's first call come at once) reads
// the screen first all the same, rather than fetch the document whole;
// the load's walk goes on.
func TestAScreenReadMeetingTheLoadsWalkReadsTheScreenFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &heldWalk{release: make(chan struct{})}
		paragraphs(&c.children, t, 10)
		a := New(c, nil, nil)
		a.enabled = true
		a.frameOf("F").measured = true // read before: its load is handled
		a.Loaded = func(context.Context, cdproto.FrameID) (cdproto.LoaderID, Activity, error) {
			return "L", Activity{OK: true, Watcher: 1, ScreenFirst: true}, nil
		}
		read := Activity{OK: true, Watcher: 1}
		if !a.Unkept("F", "L", read) {
			t.Fatal("the document is kept before its load")
		}
		a.OnEvent(accessibility.LoadComplete.Method, jsonv2.Value(`{"root":{"nodeId":"1","ignored":false,"frameId":"F"}}`))
		synctest.Wait() // the load's walk has begun, and waits for its first answer
		if !a.LoadWalking("F", "L") {
			t.Fatal("the load did not begin a walk screen first")
		}
		if !a.WalkScreenFirst("F", "L", read) {
			t.Error("a screen read that met the load's walk does not read the screen first")
		}
		close(c.release)
		a.Rest()
		if err := a.AwaitBackground(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// heldWalk is a page whose walk calls wait for release.
type heldWalk struct {
	children
	release chan struct{}
}

func (c *heldWalk) Call(ctx context.Context, method string, params, res any) error {
	if method == accessibility.CommandEnable {
		return nil
	}
	select {
	case <-c.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return c.children.Call(ctx, method, params, res)
}
