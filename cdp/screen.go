package cdp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// What is on screen: every element of a shown document whose box meets
// the screen (screen.js), by locate's rule, so that an element a screen
// answer holds locates onscreen and one it leaves out offscreen. The
// budget keeps these first (budget.go), and the screen answer is made of
// them (mapping.Screen).

// screenScript returns the elements of a document on screen (js/screen.js):
// {{clip}} is the part of its viewport its <iframe> shows, or null for a
// top document; {{world}} the numbering of elements the provider knows.
var screenScript = jsTemplate("screen.js")

// screenKept bounds the elements whose backend ids the provider keeps
// for one document; past it, it starts a new numbering.
const screenKept = 20000

// docScreen is what the provider keeps of a document's screen (in its
// docInfo): the backend ids of the elements the script has numbered in
// its world (so that an element on screen in two reads is serialized once),
// and the last answer with what it was found under: a read whose
// document has not changed, scrolled or moved since (the watchers say,
// pageState), with the same clip, takes it again without a walk.
type docScreen struct {
	world string
	ids   map[int]cdproto.BackendNodeID
	last  *screenFound
	under screenUnder
}

// screenUnder is what a document's screen was found under.
type screenUnder struct {
	watcher, mutations, interactions, moves int64
	scroll                                  [2]float64
	clip                                    [4]float64
	top                                     bool
}

// screenFound is one document's screen: the backend ids of its elements
// on screen, in the flat tree's order, and for each <iframe> on screen the
// part of its document's viewport it shows.
type screenFound struct {
	on     []cdproto.BackendNodeID
	frames map[cdproto.BackendNodeID][4]float64
}

// screenReport is the first item of screen.js's answer.
type screenReport struct {
	World  string      `json:"world"`
	How    string      `json:"how"`
	On     []int       `json:"on"`
	Frames [][]float64 `json:"frames"`
	Fresh  []int       `json:"fresh"`
}

// findScreen returns, for each document shown (topDocs, and the
// documents of the iframes on screen in them), the backend ids of its
// elements on screen. A document whose walk fails is left out, and
// logged: a screen read then keeps it whole (setScreen), the budget cuts
// it in reading order. Called with p.mu held; each document's docInfo is
// touched by one goroutine.
func (p *Provider) findScreen(ctx context.Context, topDocs []*doc) screenFinds {
	var mu sync.Mutex
	out := screenFinds{on: map[*doc][]cdproto.BackendNodeID{}, failed: map[*doc]bool{}}
	var wg sync.WaitGroup
	var visit func(d *doc, clip *[4]float64)
	visit = func(d *doc, clip *[4]float64) {
		found, err := p.screenOf(ctx, d, clip)
		if err != nil {
			if ctx.Err() == nil {
				p.log.Info("what is on screen of a page could not be found; a read of the screen answers it whole", "url", d.url, "err", err)
			}
			mu.Lock()
			out.failed[d] = true
			mu.Unlock()
			return
		}
		mu.Lock()
		out.on[d] = found.on
		mu.Unlock()
		for owner, ch := range d.children {
			if c, ok := found.frames[owner]; ok {
				wg.Go(func() { visit(ch, &c) })
			}
		}
	}
	for _, d := range topDocs {
		if d.state.ok && !d.state.visible {
			// A page not shown (a covered or minimised window): none of it
			// is on screen, as locate says of each of its elements.
			out.on[d] = nil
			continue
		}
		wg.Go(func() { visit(d, nil) })
	}
	wg.Wait()
	return out
}

// setScreen puts what findScreen found in the frames of the documents;
// with unknown set (a screen read), a document whose walk failed is
// marked ScreenUnknown (kept whole).
func setScreen(sc screenFinds, frames map[*doc]*mapping.Frame, unknown bool) {
	for d, ids := range sc.on {
		if f := frames[d]; f != nil {
			f.OnScreen = ids
		}
	}
	for d := range sc.failed {
		if f := frames[d]; f != nil && unknown {
			f.ScreenUnknown = true
		}
	}
}

// screenFinds is what findScreen found: the elements on screen of each
// document it walked, and the documents whose walk failed.
type screenFinds struct {
	on     map[*doc][]cdproto.BackendNodeID
	failed map[*doc]bool
}

// screenOf returns what of d is on screen within clip (nil: its whole
// viewport): the last answer when nothing has changed since, else a walk.
func (p *Provider) screenOf(ctx context.Context, d *doc, clip *[4]float64) (*screenFound, error) {
	if d.info == nil {
		return nil, fmt.Errorf("document %d is not numbered", d.n)
	}
	ks := &d.info.screen
	under, known := screenUnderOf(d.state, clip)
	if known && ks.last != nil && ks.under == under {
		p.screenReuses.Add(1)
		return ks.last, nil
	}
	found, err := p.walkScreen(ctx, d, clip)
	ks.last, ks.under = nil, under
	if err == nil && known {
		ks.last = found
	}
	return found, err
}

// screenUnderOf is what a document's screen is found under, by its page
// state, within clip (nil: its whole viewport); known says the watchers
// tell what moved: those of an older provider (moves -1) count no scroll,
// and a page whose script did not answer tells nothing, and then what
// is found is not kept.
func screenUnderOf(st pageState, clip *[4]float64) (under screenUnder, known bool) {
	under.top = clip == nil
	if clip != nil {
		under.clip = *clip
	}
	if !st.ok || st.moves < 0 {
		return under, false
	}
	under.watcher, under.mutations, under.interactions, under.moves, under.scroll = st.watcher, st.mutations, st.interactions, st.moves, st.scroll
	return under, true
}

// walkScreen runs screen.js in d's isolated world (walkScreenIn).
func (p *Provider) walkScreen(ctx context.Context, d *doc, clip *[4]float64) (*screenFound, error) {
	return p.walkScreenIn(ctx, d.sess, d.frameID, &d.info.screen, clip)
}

// walkScreenIn runs screen.js in a frame's isolated world and keeps in ks
// the DOM ids of the elements it numbered for the first time (its answer
// carries them).
func (p *Provider) walkScreenIn(ctx context.Context, sess *session, frame cdproto.FrameID, ks *docScreen, clip *[4]float64) (*screenFound, error) {
	p.screenWalks.Add(1)
	if len(ks.ids) > screenKept {
		ks.world, ks.ids = "", nil
	}
	clipJS := "null"
	if clip != nil {
		clipJS = fmt.Sprintf("[%g,%g,%g,%g]", clip[0], clip[1], clip[2], clip[3])
	}
	expr := fill(screenScript, "clip", clipJS, "world", strconv.Quote(ks.world))
	items, err := evalItems(ctx, sess, frame, expr)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("the screen script returned nothing")
	}
	var report screenReport
	if err := json.Unmarshal([]byte(items[0].text()), &report); err != nil {
		return nil, fmt.Errorf("the screen script's report: %w", err)
	}
	if len(report.Fresh) != len(items)-1 {
		return nil, fmt.Errorf("the screen script numbered %d elements and returned %d", len(report.Fresh), len(items)-1)
	}
	if report.How == "scroll" {
		p.screenScrolls.Add(1)
	}
	if report.World != ks.world || ks.ids == nil {
		ks.world, ks.ids = report.World, map[int]cdproto.BackendNodeID{}
	}
	for i, n := range report.Fresh {
		ks.ids[n] = items[i+1].node()
	}
	found := &screenFound{on: make([]cdproto.BackendNodeID, 0, len(report.On))}
	for _, n := range report.On {
		if id := ks.ids[n]; id != 0 {
			found.on = append(found.on, id)
		}
	}
	for _, f := range report.Frames {
		if len(f) != 5 {
			continue
		}
		if id := ks.ids[int(f[0])]; id != 0 {
			if found.frames == nil {
				found.frames = map[cdproto.BackendNodeID][4]float64{}
			}
			found.frames[id] = [4]float64{f[1], f[2], f[3], f[4]}
		}
	}
	return found, nil
}

// partialScreen is what partialFetch found of a document's screen: the
// screen script's numbering (the document's docScreen, for assemble to
// keep), its answer, and the nodes Chrome gave for it, with what they
// were found under.
type partialScreen struct {
	screen docScreen
	found  *screenFound
	nodes  []*accessibility.Node
	under  screenUnder
	known  bool
}

// partialFetch reads the top document of a tab whose tree is not kept
// yet (its load walked rather than fetched, warm.Activity.ScreenFirst,
// or nothing of it read: screenFirst), for a read of the screen: the
// screen script finds the elements on screen, and Chrome is asked for
// their nodes alone with what places them (warm.PartialNodes), a few
// milliseconds where the whole tree of a large page holds it for
// seconds. A read with nothing moved since the
// last one (the read in the background that a load starts, then the
// host's) takes its nodes again (counted: partialReuses). The nodes have
// no version: nothing made of them is kept as the page's (the memo, the
// Document last shown), and the mapping counts what was not asked for
// (mapping.Frame.Partial).
func (p *Provider) partialFetch(ctx context.Context, o tabSession, f *cdproto.Frame, st pageState) ([]*accessibility.Node, *partialScreen, error) {
	ps := &partialScreen{}
	ps.under, ps.known = screenUnderOf(st, nil)
	if info := p.state.docNumbered(docKey{o.target, f.ID, f.LoaderID}); info != nil {
		if last := info.partial; last != nil && ps.known && last.under == ps.under { // (kept only when known)
			p.partialReuses.Add(1)
			return last.nodes, last, nil
		}
		ps.screen = info.screen // its numbering; assemble puts it back
	}
	found, err := p.walkScreenIn(ctx, o.sess, f.ID, &ps.screen, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := o.ax.Enable(ctx); err != nil { // (sent by the read meanwhile)
		return nil, nil, err
	}
	if len(found.on) == 0 {
		return nil, nil, fmt.Errorf("nothing of the page is on screen")
	}
	nodes, err := warm.PartialNodes(ctx, o.sess, f.ID, found.on)
	if err != nil {
		return nil, nil, err
	}
	ps.found, ps.nodes = found, nodes
	p.screenPartials.Add(1)
	return nodes, ps, nil
}

// keepPartial keeps in a document's docInfo what partialFetch found of
// its screen, as a walk of screenOf would have: the read's findScreen
// then takes it, and so does the next read while nothing moves.
func keepPartial(info *docInfo, ps *partialScreen) {
	ks := &info.screen
	ks.world, ks.ids, ks.last = ps.screen.world, ps.screen.ids, nil
	info.partial = nil
	if ps.known {
		ks.last, ks.under = ps.found, ps.under
		info.partial = ps
	}
}
