package warm

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
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
		n := &accessibility.Node{NodeID: accessibility.NodeID(id), BackendDOMNodeID: cdproto.BackendNodeID(backend)}
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
	a.frameOf("F").walk = &walkRun{stop: func() {}, done: make(chan struct{})}
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
	a.frames["F"].walk = nil
	a.frameOf("F").tree = &tree{frame: "F", root: "1", since: since, born: versions.Add(1), nodes: map[accessibility.NodeID]*accessibility.Node{"1": root, "7": old}}
	a.mu.Unlock()
	if err := a.apply(ctx); err != nil {
		t.Fatal(err)
	}
	got := a.frames["F"].tree.nodes["7"]
	if v, _ := got.Properties[0].Value.Value.MarshalJSON(); string(v) != `"true"` {
		t.Errorf("node 7 is checked=%s in the warm tree, want true", v)
	}
	a.mu.Lock()
	if len(a.orphans) != 0 {
		t.Errorf("%d orphans left once no walk is under way", len(a.orphans))
	}
	// An orphan is not for a tree that lacked the node then: when such a
	// tree has it later, it fetched it since, fresher than the event.
	a.frameOf("G").walk = &walkRun{stop: func() {}, done: make(chan struct{})}
	a.mu.Unlock()
	a.OnEvent(accessibility.NodesUpdated.Method, jsonv2.Value(`{"nodes":[{"nodeId":"9","ignored":false,"role":{"type":"role","value":"button"},"name":{"type":"computedString","value":"Old name"}}]}`))
	if err := a.apply(ctx); err != nil {
		t.Fatal(err)
	}
	fresh := &accessibility.Node{NodeID: "9", Role: &accessibility.Value{Type: "role", Value: jsonv2.Value(`"button"`)},
		Name: &accessibility.Value{Type: "computedString", Value: jsonv2.Value(`"New name"`)}, ParentID: "1"}
	a.frames["F"].tree.nodes["9"] = fresh
	root.ChildIDs = append(root.ChildIDs, "9")
	a.mu.Lock()
	a.frames["G"].walk = nil
	a.mu.Unlock()
	if err := a.apply(ctx); err != nil {
		t.Fatal(err)
	}
	if n := a.frames["F"].tree.nodes["9"]; n != fresh {
		t.Errorf("the event older than the fetch replaced node 9: %s", n.Name.Value)
	}
}

// children is a Caller that answers getChildAXNodes from a table, as
// Chrome would for the page after the change, and counts the calls.
type children struct {
	t     *testing.T
	kids  map[accessibility.NodeID]string // node -> its children's JSON
	root  string                          // the root's JSON, for getRootAXNode
	mu    sync.Mutex                      // a walk calls from several goroutines
	asked []accessibility.NodeID          // guarded by mu
}

func (c *children) Call(ctx context.Context, method string, params, res any) error {
	if method == accessibility.CommandGetRootAXNode && c.root != "" {
		return jsonv2.Unmarshal([]byte(`{"node":`+c.root+`}`), res)
	}
	p, ok := params.(accessibility.GetChildAXNodesParams)
	if method != accessibility.CommandGetChildAXNodes || !ok {
		c.t.Errorf("unexpected call %s", method)
		return errors.New("unexpected call")
	}
	c.mu.Lock()
	c.asked = append(c.asked, p.ID)
	c.mu.Unlock()
	return jsonv2.Unmarshal([]byte(`{"nodes":[`+c.kids[p.ID]+`]}`), res)
}

// Focus moving into an aria-hidden section makes Chrome include the
// section again: its children, until then children of the section's
// parent, come in an event with the section as their new parent, and no
// event names the section or that parent. The tree must gain the section.
func TestANodeThatChangedParentHasItsParentsRefetched(t *testing.T) {
	node := func(id, parent string, ignored bool, kids ...string) string {
		ks := `[]`
		if len(kids) > 0 {
			ks = `["` + strings.Join(kids, `","`) + `"]`
		}
		role := `"region"`
		if ignored {
			role = `"none"`
		}
		return `{"nodeId":"` + id + `","ignored":` + strconv.FormatBool(ignored) + `,"role":{"type":"role","value":` + role + `},"parentId":"` + parent + `","childIds":` + ks + `}`
	}
	decode := func(s string) *accessibility.Node {
		var n accessibility.Node
		if err := jsonv2.Unmarshal([]byte(s), &n); err != nil {
			t.Fatal(err)
		}
		return &n
	}
	// Before: main (1) holds the hidden section's children 3 and 4
	// directly; the section (2) is not in the tree.
	c := &children{t: t, kids: map[accessibility.NodeID]string{
		"1": node("2", "1", false, "3", "4"),
		"2": node("3", "2", false) + `,` + node("4", "2", false),
	}}
	a := New(c, nil, nil)
	tr := &tree{frame: "F", root: "1", born: versions.Add(1), nodes: map[accessibility.NodeID]*accessibility.Node{}}
	for _, s := range []string{node("1", "", false, "3", "4"), node("3", "1", true), node("4", "1", true)} {
		n := decode(s)
		tr.nodes[n.NodeID] = n
	}
	a.frameOf("F").tree = tr
	a.OnEvent(accessibility.NodesUpdated.Method, jsonv2.Value(`{"nodes":[`+node("3", "2", false)+`,`+node("4", "2", false)+`]}`))
	if err := a.apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a.frames["F"].tree != tr {
		t.Fatal("the tree was dropped")
	}
	if got := tr.nodes["1"].ChildIDs; !slices.Equal(got, []accessibility.NodeID{"2"}) {
		t.Errorf("main's children are %v, want [2]: the section is missing", got)
	}
	if s := tr.nodes["2"]; s == nil || !slices.Equal(s.ChildIDs, []accessibility.NodeID{"3", "4"}) {
		t.Errorf("the section is %v, want it with children [3 4]", s)
	}
	// Main is asked once for the two nodes that left it, the new section
	// once (3 and 4 flipped: their own subtrees are asked too).
	asked := map[accessibility.NodeID]int{}
	for _, id := range c.asked {
		asked[id]++
	}
	if asked["1"] != 1 || asked["2"] != 1 {
		t.Errorf("children asked of %v, want main (1) and the section (2) once each", c.asked)
	}
}

// Chrome answers getChildAXNodes with the children of an ignored child
// too: a walk makes no call below a node whose children all came in the
// answer that named it, and still holds every node; a node with a child
// missing from that answer is asked.
func TestAWalkAsksNoNodeWhoseChildrenCameWithIt(t *testing.T) {
	node := func(id, parent, role string, ignored bool, kids ...string) string {
		ks := `[]`
		if len(kids) > 0 {
			ks = `["` + strings.Join(kids, `","`) + `"]`
		}
		return `{"nodeId":"` + id + `","ignored":` + strconv.FormatBool(ignored) + `,"role":{"type":"role","value":"` + role + `"},"parentId":"` + parent + `","childIds":` + ks + `}`
	}
	c := &children{t: t, root: node("1", "", "RootWebArea", false, "2", "7"), kids: map[accessibility.NodeID]string{
		// The root's answer: the ignored 2 and its children 3 and 4, and
		// the ignored 7 without its child 8 (detached when Chrome built
		// the answer, say).
		"1": strings.Join([]string{node("2", "1", "generic", true, "3", "4"), node("3", "2", "button", false, "5"),
			node("4", "2", "link", false, "6"), node("7", "1", "generic", true, "8")}, ","),
		"3": node("5", "3", "StaticText", false, "9"), // InlineTextBoxes below: not asked
		"4": node("6", "4", "StaticText", false),
		"7": node("8", "7", "paragraph", false),
	}}
	counts := new(Counts)
	a := New(c, nil, counts)
	walked := make(chan Walk, 1)
	a.OnWalked = func(frame cdproto.FrameID, w Walk) { walked <- w }
	a.startWalk("F", "L")
	w := <-walked
	tr := a.frames["F"].tree
	if tr == nil {
		t.Fatal("the walk's tree was not kept")
	}
	asked := slices.Clone(c.asked)
	slices.Sort(asked)
	if want := []accessibility.NodeID{"1", "3", "4", "7"}; !slices.Equal(asked, want) {
		t.Errorf("children asked of %v, want %v: not of 2, whose children came with it", asked, want)
	}
	if got, want := counts.Asked.Load(), int64(4); got != want {
		t.Errorf("Asked = %d, want %d", got, want)
	}
	if got, want := counts.Spared.Load(), int64(1); got != want {
		t.Errorf("Spared = %d, want %d", got, want)
	}
	for _, id := range []accessibility.NodeID{"2", "3", "4", "5", "6", "7", "8"} {
		if tr.nodes[id] == nil {
			t.Errorf("node %s is missing from the walked tree", id)
		}
	}
	if w.Nodes != 8 || w.Asked != 4 || w.Spared != 1 || w.Took <= 0 {
		t.Errorf("the walk is told as %+v, want 8 nodes, 4 calls, 1 spared", w)
	}
}

// One call in flight at a time while a read is under way: a walk goes on
// beside a host that reads all the time, and the read's calls wait
// behind one of the walk's at most.
func TestAWalkGoesOnOneCallAtATimeDuringReads(t *testing.T) {
	c := new(concurrent)
	paragraphs(&c.children, t, 30)
	a := New(c, func() bool { return true }, nil) // a read is always under way
	walked := make(chan Walk, 1)
	a.OnWalked = func(frame cdproto.FrameID, w Walk) { walked <- w }
	a.startWalk("F", "L")
	select {
	case w := <-walked:
		if w.Nodes != 61 || w.Asked != 31 {
			t.Errorf("the walk is told as %+v, want 61 nodes and 31 calls", w)
		}
	case <-time.After(time.Minute): // a bound for a walk that waits for the reads to end, which they never do
		t.Fatal("the walk did not end while reads were under way")
	}
	if m := c.most.Load(); m != 1 {
		t.Errorf("%d calls in flight at once during a read, want 1", m)
	}
}

// While a read of a screen holds the walks (HoldWalks: it asks Chrome
// for the nodes on screen), a walk sends no call, not even the one at a
// time it sends during other reads: Chrome would answer it before the
// read's calls. Let go, the walk goes on to its end.
func TestAWalkSendsNothingWhileAScreenReadHoldsIt(t *testing.T) {
	c := &gated{hold: "1", held: make(chan struct{}), open: make(chan struct{})}
	paragraphs(&c.children, t, 30)
	counts := new(Counts)
	a := New(c, func() bool { return true }, counts) // a read is always under way
	walked := make(chan Walk, 1)
	a.OnWalked = func(frame cdproto.FrameID, w Walk) { walked <- w }
	a.startWalk("F", "L")
	<-c.held // the walk asks for the root's children
	release := a.HoldWalks()
	close(c.open) // the root's children come: 30 paragraphs to ask for
	// The walk waits, its call answered and none sent, or it ends having
	// sent them.
	for counts.Held.Load() == 0 {
		select {
		case w := <-walked:
			release()
			t.Fatalf("the walk went on while a read of the screen held it: %d calls", w.Asked)
		default:
			runtime.Gosched()
		}
	}
	c.mu.Lock()
	asked := slices.Clone(c.asked)
	c.mu.Unlock()
	if len(asked) != 1 || asked[0] != "1" {
		t.Errorf("while held, the walk asked for %v, want [1] alone", asked)
	}
	release()
	release() // (once is enough)
	if w := <-walked; w.Nodes != 61 || w.Asked != 31 {
		t.Errorf("the walk let go is told as %+v, want 61 nodes and 31 calls", w)
	}
	if h := a.paused.free(); h != nil {
		t.Error("the walks are still held after the read let go")
	}
}

// concurrent is children that also counts the calls in flight at once.
type concurrent struct {
	children
	now, most atomic.Int32
}

func (c *concurrent) Call(ctx context.Context, method string, params, res any) error {
	n := c.now.Add(1)
	defer c.now.Add(-1)
	for m := c.most.Load(); n > m && !c.most.CompareAndSwap(m, n); m = c.most.Load() {
	}
	runtime.Gosched()
	return c.children.Call(ctx, method, params, res)
}

// Role decodes a node's role as JSON, escapes included, and remembers
// each role's name: a read asks for every node's.
func TestRole(t *testing.T) {
	for raw, want := range map[string]string{
		`"StaticText"`: "StaticText", `"a\"b\u00e9"`: "a\"bé", `null`: "", `7`: "", `"StaticText"  `: "StaticText",
	} {
		n := &accessibility.Node{Role: &accessibility.Value{Type: "role", Value: jsonv2.Value(raw)}}
		for range 2 { // decoded, then remembered
			if got := Role(n); got != want {
				t.Errorf("Role(%s) = %q, want %q", raw, got, want)
			}
		}
	}
	if got := Role(&accessibility.Node{}); got != "" {
		t.Errorf("Role of a node with no role = %q", got)
	}
	text := &accessibility.Node{Role: &accessibility.Value{Value: jsonv2.Value(`"StaticText"`)}}
	if testing.AllocsPerRun(100, func() { Role(text) }) != 0 {
		t.Error("Role allocates for a role it has seen: it decodes the JSON again")
	}
}

// A read of an unchanged tree gets the nodes it got before, not a new
// walk over the tree; a change of version orders them again.
func TestOrderedIsKeptUntilTheTreeChanges(t *testing.T) {
	node := func(id string, kids ...accessibility.NodeID) *accessibility.Node {
		return &accessibility.Node{NodeID: accessibility.NodeID(id), ChildIDs: kids}
	}
	tr := &tree{root: "1", version: versions.Add(1), nodes: map[accessibility.NodeID]*accessibility.Node{
		"1": node("1", "2", "3"), "2": node("2"), "3": node("3"),
	}}
	first := tr.ordered()
	if again := tr.ordered(); &again[0] != &first[0] {
		t.Error("the unchanged tree was ordered again")
	}
	tr.nodes["1"] = node("1", "3")
	tr.version = versions.Add(1)
	got := tr.ordered()
	if len(got) != 2 || got[1].NodeID != "3" || tr.nodes["2"] != nil {
		t.Errorf("after the change: %d nodes, node 2 kept %v; want 1 and 3, node 2 forgotten", len(got), tr.nodes["2"] != nil)
	}
}

// gated answers a walk as concurrent does, but holds the answer for one
// node until open is closed; and getFullAXTree with the root alone,
// counting those calls.
type gated struct {
	concurrent
	hold   accessibility.NodeID
	held   chan struct{} // closed when the held call arrived
	open   chan struct{}
	wholes atomic.Int32
}

func (c *gated) Call(ctx context.Context, method string, params, res any) error {
	switch method {
	case accessibility.CommandEnable:
		return nil
	case accessibility.CommandGetFullAXTree:
		c.wholes.Add(1)
		return jsonv2.Unmarshal([]byte(`{"nodes":[`+c.root+`]}`), res)
	}
	if p, ok := params.(accessibility.GetChildAXNodesParams); ok && p.ID == c.hold {
		close(c.held)
		<-c.open
	}
	return c.concurrent.Call(ctx, method, params, res)
}

// newGated is a page of ten paragraphs, whose walk stops at the first
// paragraph until open is closed.
func newGated(t *testing.T) *gated {
	c := &gated{hold: "s0", held: make(chan struct{}), open: make(chan struct{})}
	paragraphs(&c.children, t, 10)
	return c
}

// paragraphs makes c answer a walk of a page of n paragraphs (s0, s1,
// …) under the root (1), each with its text (t0, t1, …).
func paragraphs(c *children, t *testing.T, n int) {
	node := func(id, parent, role string, kids ...string) string {
		ks := `[]`
		if len(kids) > 0 {
			ks = `["` + strings.Join(kids, `","`) + `"]`
		}
		return `{"nodeId":"` + id + `","ignored":false,"role":{"type":"role","value":"` + role + `"},"parentId":"` + parent + `","childIds":` + ks + `}`
	}
	c.t, c.kids = t, map[accessibility.NodeID]string{}
	var top, tops []string
	for i := range n {
		id, text := "s"+strconv.Itoa(i), "t"+strconv.Itoa(i)
		top = append(top, id)
		tops = append(tops, node(id, "1", "paragraph", text))
		c.kids[accessibility.NodeID(id)] = node(text, id, "StaticText")
	}
	c.root = node("1", "", "RootWebArea", top...)
	c.kids["1"] = strings.Join(tops, ",")
}

// A read right after a change, while the document's walk is under way,
// waits for the walk when it should end sooner than a getFullAXTree of
// the document takes, and is answered from the walked tree; the walk,
// held to one call at a time while reads are under way, goes at full
// width while a read waits for it.
func TestAReadWaitsForAWalkThatEndsSoonerThanAWholeRead(t *testing.T) {
	c := newGated(t)
	counts := new(Counts)
	a := New(c, func() bool { return true }, counts) // a read is always under way
	f := a.frameOf("F")
	f.cost, f.size, f.measured = time.Hour, 21, true // the last getFullAXTree: 21 nodes in an hour
	a.OnSignal(1, 1)                                 // the page changed, and its watchers told of it, before the walk
	a.startWalk("F", "L")
	<-c.held // the root and its ten paragraphs walked; the first paragraph's text held
	type answer struct {
		nodes []*accessibility.Node
		err   error
	}
	done := make(chan answer, 1)
	go func() {
		nodes, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Watcher: 1, Mutations: 1, Quiet: time.Second})
		done <- answer{nodes, err}
	}()
	for a.awaiting.Load() == 0 { // the read waits for the walk
		select {
		case r := <-done:
			t.Fatalf("the read did not wait for the walk: %d nodes, %v, %d getFullAXTree", len(r.nodes), r.err, c.wholes.Load())
		default:
			runtime.Gosched()
		}
	}
	close(c.open)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(r.nodes) != 21 || c.wholes.Load() != 0 {
		t.Errorf("the read got %d nodes with %d getFullAXTree; want the walked tree's 21 and none", len(r.nodes), c.wholes.Load())
	}
	if got := counts.Tally(); got != (Tally{Changed: 1, Awaited: 1}) {
		t.Errorf("counted %+v, want one read of the kept tree right after a change, after the walk", got)
	}
	if m := c.most.Load(); m < 2 {
		t.Errorf("at most %d calls of the walk in flight while the read waited for it, want more than one", m)
	}
}

// The same read, when the walk would end later than a getFullAXTree of
// the document takes, reads the document whole at once.
func TestAReadDoesNotWaitForAWalkThatEndsLaterThanAWholeRead(t *testing.T) {
	c := newGated(t)
	defer close(c.open)
	counts := new(Counts)
	a := New(c, nil, counts)
	f := a.frameOf("F")
	f.cost, f.size, f.measured = time.Minute, 1e9, true // the last getFullAXTree: a billion nodes in a minute
	a.startWalk("F", "L")
	<-c.held
	// A read that waits for the walk is stopped, and fails.
	ctx, cancel := context.WithCancel(context.Background())
	read := make(chan struct{})
	go func() {
		for {
			select {
			case <-read:
				return
			default:
			}
			if a.awaiting.Load() > 0 {
				cancel()
				return
			}
			runtime.Gosched()
		}
	}()
	nodes, _, err := a.Nodes(ctx, "F", "L", Activity{OK: true, Mutations: 1, Quiet: time.Second})
	close(read)
	cancel()
	if err != nil {
		t.Fatalf("the read waited for a walk far from its end: %v", err)
	}
	if len(nodes) != 1 || c.wholes.Load() != 1 {
		t.Errorf("the read got %d nodes with %d getFullAXTree; want the one whole read's root", len(nodes), c.wholes.Load())
	}
	if got := counts.Tally(); got != (Tally{Whole: 1}) {
		t.Errorf("counted %+v, want one whole read", got)
	}
}

// A walk's pace is the one it keeps at full width, which it keeps while
// a read waits for it, not that of the whole walk, held back by reads.
func TestAWalksPaceIsItsPaceAtFullWidth(t *testing.T) {
	var p pace
	if _, ok := p.left(3000, time.Now()); ok {
		t.Error("a walk with no nodes yet has a pace")
	}
	start := time.Now().Add(-10200 * time.Millisecond)
	p.observe(1000, 10*time.Second, false)      // 1,000 nodes in 10 s beside reads
	p.observe(2000, 200*time.Millisecond, true) // 1,000 more in 200 ms alone
	if left, ok := p.left(3000, start); !ok || left != 200*time.Millisecond {
		t.Errorf("left = %v, %v; want 200ms: 1,000 nodes more at 1,000 in 200 ms", left, ok)
	}
	if _, ok := p.left(2000, start); ok {
		t.Error("a walk with every node the last getFullAXTree had has a time left")
	}
	var q pace
	q.observe(500, 50*time.Millisecond, true) // too short a time at full width to tell: the whole walk's pace
	if left, ok := q.left(1000, time.Now().Add(-time.Second)); !ok || left < 900*time.Millisecond {
		t.Errorf("left = %v, %v; want about 1s: 500 nodes more at 500 a second", left, ok)
	}
}

// Chrome holds a changed node's event back (its 250 ms window): a walk
// that ran while a paragraph's text was replaced holds the paragraph as
// fetched before (its old text node's id) and the new text node fetched
// after. The first read of that tree waits for the paragraph's event
// rather than answer a paragraph with no text.
func TestTheFirstReadOfATreeWalkedDuringAChangeWaitsForItsEvents(t *testing.T) {
	c := &heldBack{children: children{t: t, kids: map[accessibility.NodeID]string{
		"13": `{"nodeId":"16","ignored":false,"role":{"type":"role","value":"StaticText"},"name":{"type":"computedString","value":"Step 1"},"parentId":"13","childIds":[]}`,
	}}}
	counts := new(Counts)
	a := New(c, nil, counts)
	c.a = a
	node := func(s string) *accessibility.Node {
		var n accessibility.Node
		if err := jsonv2.Unmarshal([]byte(s), &n); err != nil {
			t.Fatal(err)
		}
		return &n
	}
	a.mu.Lock()
	since := a.seq + 1
	a.mu.Unlock()
	a.OnSignal(7, 1) // the watchers tell of the change, during the walk
	tr := &tree{frame: "F", loader: "L", root: "1", since: since, born: versions.Add(1), mixed: true, nodes: map[accessibility.NodeID]*accessibility.Node{
		"1":  node(`{"nodeId":"1","ignored":false,"role":{"type":"role","value":"RootWebArea"},"childIds":["13"],"backendDOMNodeId":10}`),
		"13": node(`{"nodeId":"13","ignored":false,"role":{"type":"role","value":"paragraph"},"parentId":"1","childIds":["15"],"backendDOMNodeId":13}`),
		"16": node(`{"nodeId":"16","ignored":false,"role":{"type":"role","value":"StaticText"},"name":{"type":"computedString","value":"Step 1"},"parentId":"13","childIds":[]}`),
	}}
	a.mu.Lock()
	tr.version, tr.kept = tr.born, a.seq
	a.frameOf("F").tree = tr
	a.mu.Unlock()
	// The read counted no change: its count was read before it.
	nodes, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Mutations: 0, Quiet: time.Hour, Watcher: 7})
	if err != nil {
		t.Fatal(err)
	}
	var ids []accessibility.NodeID
	for _, n := range nodes {
		ids = append(ids, n.NodeID)
	}
	if want := []accessibility.NodeID{"1", "13", "16"}; !slices.Equal(ids, want) {
		t.Errorf("the read answered nodes %v, want %v: the paragraph with its new text", ids, want)
	}
	if got := counts.Tally(); got.Waited != 1 {
		t.Errorf("counted %+v, want one read after waiting for Chrome's events", got)
	}
	// The next read of the unchanged page needs no wait.
	if _, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Mutations: 1, Quiet: time.Hour, Watcher: 7}); err != nil {
		t.Fatal(err)
	}
	if got := counts.Tally(); got.Quiet != 1 {
		t.Errorf("counted %+v after a second read, want it answered as unchanged", got)
	}
}

// heldBack answers barriers and getChildAXNodes, and sends the
// paragraph's nodesUpdated only at the barrier made once Chrome's window
// is over: the third getPartialAXTree.
type heldBack struct {
	children
	a        *Trees
	barriers int
}

func (c *heldBack) Call(ctx context.Context, method string, params, res any) error {
	switch method {
	case accessibility.CommandEnable:
		return nil
	case accessibility.CommandGetPartialAXTree:
		c.barriers++
		if c.barriers == 3 {
			c.a.OnEvent(accessibility.NodesUpdated.Method, jsonv2.Value(`{"nodes":[{"nodeId":"13","ignored":false,"role":{"type":"role","value":"paragraph"},"parentId":"1","childIds":["16"],"backendDOMNodeId":13}]}`))
		}
		return jsonv2.Unmarshal([]byte(`{"nodes":[]}`), res)
	}
	return c.children.Call(ctx, method, params, res)
}

// A walk tells when a node's children were other than it said when it
// was fetched: the page changed during the walk.
func TestAWalkTellsOfAChangeDuringIt(t *testing.T) {
	for _, tc := range []struct {
		text  string // the id of the paragraph's text the walk finds
		mixed bool
	}{{"15", false}, {"16", true}} {
		c := &children{t: t, root: `{"nodeId":"1","ignored":false,"role":{"type":"role","value":"RootWebArea"},"childIds":["13"]}`, kids: map[accessibility.NodeID]string{
			"1":  `{"nodeId":"13","ignored":false,"role":{"type":"role","value":"paragraph"},"parentId":"1","childIds":["15"]}`,
			"13": `{"nodeId":"` + tc.text + `","ignored":false,"role":{"type":"role","value":"StaticText"},"parentId":"13","childIds":[]}`,
		}}
		a := New(c, nil, nil)
		walked := make(chan Walk, 1)
		a.OnWalked = func(frame cdproto.FrameID, w Walk) { walked <- w }
		a.startWalk("F", "L")
		if w := <-walked; w.Mixed != tc.mixed {
			t.Errorf("the paragraph's text is %s, walked as %+v: want Mixed %v", tc.text, w, tc.mixed)
		}
		if got := a.frames["F"].tree.mixed; got != tc.mixed {
			t.Errorf("the paragraph's text is %s: the tree's mixed is %v", tc.text, got)
		}
	}
}

// wholeAndWalk answers getFullAXTree with the page its table describes
// (root, then every node the table holds, InlineTextBoxes included, and
// the first paragraph's text twice, as Chrome can answer a node) and a
// walk from the table, as children does.
type wholeAndWalk struct {
	children
	boxes []string // InlineTextBox nodes, in getFullAXTree's answer alone
}

func (c *wholeAndWalk) Call(ctx context.Context, method string, params, res any) error {
	switch method {
	case accessibility.CommandEnable:
		return nil
	case accessibility.CommandGetFullAXTree:
		c.mu.Lock()
		all := []string{c.root}
		for _, id := range []accessibility.NodeID{"1", "s0", "s1", "s0"} {
			all = append(all, c.kids[id])
		}
		all = append(all, c.boxes...)
		c.mu.Unlock()
		return jsonv2.Unmarshal([]byte(`{"nodes":[`+strings.Join(all, ",")+`]}`), res)
	}
	return c.children.Call(ctx, method, params, res)
}

// A read of a document not yet walked reads it whole, and the version it
// answers names that fetch; a walk that ends with exactly the fetch's
// nodes keeps that version, so that what the read made of the fetch
// serves the walked tree too, and the mutations the page's watchers had
// counted then: a read that finds no more, even a moment after the last,
// is answered as unchanged. A walk that found the page changed has a
// version of its own, and its first read is one right after a change.
func TestAWalkedTreeAsItsFetchHadItKeepsTheFetchsVersion(t *testing.T) {
	for _, changed := range []bool{false, true} {
		t.Run(fmt.Sprintf("changed=%v", changed), func(t *testing.T) {
			node := func(id, parent, role, name string, kids ...string) string {
				ks := `[]`
				if len(kids) > 0 {
					ks = `["` + strings.Join(kids, `","`) + `"]`
				}
				return `{"nodeId":"` + id + `","ignored":false,"role":{"type":"role","value":"` + role + `"},"name":{"type":"computedString","value":"` + name + `"},"parentId":"` + parent + `","childIds":` + ks + `}`
			}
			c := &wholeAndWalk{children: children{t: t, kids: map[accessibility.NodeID]string{}}}
			c.root = node("1", "", "RootWebArea", "Page", "s0", "s1")
			c.kids["1"] = node("s0", "1", "paragraph", "", "t0") + "," + node("s1", "1", "paragraph", "", "t1")
			c.kids["s0"] = node("t0", "s0", "StaticText", "First", "b0")
			// The second paragraph's answer brings its text's box too, as
			// Chrome's answer for an ignored node can: the walk has it.
			box1 := node("b1", "t1", "InlineTextBox", "Second")
			c.kids["s1"] = node("t1", "s1", "StaticText", "Second", "b1") + "," + box1
			c.boxes = []string{node("b0", "t0", "InlineTextBox", "First")}

			a := New(c, nil, nil)
			walked := make(chan Walk, 1)
			a.OnWalked = func(_ cdproto.FrameID, w Walk) { walked <- w }
			ctx := context.Background()
			// The page's watchers counted 5 mutations, the last just now
			// (a page that has just loaded).
			seen := Activity{OK: true, Watcher: 1, Mutations: 5}
			nodes, first, err := a.Nodes(ctx, "F", "L", seen)
			if err != nil {
				t.Fatal(err)
			}
			if len(nodes) != 8 || first == 0 {
				t.Fatalf("the first read: %d nodes, version %d; want the fetch's 8 nodes and its version", len(nodes), first)
			}
			if _, again, err := a.Nodes(ctx, "F", "L", seen); err != nil || again != first {
				t.Fatalf("the fetch answered again: version %d (%v), want %d", again, err, first)
			}
			if changed { // the page changes after the fetch, before the walk
				c.mu.Lock()
				c.kids["s1"] = node("t1", "s1", "StaticText", "Changed", "b1") + "," + box1
				c.mu.Unlock()
				seen.Mutations, seen.Quiet = 6, Settle // Chrome's events for it came long ago
				a.OnSignal(seen.Watcher, 6)            // and the watchers' call, told of it
			}
			a.StartWalks()
			w := <-walked
			if w.AsFetched == changed {
				t.Errorf("the walk told AsFetched %v, want %v", w.AsFetched, !changed)
			}
			nodes, after, err := a.Nodes(ctx, "F", "L", seen)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.counts.Tally(); !changed && got.Quiet != 1 {
				t.Fatalf("the read after the walk: %v, want the kept tree, unchanged", got)
			} else if changed && got.Changed != 1 {
				t.Fatalf("the read after the walk: %v, want the kept tree, right after a change", got)
			}
			if len(nodes) != 6 {
				t.Errorf("the kept tree answered %d nodes, want 6 (one InlineTextBox)", len(nodes))
			}
			switch {
			case !changed && after != first:
				t.Errorf("the walked tree, as the fetch had it, answers version %d, want the fetch's %d", after, first)
			case changed && (after == first || after == 0):
				t.Errorf("the walked tree, not as the fetch had it, answers version %d, want its own (the fetch's: %d)", after, first)
			}
		})
	}
}

// loading is a page of ten paragraphs whose walk stops at the first
// until open is closed, as gated, and whose getFullAXTree says the
// document busy while busy holds, as Chrome does until its load ends.
type loading struct {
	gated
	busy atomic.Bool
}

func (c *loading) Call(ctx context.Context, method string, params, res any) error {
	if method != accessibility.CommandGetFullAXTree {
		return c.gated.Call(ctx, method, params, res)
	}
	c.wholes.Add(1)
	root := c.root
	if c.busy.Load() {
		root = strings.Replace(root, `"ignored":false`, `"ignored":false,"properties":[{"name":"busy","value":{"type":"boolean","value":true}}]`, 1)
	}
	return jsonv2.Unmarshal([]byte(`{"nodes":[`+root+`]}`), res)
}

// A document read whole while it loads is busy; its load ends with no
// DOM mutation, so the page's watchers see nothing, and Chrome's
// loadComplete alone tells of it. The read after the load is answered
// by the fetch made at the load, never by the one from before, which a
// fetch at the load must not be kept behind either; and when no fetch
// was made at the load (its page's watchers did not answer then), by a
// new one.
func TestAFetchFromBeforeTheLoadIsNotThePageLoaded(t *testing.T) {
	for _, fetchAtLoad := range []bool{true, false} {
		t.Run(fmt.Sprintf("fetchAtLoad=%v", fetchAtLoad), func(t *testing.T) {
			c := &loading{}
			c.hold, c.held, c.open = "s0", make(chan struct{}), make(chan struct{})
			defer close(c.open) // the walk after the load, held until the test ends
			paragraphs(&c.children, t, 10)
			c.busy.Store(true)

			a := New(c, nil, nil)
			seen := Activity{OK: true, Watcher: 1}
			fetched := make(chan struct{}, 1)
			a.Loaded = func(context.Context, cdproto.FrameID) (cdproto.LoaderID, Activity, error) {
				if !fetchAtLoad {
					defer func() { fetched <- struct{}{} }()
					return "L", Activity{}, nil
				}
				return "L", seen, nil
			}
			a.OnLoadFetched = func(cdproto.FrameID) { fetched <- struct{}{} }
			ctx := context.Background()

			nodes, before, err := a.Nodes(ctx, "F", "L", seen)
			if err != nil {
				t.Fatal(err)
			}
			if !axBool(nodes[0], accessibility.PropertyNameBusy) {
				t.Fatal("the read while the page loads: its root is not busy")
			}
			c.busy.Store(false)
			a.OnEvent(accessibility.LoadComplete.Method, jsonv2.Value(`{"root":{"nodeId":"1","ignored":false,"frameId":"F"}}`))
			<-fetched
			nodes, after, err := a.Nodes(ctx, "F", "L", seen)
			if err != nil {
				t.Fatal(err)
			}
			if axBool(nodes[0], accessibility.PropertyNameBusy) || after == before {
				t.Errorf("the read after the load answered the fetch from before it (busy, version %d; before %d)", after, before)
			}
			if n := c.wholes.Load(); n != 2 {
				t.Errorf("%d getFullAXTree calls, want 2: the read's while loading, and one after the load", n)
			}
			want := Tally{Fetched: 1, Whole: 1} // the fetch made at the load, again
			if !fetchAtLoad {
				want = Tally{Whole: 2}
			}
			if got := a.counts.Tally(); got != want {
				t.Errorf("the reads: %v; want %v", got, want)
			}
		})
	}
}

// A read that runs its page-state script in a document just before a
// navigation commits, and asks for the tree just after, pairs the
// counts of the document before's watchers with the new document. The
// new document's watchers, installed by the next read, count from 0
// again: their equal counts must not make the fetch answer again, for
// the page changed before they were there to see it (watch showed a
// page's first state forever: it changed between the fetch and the
// watchers' start). The same watchers with the same counts do answer
// with it, and a fetch by the new watchers is not taken for the one
// before it.
func TestAFetchCountedByOtherWatchersDoesNotAnswer(t *testing.T) {
	c := &loading{}
	paragraphs(&c.children, t, 10)
	a := New(c, nil, nil)
	ctx := context.Background()
	before := Activity{OK: true, Watcher: 1} // the document before's, at its navigation
	nodes, first, err := a.Nodes(ctx, "F", "L", before)
	if err != nil {
		t.Fatal(err)
	}
	if axBool(nodes[0], accessibility.PropertyNameBusy) {
		t.Fatal("the first read: the root is busy")
	}
	if _, again, err := a.Nodes(ctx, "F", "L", before); err != nil || again != first {
		t.Fatalf("the same watchers, having seen nothing: version %d (err %v), want the fetch's again, %d", again, err, first)
	}
	if got, want := a.counts.Tally(), (Tally{Whole: 1, Fetched: 1}); got != want {
		t.Fatalf("the reads: %v; want %v", got, want)
	}

	c.busy.Store(true) // the page changed, before its new watchers were there
	now := Activity{OK: true, Watcher: 2}
	nodes, second, err := a.Nodes(ctx, "F", "L", now)
	if err != nil {
		t.Fatal(err)
	}
	if !axBool(nodes[0], accessibility.PropertyNameBusy) || second == first {
		t.Errorf("the read by the new document's watchers answered the fetch counted by the watchers before (version %d, the fetch's %d)", second, first)
	}
	if _, third, err := a.Nodes(ctx, "F", "L", now); err != nil || third != second {
		t.Errorf("the new watchers, having seen nothing: version %d (err %v), want their fetch's again, %d", third, err, second)
	}
	if n := c.wholes.Load(); n != 2 {
		t.Errorf("%d getFullAXTree calls, want 2", n)
	}
	if got, want := a.counts.Tally(), (Tally{Whole: 2, Fetched: 2}); got != want {
		t.Errorf("the reads: %v; want %v", got, want)
	}
}

// Rest stops the walk under way and lets go of every kept tree and
// fetch; it reports that Accessibility was on, for the caller to turn it
// off. After it no walk starts (StartWalks), and a loadComplete starts no
// fetch (Loaded is not asked).
func TestRestStopsTheWalkAndLetsGo(t *testing.T) {
	c := newGated(t)
	defer close(c.open)
	a := New(c, nil, nil)
	loaded := make(chan cdproto.FrameID, 1)
	a.Loaded = func(_ context.Context, f cdproto.FrameID) (cdproto.LoaderID, Activity, error) {
		loaded <- f
		return "L", Activity{}, nil
	}
	ctx := context.Background()
	seen := Activity{OK: true, Watcher: 1}
	if _, _, err := a.Nodes(ctx, "F", "L", seen); err != nil {
		t.Fatal(err)
	}
	a.StartWalks()
	<-c.held // the walk is under way, held at its first paragraph
	if !a.Walking() {
		t.Fatal("no walk under way before the rest")
	}
	if !a.Rest() {
		t.Error("Rest says Accessibility was off; the read turned it on")
	}
	a.mu.Lock()
	kept := 0
	for _, f := range a.frames {
		if f.tree != nil || f.fetched != nil {
			kept++
		}
	}
	a.mu.Unlock()
	if kept != 0 {
		t.Errorf("%d trees and fetches kept after the rest", kept)
	}
	// The stopped walk ends with its context; the held call is let go
	// at the end of the test.
	a.mu.Lock()
	w := a.peek("F").walk
	a.mu.Unlock()
	if w != nil {
		select {
		case <-w.done:
			t.Error("the walk ended while its call was held")
		default:
		}
	}
	a.deferWalk("G", "L", Activity{})
	a.StartWalks()
	a.OnEvent(accessibility.LoadComplete.Method, jsonv2.Value(`{"root":{"nodeId":"1","ignored":false,"frameId":"F"}}`))
	a.mu.Lock()
	walkingG := a.peek("G").walk != nil
	a.mu.Unlock()
	if walkingG {
		t.Error("a walk started after the rest")
	}
	select {
	case f := <-loaded:
		t.Errorf("the load of frame %s after the rest was fetched", f)
	default:
	}
	if a.Rest() {
		t.Error("a second Rest says Accessibility was still on")
	}
}

// A walk that ends with exactly the nodes of the document's last fetch
// keeps that fetch's version, an old one; the events that came during
// the walk, applied meanwhile by the read of another document of the
// session, wait as orphans for the tree kept after them, and this is
// one: they are applied to it, not dropped. (A tree's birth is when it
// was kept, whatever version it answers.)
func TestEventsOfAWalkThatEndsAsFetchedAreApplied(t *testing.T) {
	a := New(noCalls{t}, nil, nil)
	ctx := context.Background()
	checkbox := func(checked string) *accessibility.Node {
		return &accessibility.Node{NodeID: "7", Role: &accessibility.Value{Type: "role", Value: jsonv2.Value(`"checkbox"`)}, ParentID: "1", BackendDOMNodeID: 70,
			Properties: []*accessibility.Property{{Name: "checked", Value: &accessibility.Value{Type: "tristate", Value: jsonv2.Value(`"` + checked + `"`)}}}}
	}
	root := &accessibility.Node{NodeID: "1", ChildIDs: []accessibility.NodeID{"7"}, BackendDOMNodeID: 10}
	// The document was read whole; then its walk started.
	f := &fetched{nodes: []*accessibility.Node{root, checkbox("false")}, loader: "L", mutations: 5, version: versions.Add(1)}
	w := &walkRun{stop: func() {}, done: make(chan struct{}), loader: "L", start: time.Now()}
	a.mu.Lock()
	a.frameOf("F").fetched = f
	a.frames["F"].walk = w
	since := a.seq + 1
	a.mu.Unlock()
	// The box is checked during the walk, after the walk fetched it; a
	// read of another document applies the event.
	a.OnEvent(accessibility.NodesUpdated.Method, jsonv2.Value(`{"nodes":[{"nodeId":"7","ignored":false,"role":{"type":"role","value":"checkbox"},"properties":[{"name":"checked","value":{"type":"tristate","value":"true"}}],"parentId":"1","backendDOMNodeId":70}]}`))
	if err := a.apply(ctx); err != nil {
		t.Fatal(err)
	}
	// The walk ends with the nodes as the fetch had them.
	tr := &tree{frame: "F", root: "1", nodes: map[accessibility.NodeID]*accessibility.Node{"1": root, "7": checkbox("false")}}
	done, kept := a.keepWalked("F", w, tr, nil, since, "L", Activity{}, f)
	if !kept || !done.AsFetched {
		t.Fatalf("the walk was kept %v, as fetched %v; want both", kept, done.AsFetched)
	}
	if err := a.apply(ctx); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.frames["F"].tree.nodes["7"].Properties[0].Value.Value.MarshalJSON(); string(v) != `"true"` {
		t.Errorf("node 7 is checked=%s in the warm tree, want true: the event during the walk was lost", v)
	}
	if a.frames["F"].tree.version == f.version {
		t.Error("the tree changed by the event still answers the fetch's version")
	}
}

// Forget lets go of everything kept of a frame that is gone, and its walk
// under way ends with nothing kept.
func TestForgetLetsGoOfAFrameGone(t *testing.T) {
	c := newGated(t)
	a := New(c, nil, nil)
	ctx := context.Background()
	if _, _, err := a.Nodes(ctx, "F", "L", Activity{OK: true, Watcher: 1}); err != nil {
		t.Fatal(err)
	}
	a.StartWalks()
	<-c.held // the walk is under way, held at its first paragraph
	if n := a.Held().Frames; n != 1 {
		t.Fatalf("before: the trees hold %d frames, want 1", n)
	}
	a.mu.Lock()
	w := a.peek("F").walk
	a.mu.Unlock()
	if w == nil {
		t.Fatal("no walk under way")
	}
	a.Forget("F")
	close(c.open)
	<-w.done
	if n := a.Held().Frames; n != 0 {
		t.Errorf("the trees hold %d frames after the only one was forgotten and its walk ended", n)
	}
	if a.Walked("F") {
		t.Error("the walk under way when its frame was forgotten was kept")
	}
}

// enableCounter answers every call at once, counting Accessibility.enable.
type enableCounter struct{ enables atomic.Int32 }

func (c *enableCounter) Call(_ context.Context, method string, _, _ any) error {
	if method == accessibility.Enable.Method {
		c.enables.Add(1)
	}
	return nil
}

// An Accessibility.enable the caller sent itself (SendEnable) is the
// one Enable waits for: no second is sent, and Enable returns when its
// answer comes. Rest reports the domain on as soon as the enable was
// sent, answered or not, so that the caller turns it off again. When the
// domain is on, SendEnable sends nothing.
func TestSendEnable(t *testing.T) {
	ctx := context.Background()
	c := &enableCounter{}
	a := New(c, nil, nil)
	answer := make(chan error)
	sends := 0
	send := func() func(context.Context) error {
		sends++
		return func(context.Context) error { return <-answer }
	}
	a.SendEnable(ctx, send)
	enabled := make(chan error)
	go func() { enabled <- a.Enable(ctx) }()
	select {
	case err := <-enabled:
		t.Fatalf("Enable returned (%v) before the answer of the enable sent", err)
	case answer <- nil:
	}
	if err := <-enabled; err != nil {
		t.Fatal(err)
	}
	if n := c.enables.Load(); n != 0 {
		t.Errorf("Enable sent %d more Accessibility.enable after the one sent ahead", n)
	}
	a.SendEnable(ctx, send)
	if sends != 1 {
		t.Errorf("SendEnable sent an enable with the domain on (%d sent)", sends)
	}

	b := New(c, nil, nil)
	b.SendEnable(ctx, send) // never answered before the rest
	if !b.Rest() {
		t.Error("Rest says Accessibility is off while an enable sent is under way")
	}
	answer <- nil
}

// stalling answers a walk as concurrent does, but holds each call for a
// paragraph's children until the caller's context ends, as a call to a
// busy page does; it counts the calls made.
type stalling struct {
	concurrent
	calls atomic.Int32
	held  chan struct{} // a value for each call held
}

func (c *stalling) Call(ctx context.Context, method string, params, res any) error {
	c.calls.Add(1)
	if p, ok := params.(accessibility.GetChildAXNodesParams); ok && strings.HasPrefix(string(p.ID), "s") {
		c.held <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}
	return c.concurrent.Call(ctx, method, params, res)
}

// AwaitBackground waits for the walks under way to end, and Rest ends
// them: once it returns, no call of theirs is under way, and none comes.
func TestAwaitBackgroundWaitsForTheWalksRestStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &stalling{held: make(chan struct{}, 16)}
		paragraphs(&c.children, t, 10)
		a := New(c, nil, nil)
		a.startWalk("F", "L")
		<-c.held // the root walked; its paragraphs' calls under way, held
		awaited := make(chan error, 1)
		go func() { awaited <- a.AwaitBackground(context.Background()) }()
		synctest.Wait()
		select {
		case err := <-awaited:
			t.Fatalf("AwaitBackground returned (%v) while the walk was under way", err)
		default:
		}
		a.Rest()
		if err := <-awaited; err != nil {
			t.Fatal(err)
		}
		calls := c.calls.Load()
		synctest.Wait() // every goroutine left is blocked, or gone
		if n := c.calls.Load(); n != calls {
			t.Errorf("%d calls after AwaitBackground returned", n-calls)
		}
		a.mu.Lock()
		walks := 0
		if a.walking() {
			walks = 1
		}
		a.mu.Unlock()
		if walks != 0 {
			t.Errorf("%d walks still under way", walks)
		}
	})
}

// The page's watchers' count outlives a rest, and trees made after it
// (at the wake) have no signal of the changes it counted. A walk whose
// tree is not exactly its fetch's starts from the count the watchers had
// when it was asked for: the first read of the page, unchanged since, is
// answered from the kept tree, not taken for a change nobody told of.
func TestAWalkStartsFromTheWatchersCount(t *testing.T) {
	node := func(id, parent, role, name string, kids ...string) string {
		ks := `[]`
		if len(kids) > 0 {
			ks = `["` + strings.Join(kids, `","`) + `"]`
		}
		return `{"nodeId":"` + id + `","ignored":false,"role":{"type":"role","value":"` + role + `"},"name":{"type":"computedString","value":"` + name + `"},"parentId":"` + parent + `","childIds":` + ks + `}`
	}
	c := &wholeAndWalk{children: children{t: t, kids: map[accessibility.NodeID]string{}}}
	c.root = node("1", "", "RootWebArea", "Page", "s0", "s1")
	c.kids["1"] = node("s0", "1", "paragraph", "", "t0") + "," + node("s1", "1", "paragraph", "", "t1")
	c.kids["s0"] = node("t0", "s0", "StaticText", "First")
	c.kids["s1"] = node("t1", "s1", "StaticText", "Second")

	a := New(c, nil, nil) // made at the wake: no signal of the watchers yet
	unheard := 0
	a.OnUnheard = func(cdproto.FrameID) { unheard++ }
	walked := make(chan Walk, 1)
	a.OnWalked = func(_ cdproto.FrameID, w Walk) { walked <- w }
	ctx := context.Background()
	// The watchers counted 50 changes before the rest; the page is quiet.
	seen := Activity{OK: true, Watcher: 1, Mutations: 50, Quiet: Settle}
	if _, _, err := a.Nodes(ctx, "F", "L", seen); err != nil {
		t.Fatal(err)
	}
	// The walk finds the second text other than the fetch had it (Chrome
	// can answer a walk and a fetch of an unchanged page differently).
	c.mu.Lock()
	c.kids["s1"] = node("t1", "s1", "StaticText", "Second, walked")
	c.mu.Unlock()
	a.StartWalks()
	if w := <-walked; w.AsFetched {
		t.Fatal("the walk was as fetched; the test needs one that differs")
	}
	before := a.counts.Tally()
	if _, _, err := a.Nodes(ctx, "F", "L", seen); err != nil {
		t.Fatal(err)
	}
	if got := a.counts.Tally().Minus(before); got != (Tally{Quiet: 1}) {
		t.Errorf("the read of the quiet page after the walk: %v, want the kept tree, unchanged", got)
	}
	if unheard != 0 {
		t.Errorf("OnUnheard told %d times of a quiet page", unheard)
	}
}

// restingPage answers as a page of ten paragraphs does (a walk, a
// getFullAXTree, the state script the caller's Loaded runs), and counts
// the calls sent after the test says the trees rest. A call whose
// context ended is not sent, as cdp/wire's are not.
type restingPage struct {
	children
	rested atomic.Bool
	after  atomic.Int32 // calls sent once rested
	sent   atomic.Int32
}

func (c *restingPage) Call(ctx context.Context, method string, params, res any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.sent.Add(1)
	if c.rested.Load() {
		c.after.Add(1)
	}
	switch method {
	case accessibility.CommandEnable, "Runtime.evaluate":
		return nil
	case accessibility.CommandGetFullAXTree:
		return jsonv2.Unmarshal([]byte(`{"nodes":[`+c.root+`]}`), res)
	}
	return c.children.Call(ctx, method, params, res)
}

// A document that loads as the trees go to rest: whatever its load set
// going (the caller's Loaded, with the state script; the fetch; the
// walk; the iframes' own loads) either ends before AwaitBackground
// returns or sends nothing. Once it returns, the page sees no call.
func TestTheRestWaitsForTheWorkOfALoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const loads = 200
		sent := 0
		for i := range loads {
			c := &restingPage{}
			paragraphs(&c.children, t, 10)
			a := New(c, nil, nil)
			a.enabled = true
			a.frameOf("F").measured = true // read before: a load is fetched and walked
			a.Loaded = func(ctx context.Context, frame cdproto.FrameID) (cdproto.LoaderID, Activity, error) {
				if frame == "F" {
					a.WalkLoaded("G") // an iframe of the page, which sends no loadComplete
				}
				if err := c.Call(ctx, "Runtime.evaluate", nil, nil); err != nil { // the state script
					return "", Activity{}, err
				}
				return "L", Activity{OK: true, Watcher: 1}, nil
			}
			loaded := make(chan struct{})
			go func() {
				defer close(loaded)
				a.OnEvent(accessibility.LoadComplete.Method, jsonv2.Value(`{"root":{"nodeId":"1","ignored":false,"frameId":"F"}}`))
			}()
			if i%2 == 0 {
				runtime.Gosched() // now the load first, now the rest
			}
			a.Rest()
			if err := a.AwaitBackground(context.Background()); err != nil {
				t.Fatal(err)
			}
			c.rested.Store(true)
			<-loaded
			synctest.Wait() // all that is left has ended, or waits for ever
			if n := c.after.Load(); n != 0 {
				t.Fatalf("load %d: %d calls sent after the rest", i, n)
			}
			if a.Fetching() || a.Walking() {
				t.Fatalf("load %d: a fetch (%v) or a walk (%v) under way after the rest", i, a.Fetching(), a.Walking())
			}
			sent += int(c.sent.Load())
		}
		if sent == 0 {
			t.Error("no load sent anything before its rest: the loads never raced the rest")
		}
	})
}

// Frames that come and go all day (iframes loaded, read, walked,
// signalling, then removed) leave nothing behind: once each is
// forgotten, what the trees keep is what the frames alive show.
func TestNothingOfAFrameGoneIsKept(t *testing.T) {
	c := &restingPage{}
	paragraphs(&c.children, t, 10)
	a := New(c, nil, nil)
	walked := make(chan cdproto.FrameID, 1)
	a.OnWalked = func(f cdproto.FrameID, _ Walk) { walked <- f }
	ctx := context.Background()
	const frames, alive = 100, 2
	for i := range frames {
		frame := cdproto.FrameID(fmt.Sprintf("F%d", i))
		seen := Activity{OK: true, Watcher: int64(1000 + i)}
		if _, _, err := a.Nodes(ctx, frame, "L", seen); err != nil {
			t.Fatal(err)
		}
		a.OnSignal(seen.Watcher, 1)
		a.StartWalks()
		if f := <-walked; f != frame {
			t.Fatalf("walked %s, want %s", f, frame)
		}
		a.OnEvent(accessibility.LoadComplete.Method, jsonv2.Value(`{"root":{"nodeId":"1","ignored":false,"frameId":"`+string(frame)+`"}}`))
		if i < frames-alive {
			a.Forget(frame)
		}
	}
	if err := a.AwaitBackground(ctx); err != nil {
		t.Fatal(err)
	}
	for i := frames - alive; i < frames; i++ { // a read of each frame alive applies the events
		if _, _, err := a.Nodes(ctx, cdproto.FrameID(fmt.Sprintf("F%d", i)), "L", Activity{OK: true, Watcher: int64(1000 + i), Mutations: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := a.Held(), (Kept{Frames: alive, Signals: alive}); got != want {
		t.Errorf("after %d frames came and went: the trees keep %+v, want %+v", frames, got, want)
	}
}

// A frame forgotten (Forget) is not made again by a loadComplete of it
// that comes after, nor by a walk of it asked for after: its id never
// comes back, and what is kept stays bounded by the frames alive.
func TestALateLoadOfAFrameForgottenKeepsNothing(t *testing.T) {
	a := New(noCalls{t}, nil, nil)
	a.Loaded = func(context.Context, cdproto.FrameID) (cdproto.LoaderID, Activity, error) {
		return "", Activity{}, errors.New("not asked: the session was never read")
	}
	load := jsonv2.Value(`{"root":{"nodeId":"1","ignored":false,"frameId":"F"}}`)
	a.OnEvent(accessibility.LoadComplete.Method, load)
	if n := a.Held().Frames; n != 1 {
		t.Fatalf("a loadComplete kept %d frames, want 1", n)
	}
	a.Forget("F")
	a.OnEvent(accessibility.LoadComplete.Method, load)
	if n := a.Held().Frames; n != 0 {
		t.Errorf("a loadComplete of a frame forgotten kept %d frames, want 0", n)
	}
	// Nor by the walk of the iframes a load listed before the frame ended.
	a.WalkLoaded("F")
	if err := a.AwaitBackground(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := a.Held().Frames; n != 0 {
		t.Errorf("a walk asked for a frame forgotten kept %d frames, want 0", n)
	}
}
