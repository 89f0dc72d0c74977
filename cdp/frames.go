package cdp

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// docKey names a document: a frame with one loader (a navigation makes a
// new document), in the session of the target that holds the frame.
type docKey struct {
	target target.ID
	frame  cdp.FrameID
	loader cdp.LoaderID
}

// docInfo is what locate needs to find a document again.
type docInfo struct {
	key    docKey
	tab    target.ID         // the page target of the tab
	parent uint64            // the parent document's number; 0 at the top
	owner  cdp.BackendNodeID // the <iframe> element in the parent document
	geo    *docGeometry      // what locate keeps of it (geometry.go); nil until located
}

// doc is a document being read: the mapping frame and how to reach it.
type doc struct {
	frame    *mapping.Frame
	sess     *session
	frameID  cdp.FrameID
	state    pageState // what the provider's watchers saw
	version  uint64    // of the warm tree the nodes came from; 0 when read cold
	children map[cdp.BackendNodeID]*doc
}

// worldName names the isolated world the provider reads pages in. The
// page's own scripts cannot see or change it.
const worldName = "cdpprovider"

// readDocument reads a tab's document with all its frames; top is what
// the tab's watchers said a moment ago, not asked again.
func (p *Provider) readDocument(ctx context.Context, c *conn, s *session, tab target.ID, live map[target.ID]*target.Info, cold bool, top pageState) (*doc, error) {
	ft, err := frameTree(ctx, s)
	if err != nil {
		return nil, err
	}
	return p.readFrame(ctx, c, frameRead{sess: s, sessTarget: tab, tab: tab, frames: ft, live: live, cold: cold, top: top}, cdp.FrameID(tab), 0, 0, 0)
}

// frameRead carries what reading the frames of one session needs.
type frameRead struct {
	sess       *session
	sessTarget target.ID
	tab        target.ID
	frames     map[cdp.FrameID]*cdp.Frame
	live       map[target.ID]*target.Info
	cold       bool      // bypass the warm trees
	top        pageState // the top document's, already read
}

// axOf returns the warm accessibility trees of a target's session.
func (p *Provider) axOf(id target.ID, s *session) *axSession {
	a := p.state.ax[id]
	if a == nil || a.sess != s {
		a = newAXSession(s, &p.reading)
		p.state.ax[id] = a
	}
	return a
}

// frameTree maps the frames of a session's process by id.
func frameTree(ctx context.Context, s *session) (map[cdp.FrameID]*cdp.Frame, error) {
	r, err := cdp.Call(ctx, s, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	m := map[cdp.FrameID]*cdp.Frame{}
	var walk func(t *page.FrameTree)
	walk = func(t *page.FrameTree) {
		if t == nil || t.Frame == nil {
			return
		}
		m[t.Frame.ID] = t.Frame
		for _, ch := range t.ChildFrames {
			walk(ch)
		}
	}
	walk(r.FrameTree)
	return m, nil
}

// readFrame reads one frame's accessibility tree and, recursively, the
// frames its iframes hold (same-process ones on the same session,
// out-of-process ones on their own).
func (p *Provider) readFrame(ctx context.Context, c *conn, fr frameRead, id cdp.FrameID, depth int, parent uint64, owner cdp.BackendNodeID) (*doc, error) {
	if depth > 16 {
		return nil, fmt.Errorf("frames nested deeper than 16")
	}
	f := fr.frames[id]
	if f == nil {
		return nil, fmt.Errorf("frame %s is not in its process's frame tree", id)
	}
	st := p.state
	ps := fr.top
	if depth > 0 || !ps.ok {
		ps = readPageState(ctx, fr.sess, id)
	}
	var nodes []*accessibility.Node
	var version uint64
	var err error
	if fr.cold {
		r, err := cdp.Call(ctx, fr.sess, fullAXTree, accessibility.GetFullAXTreeParams{FrameID: id})
		if err != nil {
			return nil, err
		}
		nodes = r.nodes()
	} else if nodes, version, err = p.axOf(fr.sessTarget, fr.sess).nodes(ctx, id, f.LoaderID, ps); err != nil {
		return nil, err
	}
	key := docKey{fr.sessTarget, id, f.LoaderID}
	n := keyOf(st.docs, key, &p.keys)
	if st.docInfo[n] == nil {
		for k, m := range st.docs { // the frame's earlier documents are gone
			if k.target == key.target && k.frame == key.frame && k.loader != key.loader {
				delete(st.docs, k)
				delete(st.docInfo, m)
			}
		}
		st.docInfo[n] = &docInfo{key: key, tab: fr.tab, parent: parent, owner: owner}
	}
	d := &doc{
		frame:    &mapping.Frame{Doc: n, URL: f.URL + f.URLFragment, Nodes: nodes, ValueText: valueTexts(ctx, fr.sess, nodes)},
		sess:     fr.sess,
		frameID:  id,
		state:    ps,
		version:  version,
		children: map[cdp.BackendNodeID]*doc{},
	}
	for _, node := range nodes {
		switch axRole(node) {
		case "Iframe", "IframePresentational":
			if node.BackendDOMNodeID == 0 {
				continue
			}
			child, err := p.readChildFrame(ctx, c, fr, node.BackendDOMNodeID, depth, n)
			if err != nil {
				p.log.Debug("could not read an iframe", "err", err)
				continue
			}
			if child != nil {
				d.children[node.BackendDOMNodeID] = child
			}
		}
	}
	if len(d.children) > 0 {
		d.frame.Frames = map[cdp.BackendNodeID]*mapping.Frame{}
		for owner, ch := range d.children {
			d.frame.Frames[owner] = ch.frame
		}
	}
	return d, nil
}

// readChildFrame reads the document held by the <iframe> element owner.
func (p *Provider) readChildFrame(ctx context.Context, c *conn, fr frameRead, owner cdp.BackendNodeID, depth int, parent uint64) (*doc, error) {
	d, err := cdp.Call(ctx, fr.sess, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: owner})
	if err != nil || d.Node == nil || d.Node.FrameID == "" {
		return nil, err
	}
	id := d.Node.FrameID
	if fr.frames[id] != nil {
		return p.readFrame(ctx, c, fr, id, depth+1, parent, owner)
	}
	ti := fr.live[target.ID(id)]
	if ti == nil || ti.Type != "iframe" {
		return nil, nil // not loaded yet
	}
	s, err := p.attach(ctx, c, p.state, ti.TargetID)
	if err != nil {
		return nil, err
	}
	frames, err := frameTree(ctx, s)
	if err != nil {
		return nil, err
	}
	sub := frameRead{sess: s, sessTarget: ti.TargetID, tab: fr.tab, frames: frames, live: fr.live, cold: fr.cold}
	return p.readFrame(ctx, c, sub, id, depth+1, parent, owner)
}

// evalIn evaluates a side-effect-free expression in the provider's
// isolated world of a frame and decodes its value into out.
func evalIn(ctx context.Context, s *session, frame cdp.FrameID, expr string, out any) error {
	r, err := evalObject(ctx, s, frame, expr, "", true)
	if err != nil {
		return err
	}
	return jsonv2.Unmarshal(r.Value, out, chromedp.DefaultUnmarshalOptions)
}

// evalObject evaluates expr in the isolated world of frame. With byValue
// false the result stays a remote object in the object group. The world's
// context id is kept on the session; when the frame has navigated since,
// the world is made again once.
func evalObject(ctx context.Context, s *session, frame cdp.FrameID, expr, group string, byValue bool) (*runtime.RemoteObject, error) {
	for attempt := 0; ; attempt++ {
		w, err := s.world(ctx, frame, attempt > 0)
		if err != nil {
			return nil, err
		}
		r, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
			Expression:    expr,
			ContextID:     w,
			ReturnByValue: ptr(byValue),
			ObjectGroup:   group,
			Silent:        ptr(true),
		})
		if err != nil && attempt == 0 && ctx.Err() == nil {
			continue // most likely a context the navigation destroyed
		}
		if err != nil {
			return nil, err
		}
		if r.ExceptionDetails != nil {
			return nil, fmt.Errorf("script in the isolated world failed: %s", r.ExceptionDetails.Text)
		}
		return r.Result, nil
	}
}
