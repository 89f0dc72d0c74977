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
)

// onePara is a document of one paragraph whose text can change; a walk
// and getFullAXTree both answer it as it is now. The walk's call for the
// children of gated (the root: the paragraph's are asked for after it;
// the paragraph: the last call) tells atGate and waits for gate. calls
// counts the calls sent (a call whose context ended is not).
type onePara struct {
	mu     sync.Mutex
	text   string
	gated  accessibility.NodeID
	gate   chan struct{}
	atGate chan struct{}
	calls  atomic.Int32
}

// wait holds the call for node's children, when it is the one gated.
func (c *onePara) wait(node accessibility.NodeID) {
	if c.gated == node {
		close(c.atGate)
		<-c.gate
	}
}

func (c *onePara) nodes() (root, para, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return `{"nodeId":"1","ignored":false,"role":{"type":"internalRole","value":"RootWebArea"},"childIds":["p"]}`,
		`{"nodeId":"p","ignored":false,"role":{"type":"role","value":"paragraph"},"parentId":"1","childIds":["t"]}`,
		`{"nodeId":"t","ignored":false,"role":{"type":"role","value":"StaticText"},"name":{"type":"computedString","value":"` + c.text + `"},"parentId":"p","childIds":[]}`
}

func (c *onePara) Call(ctx context.Context, method string, params, res any) error {
	if err := ctx.Err(); err != nil { // as the session: nothing sent
		return err
	}
	c.calls.Add(1)
	root, para, text := c.nodes()
	answer := ""
	switch method {
	case accessibility.CommandEnable:
		return nil
	case accessibility.CommandGetFullAXTree:
		answer = `{"nodes":[` + root + `,` + para + `,` + text + `]}`
	case accessibility.CommandGetRootAXNode:
		answer = `{"node":` + root + `}`
	case accessibility.CommandGetChildAXNodes:
		switch params.(accessibility.GetChildAXNodesParams).ID {
		case "1":
			c.wait("1")
			answer = `{"nodes":[` + para + `]}`
		case "p":
			c.wait("p")
			answer = `{"nodes":[` + text + `]}`
		default:
			answer = `{"nodes":[]}`
		}
	default:
		return fmt.Errorf("unexpected call %s", method)
	}
	return jsonv2.Unmarshal([]byte(answer), res)
}

// Chrome keeps one record of the nodes a session's client fetched, for
// every document of the session, and a loadComplete (of the session's top
// document) empties it but for the new root: from then on no event comes
// for the nodes of the session's other documents, its iframes, however
// they change. So a loadComplete in the session drops the kept tree of
// every frame of it, and a walk under way when it comes is not kept (its
// nodes fetched before it are not followed). An iframe walked while the
// top document loaded (a read then) is the case: before, its tree stayed
// kept and, told of a change whose event never came, answered the page
// as it was before the change (TestWarmTreeIsExact1k, seed
// 2678733884441810642).
func TestALoadCompleteInTheSessionUnsubscribesEveryTree(t *testing.T) {
	// gated: "" the load comes after the walk; "1" during it, the
	// paragraph's children still to ask for; "p" as its last call is
	// answered.
	for _, gated := range []accessibility.NodeID{"", "1", "p"} {
		t.Run(fmt.Sprintf("gated=%q", gated), func(t *testing.T) {
			c := &onePara{text: "Before", gated: gated, gate: make(chan struct{}), atGate: make(chan struct{})}
			during := gated != ""
			a := New(c, nil, nil)
			walked := make(chan Walk, 1)
			a.OnWalked = func(_ cdproto.FrameID, w Walk) { walked <- w }
			ctx := context.Background()
			seen := Activity{OK: true, Watcher: 1, Mutations: 1}
			read := func() string {
				t.Helper()
				nodes, _, err := a.Nodes(ctx, "I", "L", seen)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, n := range nodes {
					if n.Name != nil {
						names = append(names, strings.Trim(string(n.Name.Value), `"`))
					}
				}
				return strings.Join(names, " ")
			}
			if got := read(); got != "Before" {
				t.Fatalf("the first read: %q", got)
			}
			load := jsonv2.Value(`{"root":{"nodeId":"100","ignored":false,"frameId":"T"}}`)
			a.StartWalks()
			if during {
				<-c.atGate
				a.OnEvent(accessibility.LoadComplete.Method, load) // the top document's
				calls := c.calls.Load()
				close(c.gate)
				if err := a.AwaitBackground(ctx); err != nil {
					t.Fatal(err)
				}
				if n := c.calls.Load() - calls; gated == "1" && n != 0 {
					t.Errorf("the walk made %d calls after the load, want none: it is stopped", n)
				}
			} else {
				<-walked
				quiet := a.counts.Quiet.Load()
				if got := read(); got != "Before" || a.counts.Quiet.Load() != quiet+1 {
					t.Fatalf("the read after the walk: %q, answered %v; want the kept tree, unchanged", got, a.counts.Tally())
				}
				a.OnEvent(accessibility.LoadComplete.Method, load)
			}
			// The iframe changes; its watchers tell of it; Chrome sends no
			// event, as it follows none of its nodes now.
			c.mu.Lock()
			c.text = "After"
			c.mu.Unlock()
			seen.Mutations, seen.Quiet = 2, Settle
			a.OnSignal(seen.Watcher, 2)
			if got := read(); got != "After" {
				t.Errorf("the read after the change: %q (answered %v), want the page as it is now", got, a.counts.Tally())
			}
		})
	}
}
