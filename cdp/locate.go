package cdp

import (
	"context"
	"errors"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/mapping"
)

var gone = &mapping.Location{State: mapping.Gone}

// errGone marks a thing found to no longer exist while it was located.
var errGone = errors.New("gone")

// locate answers where the thing an id names is. Called with p.mu held.
func (p *Provider) locate(ctx context.Context, c *conn, ref mapping.Ref) (*mapping.Location, error) {
	st := p.state
	switch ref.Kind {
	case mapping.KindWindow:
		return p.locateWindow(ctx, c, uint64(ref.A))
	case mapping.KindDocument, mapping.KindNode:
	default:
		return nil, mapping.ErrCannotPlace
	}
	info := st.docInfo[uint64(ref.A)]
	if info == nil {
		return gone, nil
	}
	loc, err := p.locateInDoc(ctx, c, uint64(ref.A), info, ref)
	if errors.Is(err, errGone) {
		delete(st.docs, info.key)
		delete(st.docInfo, uint64(ref.A))
		return gone, nil
	}
	return loc, err
}

// locateWindow answers for a Window: its bounds.
func (p *Provider) locateWindow(ctx context.Context, c *conn, key uint64) (*mapping.Location, error) {
	var wid int64
	found := false
	for id, k := range p.state.windows {
		if k == key {
			wid, found = id, true
		}
	}
	if !found {
		return gone, nil
	}
	r, err := cdp.Call(ctx, c.browser(), browser.GetWindowBounds, browser.GetWindowBoundsParams{WindowID: browser.WindowID(wid)})
	if err != nil {
		if c.alive() {
			delete(p.state.windows, wid)
			return gone, nil
		}
		return nil, err
	}
	b := r.Bounds
	frame := &mapping.Rect{X: float64(deref(b.Left)), Y: float64(deref(b.Top)), Width: float64(b.Width), Height: float64(b.Height)}
	if b.WindowState == browser.WindowStateMinimized {
		return &mapping.Location{State: mapping.OffScreen, Frame: frame}, nil
	}
	v := *frame
	return &mapping.Location{State: mapping.OnScreen, Frame: frame, Visible: &v}, nil
}

// locateInDoc answers for a Document or an element of one.
func (p *Provider) locateInDoc(ctx context.Context, c *conn, n uint64, info *docInfo, ref mapping.Ref) (*mapping.Location, error) {
	live, err := cdp.Call(ctx, c.browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, err
	}
	alive := map[target.ID]bool{}
	for _, ti := range live.TargetInfos {
		alive[ti.TargetID] = true
	}
	if !alive[info.key.target] || !alive[info.tab] {
		return nil, errGone
	}
	s, err := p.attach(ctx, c, p.state, info.key.target)
	if err != nil {
		return nil, errGone
	}
	frames, err := frameTree(ctx, s)
	if err != nil {
		return nil, err
	}
	if f := frames[info.key.frame]; f == nil || f.LoaderID != info.key.loader {
		return nil, errGone
	}

	var g geometry
	cur := info
	if ref.Kind == mapping.KindNode {
		r, ok, err := p.nodeBox(ctx, s, info.key.frame, cdp.BackendNodeID(ref.B))
		if err != nil || !ok {
			return nil, err
		}
		if r == nil {
			return &mapping.Location{State: mapping.OffScreen}, nil
		}
		g = geometry{frame: *r, visible: *r}
	} else if info.parent == 0 {
		g.page = true
	} else {
		// An iframe's document is the iframe's content box in its parent.
		par := p.state.docInfo[info.parent]
		if par == nil {
			return nil, errGone
		}
		box, err := p.contentBox(ctx, c, par, info.owner)
		if err != nil {
			return nil, err
		}
		g = geometry{frame: box, visible: box}
		cur = par
	}
	// Up through the frames to the top page: translate at each process
	// boundary, clip by each iframe's content box.
	for cur.parent != 0 {
		par := p.state.docInfo[cur.parent]
		if par == nil {
			return nil, errGone
		}
		box, err := p.contentBox(ctx, c, par, cur.owner)
		if err != nil {
			return nil, err
		}
		if par.key.target != cur.key.target {
			g.frame = g.frame.Offset(box.X, box.Y)
			g.visible = g.visible.Offset(box.X, box.Y)
		}
		g.visible = mapping.Intersect(g.visible, box)
		cur = par
	}
	return p.toScreen(ctx, c, cur.tab, g)
}

// geometry is a box in CSS pixels of the top page's layout viewport, and
// the part of it not clipped away so far. page means the page area itself.
type geometry struct {
	frame, visible mapping.Rect
	page           bool
}

// nodeBox returns the border box of a node (the union of its boxes when
// it is split across lines) in its session's viewport, nil when it has no
// box. ok is false when the node no longer exists.
func (p *Provider) nodeBox(ctx context.Context, s *session, frame cdp.FrameID, id cdp.BackendNodeID) (r *mapping.Rect, ok bool, err error) {
	connected, err := isConnected(ctx, s, frame, id)
	if err != nil || !connected {
		return nil, false, errGone
	}
	q, err := cdp.Call(ctx, s, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: id})
	if err == nil && len(q.Quads) > 0 {
		u := mapping.QuadBounds(q.Quads[0])
		for _, quad := range q.Quads[1:] {
			u = mapping.Union(u, mapping.QuadBounds(quad))
		}
		return &u, true, nil
	}
	bm, err := cdp.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: id})
	if err != nil || bm.Model == nil {
		return nil, true, nil // exists, no box: display:none and the like
	}
	b := mapping.QuadBounds(bm.Model.Border)
	return &b, true, nil
}

// isConnected reports whether a node still exists and is in its document.
// A removed node still resolves, so the isolated world asks the node.
func isConnected(ctx context.Context, s *session, frame cdp.FrameID, id cdp.BackendNodeID) (bool, error) {
	w, err := cdp.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: worldName})
	if err != nil {
		return false, err
	}
	const group = "cdpprovider-locate"
	defer cdp.Call(ctx, s, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
	obj, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id, ExecutionContextID: w.ExecutionContextID, ObjectGroup: group})
	if err != nil || obj.Object == nil {
		return false, nil
	}
	r, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: `function() { return this.isConnected; }`,
		ObjectID:            obj.Object.ObjectID,
		ReturnByValue:       ptr(true),
	})
	if err != nil || r.Result == nil {
		return false, err
	}
	return string(r.Result.Value) == "true", nil
}

// contentBox returns the content box of an <iframe> element of a document.
func (p *Provider) contentBox(ctx context.Context, c *conn, d *docInfo, owner cdp.BackendNodeID) (mapping.Rect, error) {
	s, err := p.attach(ctx, c, p.state, d.key.target)
	if err != nil {
		return mapping.Rect{}, errGone
	}
	bm, err := cdp.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: owner})
	if err != nil || bm.Model == nil {
		return mapping.Rect{}, errGone
	}
	return mapping.QuadBounds(bm.Model.Content), nil
}

// pageArea is where a tab's page area is on screen.
type pageArea struct {
	ScreenX, ScreenY        float64
	OuterWidth, OuterHeight float64
	InnerWidth, InnerHeight float64
	Visible                 bool
}

// toScreen maps a geometry in the top page's CSS pixels to screen points:
// clipped by the page area, scaled by page zoom, offset by the page area's
// origin on the screen.
func (p *Provider) toScreen(ctx context.Context, c *conn, tab target.ID, g geometry) (*mapping.Location, error) {
	s, err := p.attach(ctx, c, p.state, tab)
	if err != nil {
		return nil, errGone
	}
	lm, err := cdp.Call(ctx, s, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	var a pageArea
	if err := evalIn(ctx, s, cdp.FrameID(tab), `({ScreenX: screenX, ScreenY: screenY, OuterWidth: outerWidth, OuterHeight: outerHeight, InnerWidth: innerWidth, InnerHeight: innerHeight, Visible: document.visibilityState === "visible"})`, &a); err != nil {
		return nil, err
	}
	w, err := cdp.Call(ctx, c.browser(), browser.GetWindowForTarget, browser.GetWindowForTargetParams{TargetID: tab})
	if err != nil {
		return nil, err
	}
	zoom := 1.0
	if lm.CSSVisualViewport != nil && lm.CSSVisualViewport.Zoom > 0 {
		zoom = lm.CSSVisualViewport.Zoom
	}
	view := mapping.Rect{}
	if lm.CSSLayoutViewport != nil {
		view.Width, view.Height = float64(lm.CSSLayoutViewport.ClientWidth), float64(lm.CSSLayoutViewport.ClientHeight)
	}
	if g.page {
		g.frame, g.visible = view, view
	}
	area := mapping.PageAreaOf(a.ScreenX, a.ScreenY, a.OuterWidth, a.OuterHeight, a.InnerWidth, a.InnerHeight, zoom)
	frame := area.ToScreen(g.frame)
	visible := area.ToScreen(mapping.Intersect(g.visible, view))
	hidden := !a.Visible || (w.Bounds != nil && w.Bounds.WindowState == browser.WindowStateMinimized)
	if hidden || visible.Empty() {
		return &mapping.Location{State: mapping.OffScreen, Frame: &frame}, nil
	}
	return &mapping.Location{State: mapping.OnScreen, Frame: &frame, Visible: &visible}, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
