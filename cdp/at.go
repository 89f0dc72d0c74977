package cdp

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/cdpprovider/cdpprovider/cdp/wire"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// At: what lies at a point of the screen. It reads current as a host's
// read does (so the answer's ids are current's), then finds the window
// at the point from the windows' bounds, from the one on top down
// (stackWindows), and in its page area asks the page's own hit test,
// frame by frame: in each frame's isolated world, the element at the
// point (atScript); when that is an <iframe> whose document the read has,
// the same in it, at the point in its content box, out-of-process frames
// included (their sessions answer for them). The candidates, innermost
// first, are the element there (or its text, when the point is on the
// text), its ancestors up to the first one the accessibility tree has,
// and that one's ancestors in the tree; then the frame's Document, the
// <iframe> in the frame above and its own, and so on up to the Window.
// mapping.HitAt takes the first the answer holds.

// atTemplate is atScript before its point is filled in.
var atTemplate = jsTemplate("at.js")

// atChain is the chain script of the element at (x, y), in CSS px of the
// frame's viewport.
func atChain(x, y float64) chainScript {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return newChainScript(fill(atTemplate, "x", f(x), "y", f(y), "store", chainStore, "chain", chainJS), "at")
}

// inFrameScript returns where atScript's point is in the content box of
// the <iframe> it found, [x, y], or null.
var inFrameScript = "((" + chainStore + " || {}).inFrame ?? null)"

// At says what is at the point (x, y) of the screen, in points.
func (p *Provider) At(ctx context.Context, x, y float64) (*mapping.Hit, error) {
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return nil, fmt.Errorf("the point %v,%v is not on any screen", x, y)
	}
	p.heard()
	defer p.heard()
	ctx, c, done, err := p.begin(ctx)
	defer done()
	if err != nil {
		return nil, err
	}
	p.wake(ctx)
	defer p.startWalks()
	cur, seen, err := p.read(ctx, c, readWarm, false)
	if err != nil {
		return nil, err
	}
	return p.hitOf(ctx, c, cur, seen, x, y)
}

// hitOf says what is at the point (x, y) of the screen, in the answer
// cur of the read that saw seen: the hit test's element, or why it is not
// the one there.
func (p *Provider) hitOf(ctx context.Context, c *wire.Conn, cur *mapping.Current, seen *sight, x, y float64) (*mapping.Hit, error) {
	where, candidates, err := p.hitTest(ctx, seen, x, y)
	if err != nil && !c.Alive() {
		return nil, p.failure("find what is at the point", err)
	}
	h := mapping.HitAt(cur.Root, x, y, where, candidates)
	if err != nil {
		// The page failed under the hit test (it went away, or stopped
		// answering): its Document, or its window, is what the answer
		// still has there, and the hit says why it is no nearer.
		h.Failed(err)
	} else {
		h.CutFrom(seen.whole, candidates)
	}
	return h, nil
}

// hitTest finds the window at the point, from the one on top, and what
// its page has there: where the point is (mapping.InPage and the others)
// and the candidate ids, innermost first. On an error it still returns
// what it found before the error.
func (p *Provider) hitTest(ctx context.Context, seen *sight, x, y float64) (string, []string, error) {
	for _, i := range seen.stack {
		w := seen.wins[i]
		b := w.bounds
		if w.minimized || b == nil {
			continue
		}
		left, top := float64(deref(b.Left)), float64(deref(b.Top))
		if x < left || y < top || x >= left+float64(b.Width) || y >= top+float64(b.Height) {
			continue
		}
		win := p.ids.Window(w.key)
		shown := seen.shown[i]
		switch {
		case shown.doc != nil:
		case shown.down != nil:
			// A page that cannot answer (a dialog, frozen, crashed): its
			// Document as last shown, not told apart from the frame.
			return mapping.InPage, []string{p.ids.Document(shown.down.Doc), win}, nil
		default:
			return mapping.InWindowFrame, []string{win}, nil
		}
		d := shown.doc
		area, pg, err := p.pageArea(ctx, d)
		if err != nil {
			return mapping.InPage, []string{p.ids.Document(d.n), win}, err
		}
		cx, cy := (x-area.X)/area.Zoom, (y-area.Y)/area.Zoom
		if cx < 0 || cy < 0 || cx >= pg.Width || cy >= pg.Height {
			return mapping.InWindowFrame, []string{win}, nil
		}
		return mapping.InPage, append(p.hitIn(ctx, d, cx, cy), win), nil
	}
	return mapping.OffWindows, nil, nil
}

// pageArea returns where a top document's page area is on the screen,
// and what its page said of it (pageScript), with the page zoom as locate
// keeps it (locateInDoc).
func (p *Provider) pageArea(ctx context.Context, d *doc) (mapping.PageArea, *pageReport, error) {
	info := p.state.docs[d.n]
	if info == nil {
		return mapping.PageArea{}, nil, errGone
	}
	if info.geo == nil {
		info.geo = &docGeometry{}
	}
	geo := info.geo
	m := &measurement{sess: d.sess, frame: d.frameID, doc: d.n, geo: geo, page: true}
	m.measure(ctx)
	m.remember(ctx)
	pg := m.report.Page
	if m.err != nil || pg == nil {
		return mapping.PageArea{}, nil, fmt.Errorf("measure the page area: %w", m.err)
	}
	if geo.zoom == 0 || geo.dpr != pg.DPR {
		zoom, err := pageZoom(ctx, d.sess)
		if err != nil {
			geo.zoom, geo.dpr = 0, 0
			return mapping.PageArea{}, nil, err
		}
		geo.zoom, geo.dpr = zoom, pg.DPR
	}
	return mapping.PageAreaOf(pg.metrics(geo.zoom)), pg, nil
}

// hitIn returns the candidates at (x, y), in CSS px of d's viewport,
// innermost first: in the document of an <iframe> there, when the read
// has it, then the element there and its ancestors (hitChain), then d's
// Document.
func (p *Provider) hitIn(ctx context.Context, d *doc, x, y float64) []string {
	var out []string
	cr := readChain(ctx, d.sess, d.frameID, atChain(x, y))
	if cr.ok {
		if child := d.children[cr.first]; cr.first != 0 && child != nil {
			var pt []float64
			if err := evalIn(ctx, d.sess, d.frameID, inFrameScript, &pt); err == nil && len(pt) == 2 {
				out = p.hitIn(ctx, child, pt[0], pt[1])
			}
		}
		out = append(out, p.hitChain(ctx, d, cr)...)
	}
	return append(out, p.ids.Document(d.n))
}

// hitChain returns the ids of the element a chain script found and of its
// ancestors: in the DOM up to the first one d's accessibility tree has,
// then that one's ancestors in the tree.
func (p *Provider) hitChain(ctx context.Context, d *doc, cr *chainRead) []string {
	byDOM := make(map[cdproto.BackendNodeID]*accessibility.Node, len(d.nodes))
	byID := make(map[accessibility.NodeID]*accessibility.Node, len(d.nodes))
	for _, n := range d.nodes {
		if n.BackendDOMNodeID != 0 {
			byDOM[n.BackendDOMNodeID] = n
		}
		byID[n.NodeID] = n
	}
	f := &mapping.Frame{Doc: d.n, NodeBase: d.base}
	chain := []cdproto.BackendNodeID{cr.first}
	if byDOM[cr.first] == nil {
		chain = append(chain, cr.ancestors(ctx)...)
	}
	var out []string
	for _, b := range chain {
		if b == 0 {
			continue
		}
		out = append(out, f.NodeElementID(p.ids, b))
		n := byDOM[b]
		if n == nil {
			continue
		}
		for seen := 0; n.ParentID != "" && seen < len(d.nodes); seen++ {
			if n = byID[n.ParentID]; n == nil {
				break
			}
			out = append(out, f.ElementID(p.ids, n))
		}
		break
	}
	return out
}
