package warm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// pageTree is a Caller that answers getPartialAXTree and getChildAXNodes from
// a whole tree, as Chrome does, and counts the calls and the nodes it
// answered with.
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
		// The node, its ancestors and its children, as Chromium 156
		// answers (no siblings: a list item's answer is 7 nodes in a list
		// of 10,000, the list's 10,004).
		for a := p.up[id]; a != ""; a = p.up[a] {
			ids = append(ids, a)
		}
		ids = append(ids, id)
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

// The nodes that place the elements asked for: each one's ancestors and
// children, merged, the root first and the rest in tree order; below an
// element on screen what has no box of its own (a node with no DOM
// element, and its text) is asked for too, but not what a text or a list
// item's marker holds (the mapping drops it), and nothing of an element off
// screen (the list names its second item, which no answer holds). An
// element that has no node is left out; none that answers is an error.
func TestPartialNodes(t *testing.T) {
	p := newPage(t,
		"1 - RootWebArea 100",
		"2 1 main 101",
		"3 2 list 102",
		"4 3 listitem 103", // on screen
		"5 4 ListMarker 104",
		"6 5 none 0",
		"7 4 link 105", // on screen
		"14 7 generic 0",
		"8 14 StaticText 0",
		"15 8 InlineTextBox 0",
		"9 3 listitem 106", // off screen
		"10 9 ListMarker 107",
		"11 10 StaticText 0",
		"12 9 link 108",
		"13 2 heading 109", // off screen: not named by what was asked
	)
	nodes, err := PartialNodes(context.Background(), p, "F", []cdproto.BackendNodeID{103, 105, 999}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		got = append(got, string(n.NodeID))
	}
	want := []string{"1", "2", "3", "4", "5", "7", "14", "8"}
	if !slices.Equal(got, want) {
		t.Errorf("the nodes %v, want %v", got, want)
	}
	if p.calls[accessibility.CommandGetPartialAXTree] != 3 || p.calls[accessibility.CommandGetChildAXNodes] != 1 {
		t.Errorf("calls %v, want 3 getPartialAXTree and 1 getChildAXNodes (the generic's, not the marker's)", p.calls)
	}
	if _, err := PartialNodes(context.Background(), p, "F", []cdproto.BackendNodeID{998, 999}, nil); err == nil {
		t.Error("no element answered, and no error")
	}
}

// Given which elements hold others (the screen script's walk knows), the
// others are asked for first, and a holder only when their answers lack
// its node or one of its children: in a <main> of twenty sections, three
// on screen, the sections and the document are answered by what they
// hold, each paragraph is asked for its text, and <main> for its
// sections. The nodes are those of asking for every element.
func TestPartialNodesAskForHoldersLast(t *testing.T) {
	lines := []string{"1 - RootWebArea 100", "2 1 main 101"}
	var on []cdproto.BackendNodeID
	holders := map[cdproto.BackendNodeID]bool{100: false, 101: false} // (true: text of its own)
	on = append(on, 100, 101)
	for i := range 20 {
		s, h, p, a, b := 200+i, 300+i, 400+i, 500+i, 600+i
		lines = append(lines,
			fmt.Sprintf("s%d 2 region %d", i, s),
			fmt.Sprintf("h%d s%d heading %d", i, i, h), fmt.Sprintf("ht%d h%d StaticText 0", i, i),
			fmt.Sprintf("p%d s%d paragraph %d", i, i, p), fmt.Sprintf("pt%d p%d StaticText 0", i, i),
			fmt.Sprintf("a%d p%d link %d", i, i, a), fmt.Sprintf("at%d a%d StaticText 0", i, i),
			fmt.Sprintf("b%d s%d button %d", i, i, b), fmt.Sprintf("bt%d b%d StaticText 0", i, i))
		if i < 3 {
			on = append(on, cdproto.BackendNodeID(s), cdproto.BackendNodeID(h), cdproto.BackendNodeID(p), cdproto.BackendNodeID(a), cdproto.BackendNodeID(b))
			holders[cdproto.BackendNodeID(s)], holders[cdproto.BackendNodeID(p)] = false, true
		}
	}
	ids := func(nodes []*accessibility.Node) []string {
		var out []string
		for _, n := range nodes {
			out = append(out, string(n.NodeID))
		}
		return out
	}
	every := newPage(t, lines...)
	all, err := PartialNodes(context.Background(), every, "F", on, nil)
	if err != nil {
		t.Fatal(err)
	}
	spared := newPage(t, lines...)
	got, err := PartialNodes(context.Background(), spared, "F", on, holders)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), ids(all)) {
		t.Errorf("the nodes, holders last:\n%v\nwant those of asking for every element:\n%v", ids(got), ids(all))
	}
	if n := every.calls[accessibility.CommandGetPartialAXTree]; n != len(on) {
		t.Errorf("asking for every element made %d calls, want %d", n, len(on))
	}
	// The headings, links and buttons; each paragraph, for its text; then
	// <main>, for its sections.
	if n := spared.calls[accessibility.CommandGetPartialAXTree]; n != 13 {
		t.Errorf("holders last: %d getPartialAXTree calls, want 13", n)
	}
}

// heldChildren is a pageTree whose getChildAXNodes calls are answered
// only once together is under way at once.
type heldChildren struct {
	*pageTree
	together int
	mu       sync.Mutex
	inFlight int
	all      chan struct{} // closed when together calls are under way
}

func (h *heldChildren) Call(ctx context.Context, method string, params, res any) error {
	if method == accessibility.CommandGetChildAXNodes {
		h.mu.Lock()
		if h.inFlight++; h.inFlight == h.together {
			close(h.all)
		}
		h.mu.Unlock()
		select {
		case <-h.all:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return h.pageTree.Call(ctx, method, params, res)
}

// The children of what has no box of its own on screen (in each list
// item a node with no DOM element) are asked for all at once, not one
// after another: the page answers none of the three calls until all
// three are under way.
func TestPartialNodesAskForWhatHasNoBoxAtOnce(t *testing.T) {
	lines := []string{"1 - RootWebArea 100", "2 1 list 101"}
	var on []cdproto.BackendNodeID
	for i := range 3 {
		lines = append(lines,
			fmt.Sprintf("li%d 2 listitem %d", i, 200+i),
			fmt.Sprintf("m%d li%d generic 0", i, i),
			fmt.Sprintf("mt%d m%d StaticText 0", i, i))
		on = append(on, cdproto.BackendNodeID(200+i))
	}
	h := &heldChildren{pageTree: newPage(t, lines...), together: 3, all: make(chan struct{})}
	// (A bound on the failure only: calls made one after another wait
	// for it, and fail.)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	var nodes []*accessibility.Node
	go func() {
		var err error
		nodes, err = PartialNodes(ctx, h, "F", on, nil)
		done <- err
	}()
	select {
	case <-h.all:
	case err := <-done:
		t.Fatalf("PartialNodes ended (%v) before the three calls were under way at once", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var texts int
	for _, n := range nodes {
		if strings.HasPrefix(string(n.NodeID), "mt") {
			texts++
		}
	}
	if texts != 3 {
		t.Errorf("%d of the 3 texts, want all", texts)
	}
}

// A holder that lacks more than holderMostMissing children once the
// elements it holds have answered is not asked for: Chrome's answer
// would bring all its children (843 ms for a list of 10,000 items). Its
// node stays, naming children no answer holds. One that lacks
// holderMostMissing is asked, and its children are all there; and so is
// one that holds text of its own, which is on screen with it.
func TestPartialNodesLeaveALongListUnread(t *testing.T) {
	for _, c := range []struct {
		items       int
		text, asked bool
	}{{3 + holderMostMissing, false, true}, {4 + holderMostMissing, false, false}, {4 + holderMostMissing, true, true}} {
		lines := []string{"1 - RootWebArea 100", "2 1 list 101"}
		for i := range c.items {
			lines = append(lines, fmt.Sprintf("li%d 2 listitem %d", i, 200+i), fmt.Sprintf("t%d li%d StaticText 0", i, i))
		}
		p := newPage(t, lines...)
		on := []cdproto.BackendNodeID{101, 200, 201, 202}
		nodes, err := PartialNodes(context.Background(), p, "F", on, map[cdproto.BackendNodeID]bool{101: c.text})
		if err != nil {
			t.Fatal(err)
		}
		items := 0
		var list *accessibility.Node
		for _, n := range nodes {
			if strings.HasPrefix(string(n.NodeID), "li") {
				items++
			}
			if n.NodeID == "2" {
				list = n
			}
		}
		calls, want := p.calls[accessibility.CommandGetPartialAXTree], 3
		if c.asked {
			want = 4
		}
		if calls != want {
			t.Errorf("%d items, 3 on screen, text of its own %v: %d getPartialAXTree calls, want %d", c.items, c.text, calls, want)
		}
		wantItems := 3
		if c.asked {
			wantItems = c.items
		}
		if list == nil || len(list.ChildIDs) != c.items {
			t.Fatalf("%d items, 3 on screen: the list's node is missing, or names other children", c.items)
		}
		if items != wantItems {
			t.Errorf("%d items, 3 on screen, text of its own %v: %d items among the nodes, want %d", c.items, c.text, items, wantItems)
		}
	}
}
