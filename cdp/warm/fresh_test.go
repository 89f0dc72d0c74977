package warm

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/chromedp"
)

// chrome is a Caller that answers as Chrome would for a one-document
// page, and lets a test send events before an answer (Chrome sends a
// session's events in order with its answers).
type chrome struct {
	t      *testing.T
	mu     sync.Mutex
	calls  map[string]int
	before func(method string, n int) // called before each answer, with the method's count
}

func (c *chrome) Call(ctx context.Context, method string, params, res any) error {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[method]++
	n := c.calls[method]
	c.mu.Unlock()
	if c.before != nil {
		c.before(method, n)
	}
	answer := `{}`
	switch method {
	case accessibility.CommandGetPartialAXTree:
		answer = `{"nodes":[]}`
	case accessibility.CommandGetFullAXTree:
		answer = `{"nodes":[` + rootJSON + `,` + textJSON("Whole") + `]}`
	case accessibility.CommandEnable:
	default:
		c.t.Errorf("unexpected call %s", method)
	}
	return jsonv2.Unmarshal([]byte(answer), res, chromedp.DefaultUnmarshalOptions)
}

func (c *chrome) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[method]
}

const rootJSON = `{"nodeId":"1","ignored":false,"role":{"type":"role","value":"RootWebArea"},"childIds":["2"],"backendDOMNodeId":10}`

func textJSON(name string) string {
	return `{"nodeId":"2","ignored":false,"role":{"type":"role","value":"StaticText"},"name":{"type":"computedString","value":"` + name + `"},"parentId":"1","backendDOMNodeId":20}`
}

// updated is Chrome's nodesUpdated for the text's new name.
func updated(name string) jsonv2.Value {
	return jsonv2.Value(`{"nodes":[` + textJSON(name) + `]}`)
}

// walked returns trees holding a walked document F of loader L whose text
// reads "Before", known complete at 4 changes of the page's watchers.
func walked(c Caller) *Trees {
	a := New(c, nil, nil)
	a.enabled = true
	root := &accessibility.Node{NodeID: "1", ChildIDs: []accessibility.NodeID{"2"}, BackendDOMNodeID: 10,
		Role: &accessibility.Value{Type: "role", Value: jsonv2.Value(`"RootWebArea"`)}}
	text := &accessibility.Node{NodeID: "2", ParentID: "1", BackendDOMNodeID: 20,
		Role: &accessibility.Value{Type: "role", Value: jsonv2.Value(`"StaticText"`)},
		Name: &accessibility.Value{Type: "computedString", Value: jsonv2.Value(`"Before"`)}}
	a.frameOf("F").tree = &tree{frame: "F", loader: "L", root: "1", since: 1, born: versions.Add(1), mutations: 4,
		nodes: map[accessibility.NodeID]*accessibility.Node{"1": root, "2": text}}
	return a
}

// textOf is the name of node 2 in an answer.
func textOf(t *testing.T, nodes []*accessibility.Node) string {
	t.Helper()
	for _, n := range nodes {
		if n.NodeID == "2" && n.Name != nil {
			var s string
			jsonv2.Unmarshal(n.Name.Value, &s)
			return s
		}
	}
	t.Fatalf("no node 2 in %v", nodes)
	return ""
}

// The page changed (its watchers counted a fifth change and signalled it);
// Chrome's event for it came after the signal: the kept tree answers at
// once, without waiting.
func TestReadRightAfterAChangeWithItsEvents(t *testing.T) {
	c := &chrome{t: t}
	a := walked(c)
	a.OnSignal(77, 5)
	a.OnEvent(accessibility.NodesUpdated.Method, updated("After"))
	nodes, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Mutations: 5, Watcher: 77})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, nodes); got != "After" {
		t.Errorf("text %q, want After", got)
	}
	if got := a.counts.Tally(); got != (Tally{Changed: 1}) {
		t.Errorf("answered: %v, want one right after a change", got)
	}
	if n := c.count(accessibility.CommandGetPartialAXTree); n != 2 {
		t.Errorf("%d barrier calls, want the 2 of one barrier", n)
	}
}

// Chrome's last event came before the signal: it is not the one for the
// change. Chrome holds that one back in its throttle window and sends it
// later; the read waits for it.
func TestReadRightAfterAChangeWaitsForHeldEvents(t *testing.T) {
	c := &chrome{t: t}
	a := walked(c)
	a.OnEvent(accessibility.NodesUpdated.Method, updated("Earlier"))
	a.OnSignal(77, 5)
	c.before = func(method string, n int) {
		if method == accessibility.CommandGetPartialAXTree && n == 3 {
			// The barrier once the window is over makes the update that
			// sends what Chrome held back, before its answer.
			a.OnEvent(accessibility.NodesUpdated.Method, updated("After"))
		}
	}
	nodes, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Mutations: 5, Watcher: 77})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, nodes); got != "After" {
		t.Errorf("text %q, want After (the held-back event)", got)
	}
	if got := a.counts.Tally(); got != (Tally{Waited: 1}) {
		t.Errorf("answered: %v, want one after waiting", got)
	}
}

// No event follows the signal (the change touched nothing Chrome
// reports, or Chrome holds it back): a small document is read whole, as
// that is quicker than waiting out Chrome's window.
func TestReadRightAfterAChangeOfASmallDocumentReadsWhole(t *testing.T) {
	c := &chrome{t: t}
	a := walked(c)
	a.frameOf("F").cost = 5 * 1e6 // 5 ms
	a.OnSignal(77, 5)
	nodes, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Mutations: 5, Watcher: 77})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, nodes); got != "Whole" {
		t.Errorf("text %q, want Whole (getFullAXTree)", got)
	}
	if got := a.counts.Tally(); got != (Tally{Whole: 1, Sooner: 1}) {
		t.Errorf("answered: %v, want whole, as quicker", got)
	}
}

// No event follows the signal and none comes: once Chrome's window must
// be over, a barrier is sure to have sent what was pending, and the kept
// tree answers.
func TestReadRightAfterAChangeWithNoEvents(t *testing.T) {
	c := &chrome{t: t}
	a := walked(c)
	a.OnSignal(77, 5)
	nodes, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Mutations: 5, Watcher: 77})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, nodes); got != "Before" {
		t.Errorf("text %q, want Before (nothing changed in the tree)", got)
	}
	if got := a.counts.Tally(); got != (Tally{Waited: 1}) {
		t.Errorf("answered: %v, want one after waiting", got)
	}
	if n := c.count(accessibility.CommandGetPartialAXTree); n != 4 {
		t.Errorf("%d barrier calls, want 4: one barrier at once, one once the window was over", n)
	}
}

// The page's watchers counted a change long ago (past Settle), yet their
// call to the binding for it never came: the session's events are not
// reaching the provider (its binding gone, or Chrome sending none), so
// Chrome's events for the change may not have come either. The kept tree
// vouches for nothing, and the document is read whole; with the call
// come, the same read is the kept tree's.
func TestReadAfterAChangeNobodyToldOfReadsWhole(t *testing.T) {
	for _, told := range []bool{false, true} {
		c := &chrome{t: t}
		a := walked(c)
		if told {
			a.OnSignal(77, 5)
		}
		nodes, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Mutations: 5, Quiet: Settle, Watcher: 77})
		if err != nil {
			t.Fatal(err)
		}
		want, wantTally := "Whole", Tally{Whole: 1, Unheard: 1}
		if told {
			want, wantTally = "Before", Tally{Changed: 1}
		}
		if got := textOf(t, nodes); got != want {
			t.Errorf("told %v: text %q, want %s", told, got, want)
		}
		if got := a.counts.Tally(); got != wantTally {
			t.Errorf("told %v: answered %v, want %v", told, got, wantTally)
		}
	}
}

// A page whose iframes load document after document all day sends
// signals from more watchers than the trees keep: those of a kept tree's
// document stay, so that a read of its change is not taken for one
// nobody told of.
func TestSignalsOfAKeptDocumentOutlastIframes(t *testing.T) {
	c := &chrome{t: t}
	a := walked(c)
	a.frames["F"].tree.lastRead = Activity{OK: true, Mutations: 4, Watcher: 77}
	a.frames["F"].watcher = 77
	a.OnSignal(77, 5) // the page changed
	for w := int64(1000); w < 1000+3*keptWatchers; w++ {
		a.OnSignal(w, 1) // an iframe's new document changed
	}
	if n := len(a.signals); n != keptWatchers {
		t.Errorf("%d watchers' signals kept, want %d", n, keptWatchers)
	}
	if _, ok := a.signals[1000]; ok {
		t.Error("the signals of the watchers heard from longest ago were kept")
	}
	nodes, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Mutations: 5, Quiet: Settle, Watcher: 77})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, nodes); got != "Before" {
		t.Errorf("text %q, want Before (the kept tree)", got)
	}
	if got := a.counts.Tally(); got != (Tally{Changed: 1}) {
		t.Errorf("answered: %v, want the kept tree, right after a change", got)
	}
}

// The same right after the change: the read waits out Chrome's window for
// its events (waitFresh); when the watchers' call has not come by then
// either, the document is read whole.
func TestReadRightAfterAChangeNobodyToldOfReadsWhole(t *testing.T) {
	c := &chrome{t: t}
	a := walked(c)
	nodes, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Mutations: 5, Watcher: 77})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, nodes); got != "Whole" {
		t.Errorf("text %q, want Whole (getFullAXTree)", got)
	}
	if got := a.counts.Tally(); got != (Tally{Whole: 1, Unheard: 1}) {
		t.Errorf("answered: %v, want whole, the watchers unheard", got)
	}
}

// A read of an unchanged page makes the barrier and waits for nothing.
func TestReadOfAnUnchangedPage(t *testing.T) {
	c := &chrome{t: t}
	a := walked(c)
	if _, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Mutations: 4, Watcher: 77}); err != nil {
		t.Fatal(err)
	}
	if got := a.counts.Tally(); got != (Tally{Quiet: 1}) {
		t.Errorf("answered: %v, want one unchanged", got)
	}
}

// blocking answers getFullAXTree only once release is closed, and fails
// the walk's first call (the walk is not what these tests look at).
type blocking struct {
	chrome
	release chan struct{}
	asked   chan struct{} // closed when the getFullAXTree is asked
	once    sync.Once
}

func (c *blocking) Call(ctx context.Context, method string, params, res any) error {
	switch method {
	case accessibility.CommandGetFullAXTree:
		c.once.Do(func() { close(c.asked) })
		<-c.release
	case accessibility.CommandGetRootAXNode:
		return context.Canceled
	}
	return c.chrome.Call(ctx, method, params, res)
}

// A document that loads in a session a read has asked for
// is read whole in the background; a read meanwhile waits for that fetch
// and is answered from it while the page is unchanged.
func TestDocumentReadWholeAfterItsLoad(t *testing.T) {
	c := &blocking{chrome: chrome{t: t}, release: make(chan struct{}), asked: make(chan struct{})}
	a := New(c, nil, nil)
	a.enabled = true
	a.frameOf("F").measured = true // read before
	a.Loaded = func(ctx context.Context, frame cdproto.FrameID) (cdproto.LoaderID, Activity, error) {
		return "L2", Activity{OK: true, Mutations: 0, Interactions: 0, Watcher: 9}, nil
	}
	a.OnEvent(accessibility.LoadComplete.Method, jsonv2.Value(`{"root":`+strings.Replace(rootJSON, `"backendDOMNodeId":10`, `"backendDOMNodeId":10,"frameId":"F"`, 1)+`}`))
	<-c.asked
	if !a.Fetching() {
		t.Fatal("Fetching is false while the fetch after the load is under way")
	}
	got := make(chan string, 1)
	go func() {
		nodes, _, err := a.Nodes(context.Background(), "F", "L2", Activity{OK: true, Watcher: 9})
		if err != nil {
			t.Error(err)
		}
		got <- textOf(t, nodes)
	}()
	close(c.release)
	if s := <-got; s != "Whole" {
		t.Errorf("text %q, want Whole (the background fetch)", s)
	}
	if a.Fetching() {
		t.Error("Fetching is true after the fetch ended")
	}
	if tally := a.counts.Tally(); tally != (Tally{Fetched: 1}) {
		t.Errorf("answered: %v, want the background fetch, once", tally)
	}
	if n := c.count(accessibility.CommandGetFullAXTree); n != 1 {
		t.Errorf("%d getFullAXTree calls, want the background one alone", n)
	}
}

// walkHeld is a Caller whose first walk waits at getRootAXNode until its
// context ends; the walks after it fail at once.
type walkHeld struct {
	chrome
	first   chan struct{} // closed when the first walk asked
	stopped chan struct{} // closed when the first walk's context ended
	second  chan struct{} // closed when a second walk asked
	n       int
}

func (c *walkHeld) Call(ctx context.Context, method string, params, res any) error {
	if method != accessibility.CommandGetRootAXNode {
		return c.chrome.Call(ctx, method, params, res)
	}
	c.mu.Lock()
	c.n++
	n := c.n
	c.mu.Unlock()
	switch n {
	case 1:
		close(c.first)
		<-ctx.Done()
		close(c.stopped)
		return ctx.Err()
	case 2:
		close(c.second)
	}
	return context.Canceled
}

// The walk of a document that is gone (the frame loaded a new one) stops,
// and the new document is fetched and walked.
func TestLoadStopsTheWalkOfTheDocumentBefore(t *testing.T) {
	c := &walkHeld{chrome: chrome{t: t}, first: make(chan struct{}), stopped: make(chan struct{}), second: make(chan struct{})}
	a := New(c, nil, nil)
	a.enabled = true
	a.frameOf("F").measured = true // read before
	a.Loaded = func(ctx context.Context, frame cdproto.FrameID) (cdproto.LoaderID, Activity, error) {
		return "L2", Activity{OK: true}, nil
	}
	a.startWalk("F", "L1")
	<-c.first
	a.OnEvent(accessibility.LoadComplete.Method, jsonv2.Value(`{"root":{"nodeId":"1","ignored":false,"frameId":"F"}}`))
	<-c.stopped
	<-c.second
	if n := c.count(accessibility.CommandGetFullAXTree); n != 1 {
		t.Errorf("%d getFullAXTree calls, want the new document's, once", n)
	}
}

// deafPage is a Caller for a one-document page whose text (node 2) and a
// button (node 3, once added) change as the test says; getFullAXTree
// answers the page as it is now.
type deafPage struct {
	chrome
	text  string
	added bool
}

func (c *deafPage) Call(ctx context.Context, method string, params, res any) error {
	if method != accessibility.CommandGetFullAXTree {
		return c.chrome.Call(ctx, method, params, res)
	}
	c.mu.Lock()
	root, nodes := rootJSON, []string{textJSON(c.text)}
	if c.added {
		root = strings.Replace(root, `"childIds":["2"]`, `"childIds":["2","3"]`, 1)
		nodes = append(nodes, `{"nodeId":"3","ignored":false,"role":{"type":"role","value":"button"},"name":{"type":"computedString","value":"Added unheard"},"parentId":"1","backendDOMNodeId":30}`)
	}
	c.mu.Unlock()
	return jsonv2.Unmarshal([]byte(`{"nodes":[`+root+`,`+strings.Join(nodes, ",")+`]}`), res, chromedp.DefaultUnmarshalOptions)
}

// A kept tree whose document changed while nothing was heard (the
// watchers' call never came, nor Chrome's events) is dropped, not only
// passed by: once the session is heard again, a change with its signal
// and its event must not make that tree, which missed what changed
// meanwhile, answer again. The read after is the document's as a new
// one's: whole, and a walk asked for.
func TestATreeFoundUnheardIsDropped(t *testing.T) {
	c := &deafPage{chrome: chrome{t: t}, text: "Before"}
	a := walked(c)
	told := 0
	a.OnUnheard = func(cdproto.FrameID) { told++ }
	ctx := context.Background()
	// Deaf: a button is added (the watchers' fifth change), and nobody
	// tells of it.
	c.added = true
	nodes, _, err := a.Nodes(ctx, "F", "L", Activity{OK: true, Mutations: 5, Quiet: Settle, Watcher: 77})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 3 {
		t.Errorf("the read of the unheard change answered %d nodes, want the 3 of the page", len(nodes))
	}
	if got := a.counts.Tally(); got != (Tally{Whole: 1, Unheard: 1}) {
		t.Errorf("the read of the unheard change: %v, want whole, unheard", got)
	}
	if a.Walked("F") || !a.WalkAsked("F") {
		t.Errorf("after the unheard change: a tree kept %v, a walk asked for %v; want none kept, one asked for", a.Walked("F"), a.WalkAsked("F"))
	}
	// Its walk waits until the document's watchers are heard again: a
	// tree walked now, its events perhaps not coming, would be found
	// unheard at the next change, walk after walk. (The walk would ask
	// this Caller for getRootAXNode, which it fails the test for.)
	a.StartWalks()
	if a.Walking() {
		t.Error("a walk started while the document's watchers were not heard again")
	}
	// Heard again: the text changes, its signal and Chrome's event come.
	c.mu.Lock()
	c.text = "After"
	c.mu.Unlock()
	a.OnSignal(77, 6)
	a.OnEvent(accessibility.NodesUpdated.Method, updated("After"))
	before := a.counts.Tally()
	nodes, _, err = a.Nodes(ctx, "F", "L", Activity{OK: true, Mutations: 6, Watcher: 77})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, nodes); got != "After" || len(nodes) != 3 {
		t.Errorf("the read once heard again: text %q, %d nodes; want After and the button added unheard", got, len(nodes))
	}
	if got := a.counts.Tally().Minus(before); got.Kept() != 0 || got.Whole != 1 {
		t.Errorf("the read once heard again: %v, want it read whole, no kept tree", got)
	}
	if told != 1 {
		t.Errorf("OnUnheard told %d times, want once", told)
	}
}

// The reads of a kept tree go on while the watchers of more documents
// than the trees keep signals of signal on the connection's read loop
// (iframes loading document after document): making room looks at the
// kept trees' watchers, which the reads write. Under -race, the two
// must keep to the tree's lock rule.
func TestReadsWhileManyWatchersSignal(t *testing.T) {
	c := &chrome{t: t}
	a := walked(c)
	ctx := context.Background()
	// Each goes on until both have done their share: they overlap.
	const reads, watchers = 30000, 30000
	var read, signalled atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for w := int64(1000); signalled.Load() < watchers || read.Load() < reads; w++ {
			a.OnSignal(w, 1) // an iframe's new document changed
			signalled.Add(1)
		}
	}()
	for n := int64(0); n < reads || signalled.Load() < watchers; n++ {
		// The page's own watchers, the same count: a read of the
		// unchanged page, which notes the watchers it read.
		if _, _, err := a.Nodes(ctx, "F", "L", Activity{OK: true, Mutations: 4, Watcher: 77 + n%2}); err != nil {
			t.Fatal(err)
		}
		read.Add(1)
	}
	<-done
	if got := a.counts.Tally(); got.Quiet != read.Load() || got.All() != read.Load() {
		t.Errorf("%d reads: %v, want each from the kept tree, unchanged", read.Load(), got)
	}
	if n := len(a.signals); n != keptWatchers {
		t.Errorf("%d watchers' signals kept, want %d", n, keptWatchers)
	}
}

// A page that changes all the time, with no read to apply its events:
// the queue never passes its bound; past it, the kept tree is dropped
// and its events let go, and the next read reads the document whole.
func TestEventsQueuedAreBounded(t *testing.T) {
	c := &chrome{t: t}
	a := walked(c)
	most := 0
	for i := range 4 * MaxEvents {
		a.OnEvent(accessibility.NodesUpdated.Method, updated(fmt.Sprintf("Tick %d", i)))
		most = max(most, a.Queued())
	}
	if most > MaxEvents {
		t.Errorf("%d events queued at most, want at most %d", most, MaxEvents)
	}
	if n := a.counts.Overflows.Load(); n != 1 {
		t.Errorf("the queue passed its bound %d times, want once: no tree is kept after", n)
	}
	// A big event counts its bytes: one tree, one event over the bound.
	b := walked(c)
	b.OnEvent(accessibility.NodesUpdated.Method, updated(strings.Repeat("x", MaxEventBytes)))
	if n := b.Queued(); n != 0 || b.Walked("F") {
		t.Errorf("an event of %d bytes: %d queued, tree kept %v; want none", MaxEventBytes, n, b.Walked("F"))
	}
	nodes, _, err := a.Nodes(context.Background(), "F", "L", Activity{OK: true, Mutations: 4 + 4*MaxEvents, Watcher: 77})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, nodes); got != "Whole" {
		t.Errorf("the read after: text %q, want Whole (getFullAXTree)", got)
	}
	if got := a.counts.Tally(); got != (Tally{Whole: 1}) {
		t.Errorf("the read after: %v, want it read whole", got)
	}
	if !a.WalkAsked("F") {
		t.Error("the read after asked for no walk")
	}
}
