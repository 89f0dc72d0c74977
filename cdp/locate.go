package cdp

import (
	"context"
	"errors"
	"sync"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/cdp/wire"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// Locate: which frames to ask, and how their answers make a
// location (measure.go asks them).

// Locate says where the element with the id is.
func (p *Provider) Locate(ctx context.Context, id string) (*mapping.Location, error) {
	ref, err := p.ids.Parse(id)
	if err != nil {
		return nil, err
	}
	p.heard()
	defer p.heard()
	ctx, c, done, err := p.begin(ctx)
	defer done()
	if err != nil {
		return nil, err
	}
	p.wake(ctx)
	loc, err := p.locate(ctx, c, ref)
	if err != nil && !errors.Is(err, mapping.ErrCannotPlace) {
		return nil, p.failure("locate the element", err)
	}
	return loc, err
}

var gone = &mapping.Location{State: mapping.Gone}

// errGone marks a document found to no longer exist while it was located:
// navigated away, its frame or tab closed, its <iframe> removed.
var errGone = errors.New("gone")

// locate answers where the thing an id names is. Called with p.mu held.
func (p *Provider) locate(ctx context.Context, c *wire.Conn, ref mapping.Ref) (*mapping.Location, error) {
	st := p.state
	switch ref.Kind {
	case mapping.KindWindow:
		return p.locateWindow(ctx, c, uint64(ref.A))
	case mapping.KindDialog:
		// A dialog is drawn by the browser, not the page: it has no box
		// to ask for. It is there while it is open.
		for _, s := range st.sessions {
			if d := s.OpenDialog(); d != nil && d.Key == uint64(ref.A/8) {
				return nil, mapping.CannotPlace(mapping.PlaceDialog, nil)
			}
		}
		return gone, nil
	case mapping.KindDocument, mapping.KindNode:
	case mapping.KindApp:
		return nil, mapping.CannotPlace(mapping.PlaceApplication, nil)
	case mapping.KindTabList:
		return nil, mapping.CannotPlace(mapping.PlaceTabList, nil)
	case mapping.KindTab:
		return nil, mapping.CannotPlace(mapping.PlaceTab, nil)
	default: // an accessibility-only node
		return nil, mapping.CannotPlace(mapping.PlaceNoGeometry, nil)
	}
	info := st.docs[uint64(ref.A)]
	if info == nil || ref.Kind == mapping.KindNode && !info.based {
		// (The second: no tree of the document was read, so no element
		// of it was issued; only a forged id gets here.)
		return gone, nil
	}
	for _, t := range []target.ID{info.tab, info.key.target} {
		s := st.sessions[t]
		if s == nil {
			continue
		}
		switch err := s.Unavailable(); {
		case errors.Is(err, wire.ErrCrashed) && info.key.loader == crashedLoader && ref.Kind == mapping.KindDocument:
			return nil, mapping.CannotPlace(mapping.PlaceCrashed, nil) // the crashed page's Document: nothing to measure
		case errors.Is(err, wire.ErrCrashed):
			return gone, nil // what the page showed is gone with its renderer
		case err != nil: // its page cannot be asked now: as for any element that cannot be placed
			return nil, mapping.CannotPlace(mapping.PlaceNotAnswering, err)
		}
	}
	loc, err := p.locateInDoc(ctx, c, info, ref)
	if errors.Is(err, errGone) {
		st.forgetDoc(info.n)
		return gone, nil
	}
	return loc, err
}

// locateWindow answers for a Window: its bounds.
func (p *Provider) locateWindow(ctx context.Context, c *wire.Conn, key uint64) (*mapping.Location, error) {
	var wid int64
	found := false
	for id, w := range p.state.windows {
		if w.key == key {
			wid, found = id, true
		}
	}
	if !found {
		return gone, nil
	}
	if wid == noWindow { // the tabs whose window the browser did not say
		return nil, mapping.CannotPlace(mapping.PlaceWindowUnknown, nil)
	}
	r, err := cdproto.Call(ctx, c.Browser(), browser.GetWindowBounds, browser.GetWindowBoundsParams{WindowID: browser.WindowID(wid)})
	if err != nil {
		if c.Alive() {
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

// locateInDoc answers for a Document or an element of one. It asks each
// frame from the document up to the top page one question, all at once:
// the element's box and clip in the first, the <iframe>'s content box and
// clip in each one above, and in the top one also the page area (the
// page zoom is known from an earlier call, or asked of
// Page.getLayoutMetrics at the same time). A located Document's loader is
// checked against the frame tree alongside. So a repeated locate costs one
// round trip per frame, all at once.
func (p *Provider) locateInDoc(ctx context.Context, c *wire.Conn, info *docInfo, ref mapping.Ref) (*mapping.Location, error) {
	pl, err := p.planLocate(ctx, c, info, ref)
	if err != nil {
		return nil, err
	}
	ms, geo := pl.ms, pl.top.geo
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(func() { m.measure(ctx) })
	}
	zoom := geo.zoom
	var zoomErr error
	if zoom == 0 {
		wg.Go(func() { zoom, zoomErr = pageZoom(ctx, pl.tab) })
	}
	sameDoc := true
	var docErr error
	if ref.Kind == mapping.KindDocument {
		wg.Go(func() { sameDoc, docErr = isCurrent(ctx, pl.own, info) })
	}
	wg.Wait()
	for _, m := range ms {
		m.remember(ctx)
	}

	isNode := ref.Kind == mapping.KindNode
	for i, m := range ms {
		if m.err == nil {
			continue
		}
		if !c.Alive() {
			return nil, m.err
		}
		if i == 0 && isNode {
			if ok, err := isCurrent(ctx, pl.own, info); err == nil && ok {
				return gone, nil // the document is there; the node is not
			}
		}
		return nil, errGone // the document, or an <iframe> on the way up, is not
	}
	if docErr != nil || !sameDoc {
		return nil, errGone
	}
	for i, m := range ms {
		if m.report.Gone && i == 0 && isNode {
			return gone, nil
		}
		if m.report.Gone {
			return nil, errGone
		}
	}
	// The zoom is kept with the devicePixelRatio it came with (dpr = zoom
	// × device scale): while dpr stays, so does the zoom.
	if pg := ms[len(ms)-1].report.Page; zoomErr == nil && pg != nil && pg.DPR != geo.dpr {
		if geo.dpr != 0 {
			zoom, zoomErr = pageZoom(ctx, pl.tab)
		}
		geo.zoom, geo.dpr = zoom, pg.DPR
	}
	if zoomErr != nil {
		geo.zoom, geo.dpr = 0, 0
		return nil, zoomErr
	}
	return place(ms, isNode || info.parent != 0, zoom), nil
}

// plan is what locateInDoc asks: the measurements, from the located
// document up to the top one, and the sessions of the located document
// and of its tab.
type plan struct {
	ms       []*measurement
	top      *docInfo
	own, tab *session
}

// planLocate lists the questions for locating ref in the document info: the
// element itself, or, for an iframe's Document, its <iframe>; then the
// <iframe> of every frame on the way up; the last one, in the top
// document, also asks for the page area. Only a top Document asks no
// element: just the page area.
func (p *Provider) planLocate(ctx context.Context, c *wire.Conn, info *docInfo, ref mapping.Ref) (*plan, error) {
	st := p.state
	pl := &plan{}
	add := func(d *docInfo, node cdproto.BackendNodeID, content bool) error {
		s, err := p.attach(ctx, c, st, d.key.target)
		if err != nil {
			return errGone
		}
		if d.geo == nil {
			d.geo = &docGeometry{}
		}
		pl.ms = append(pl.ms, &measurement{sess: s, frame: d.key.frame, doc: d.n, geo: d.geo, node: node, content: content})
		return nil
	}
	var err error
	switch {
	case ref.Kind == mapping.KindNode:
		err = add(info, info.base+cdproto.BackendNodeID(ref.B), false)
	case info.parent == 0:
		err = add(info, 0, false)
	}
	cur := info
	for err == nil && cur.parent != 0 {
		par := st.docs[cur.parent]
		if par == nil {
			return nil, errGone
		}
		err = add(par, cur.owner, true)
		cur = par
	}
	if err != nil {
		return nil, err
	}
	pl.ms[len(pl.ms)-1].page = true
	pl.top = cur
	if pl.tab, err = p.attach(ctx, c, st, cur.tab); err != nil {
		return nil, errGone
	}
	if pl.own, err = p.attach(ctx, c, st, info.key.target); err != nil {
		return nil, errGone
	}
	return pl, nil
}

// place composes the frames' answers into a location: the first box,
// mapped into each parent frame through its <iframe>, then onto the
// screen through the top page's area. hasBox says the first answer is an
// element's box; otherwise the located thing is the top page area.
func place(ms []*measurement, hasBox bool, zoom float64) *mapping.Location {
	pg := ms[len(ms)-1].report.Page
	if pg == nil {
		pg = &pageReport{}
	}
	var b mapping.Box
	if hasBox {
		for i, m := range ms {
			if m.report.Box == nil {
				return &mapping.Location{State: mapping.OffScreen} // no box: display:none and the like
			}
			mb := mapping.Box{Rect: rectOf(m.report.Box), Clip: rectOf(m.report.Clip)}
			if i == 0 {
				b = mb
			} else {
				b = b.In(mb)
			}
		}
	} else {
		b = mapping.Box{Rect: mapping.Rect{Width: pg.Width, Height: pg.Height}, Clip: mapping.Rect{Width: pg.ViewW, Height: pg.ViewH}}
	}
	if pg.OuterW <= 0 {
		// A hidden page may not know its window: nothing to place.
		return &mapping.Location{State: mapping.OffScreen}
	}
	area := mapping.PageAreaOf(pg.metrics(zoom))
	frame := area.ToScreen(b.Rect)
	visible := area.ToScreen(b.Visible())
	if !pg.Shown || visible.Empty() {
		return &mapping.Location{State: mapping.OffScreen, Frame: &frame}
	}
	return &mapping.Location{State: mapping.OnScreen, Frame: &frame, Visible: &visible}
}

// pageZoom returns a tab's page zoom: CSS px to points.
func pageZoom(ctx context.Context, tab *session) (float64, error) {
	lm, err := cdproto.Call(ctx, tab, page.GetLayoutMetrics, cdproto.Empty{})
	if err != nil {
		return 0, err
	}
	if lm.CSSVisualViewport == nil || lm.CSSVisualViewport.Zoom <= 0 {
		return 1, nil
	}
	return lm.CSSVisualViewport.Zoom, nil
}

// isCurrent reports whether a document is still the one its frame shows.
func isCurrent(ctx context.Context, s *session, d *docInfo) (bool, error) {
	frames, err := frameTree(ctx, s)
	if err != nil {
		return false, err
	}
	f := frames[d.key.frame]
	return f != nil && f.LoaderID == d.key.loader, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
