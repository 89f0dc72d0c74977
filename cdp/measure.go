package cdp

import (
	"context"
	"fmt"
	"strconv"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// Locate's measuring in each frame's isolated world (locate.go plans it).

// pageScript reports, from a top frame's isolated world, what locate needs
// of its window: window.screenX/Y and outerWidth/Height (points), the
// page area's size in CSS px to 1/64 px (scrollbars included) and the
// visual viewport's (excluded), devicePixelRatio, and whether the page is
// shown. innerWidth/Height are whole CSS px, which at 150% zoom is
// up to half a point off; width and height media queries compare in
// LayoutUnits (1/64 px), so a short bisection of (min-width: …) finds the
// size exactly enough. The answer is kept in the world until the window's
// sizes or the zoom change. matchMedia only reads.
var pageScript = fill(jsTemplate("page.js"))

// boxScript is called, in a frame's isolated world, on an element: the one
// located (its border box, the union of its line boxes when it wraps, the
// bounding box of its quad when transformed: getBoundingClientRect), or
// an <iframe> on the way up (content=true: its content box). It reports
// whether the element is still in this document, its box and the clip
// around it in the frame's viewport: the viewport less scrollbars, cut by
// every ancestor that clips the element (overflow other than visible,
// contain: paint), following containing blocks so that an absolutely
// positioned element escapes a static overflow:hidden parent and a fixed
// one escapes all but transformed ancestors. With page it adds pageScript's
// answer. The isolated world's DOM functions are the browser's own, so a
// page cannot make it lie, and it only reads.
var boxScript = fill(jsTemplate("box.js"), "page", pageScript)

// pageReport is pageScript's answer.
type pageReport struct {
	ScreenX float64 `json:"sx"`
	ScreenY float64 `json:"sy"`
	OuterW  float64 `json:"ow"`
	OuterH  float64 `json:"oh"`
	Width   float64 `json:"w"`
	Height  float64 `json:"h"`
	DPR     float64 `json:"dpr"`
	ViewW   float64 `json:"vw"`
	ViewH   float64 `json:"vh"`
	Shown   bool    `json:"shown"`
}

// metrics is what the page said of its window and page area, at the
// page zoom.
func (pg *pageReport) metrics(zoom float64) mapping.WindowMetrics {
	scale := 1.0
	if zoom > 0 && pg.DPR > 0 {
		scale = pg.DPR / zoom
	}
	return mapping.WindowMetrics{
		ScreenX: pg.ScreenX, ScreenY: pg.ScreenY, OuterWidth: pg.OuterW, OuterHeight: pg.OuterH,
		Width: pg.Width, Height: pg.Height, Zoom: zoom, Scale: scale,
	}
}

// boxReport is boxScript's answer.
type boxReport struct {
	Gone bool        `json:"gone"`
	Box  []float64   `json:"box"` // x, y, width, height; nil: no box
	Clip []float64   `json:"clip"`
	Page *pageReport `json:"page"`
}

// rectOf reads x, y, width, height.
func rectOf(v []float64) mapping.Rect {
	if len(v) != 4 {
		return mapping.Rect{}
	}
	return mapping.Rect{X: v[0], Y: v[1], Width: v[2], Height: v[3]}
}

// docGeometry is what locate keeps of a live document between calls, so
// that a repeated locate is one round trip per frame: the provider's
// isolated world and the remote objects of the elements it has asked about
// (in an object group of the document's own), which die with the
// document, and for a top document its zoom.
type docGeometry struct {
	world   runtime.ExecutionContextID
	objects map[cdproto.BackendNodeID]runtime.RemoteObjectID
	// zoom is a top document's page zoom, 0 until known; dpr is the
	// devicePixelRatio it was learned with.
	zoom, dpr float64
}

// maxObjects bounds the remote objects kept per document; past it they are
// released together and asked for again.
const maxObjects = 256

// measurement is one question to one frame: the box of an element (0: no
// element, only the page) and, with page, the page area.
type measurement struct {
	sess    *session
	frame   cdproto.FrameID
	doc     uint64
	geo     *docGeometry // the document's cache; only read while measuring
	node    cdproto.BackendNodeID
	content bool
	page    bool

	// Results, written by measure.
	report boxReport
	world  runtime.ExecutionContextID
	object runtime.RemoteObjectID
	err    error
}

// measure asks the frame, using what the document's cache holds, and
// once more afresh when a cached world or object has gone stale.
func (m *measurement) measure(ctx context.Context) {
	world, object := m.geo.world, m.geo.objects[m.node]
	m.err = m.ask(ctx, world, object)
	if m.err != nil && (world != 0 || object != "") {
		m.err = m.ask(ctx, 0, "")
	}
}

// ask runs the scripts in the frame's isolated world.
func (m *measurement) ask(ctx context.Context, world runtime.ExecutionContextID, object runtime.RemoteObjectID) error {
	if world == 0 {
		w, err := cdproto.Call(ctx, m.sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: m.frame, WorldName: worldName})
		if err != nil {
			return err
		}
		world, object = w.ExecutionContextID, ""
	}
	m.world = world
	if m.node == 0 {
		r, err := cdproto.Call(ctx, m.sess, runtime.Evaluate, runtime.EvaluateParams{
			Expression: pageScript, ContextID: world, ReturnByValue: ptr(true), Silent: ptr(true),
		})
		if err != nil {
			return err
		}
		m.report = boxReport{Page: &pageReport{}}
		return decodeResult(r.Result, r.ExceptionDetails, m.report.Page)
	}
	if object == "" {
		r, err := cdproto.Call(ctx, m.sess, dom.ResolveNode, dom.ResolveNodeParams{
			BackendNodeID: m.node, ExecutionContextID: world, ObjectGroup: objectGroup(m.doc),
		})
		if err != nil {
			return err
		}
		if r.Object == nil || r.Object.ObjectID == "" {
			return fmt.Errorf("DOM.resolveNode gave no object for node %d", m.node)
		}
		object = r.Object.ObjectID
	}
	m.object = object
	r, err := cdproto.Call(ctx, m.sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: boxScript,
		ObjectID:            object,
		Arguments:           []*runtime.CallArgument{{Value: jsonBool(m.content)}, {Value: jsonBool(m.page)}},
		ReturnByValue:       ptr(true),
		Silent:              ptr(true),
	})
	if err != nil {
		return err
	}
	m.report = boxReport{}
	return decodeResult(r.Result, r.ExceptionDetails, &m.report)
}

// remember stores in the document's cache what the measurement learned.
// Called with p.mu held, after every measurement of the call is done.
func (m *measurement) remember(ctx context.Context) {
	if m.world == 0 {
		return
	}
	if m.world != m.geo.world {
		m.geo.world, m.geo.objects = m.world, nil
	}
	if m.object == "" || m.report.Gone {
		delete(m.geo.objects, m.node)
		return
	}
	if m.geo.objects == nil {
		m.geo.objects = map[cdproto.BackendNodeID]runtime.RemoteObjectID{}
	}
	if _, ok := m.geo.objects[m.node]; !ok && len(m.geo.objects) >= maxObjects {
		cdproto.Call(ctx, m.sess, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: objectGroup(m.doc)})
		m.geo.objects = map[cdproto.BackendNodeID]runtime.RemoteObjectID{}
		return // this object went with the group
	}
	m.geo.objects[m.node] = m.object
}

// objectGroup names the object group of a document's remote objects.
func objectGroup(doc uint64) string { return "cdpprovider-locate-" + strconv.FormatUint(doc, 10) }

func jsonBool(b bool) jsonv2.Value {
	if b {
		return jsonv2.Value("true")
	}
	return jsonv2.Value("false")
}

// decodeResult decodes a by-value script result into out.
func decodeResult(r *runtime.RemoteObject, exc *runtime.ExceptionDetails, out any) error {
	if exc != nil {
		return fmt.Errorf("script in the isolated world failed: %s", exc.Text)
	}
	if r == nil {
		return fmt.Errorf("script in the isolated world gave no result")
	}
	return jsonv2.Unmarshal(r.Value, out, chromedp.DefaultUnmarshalOptions)
}
