package cdp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	cdproto "github.com/chromedp/cdproto/cdp"

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
	under := screenUnder{top: clip == nil}
	if clip != nil {
		under.clip = *clip
	}
	// The watchers tell what moved; those of an older provider (moves -1)
	// count no scroll, and a page whose script did not answer tells
	// nothing: then the walk is not kept.
	st := d.state
	known := st.ok && st.moves >= 0
	if known {
		under.watcher, under.mutations, under.interactions, under.moves, under.scroll = st.watcher, st.mutations, st.interactions, st.moves, st.scroll
		if ks.last != nil && ks.under == under {
			p.screenReuses.Add(1)
			return ks.last, nil
		}
	}
	found, err := p.walkScreen(ctx, d, clip)
	ks.last, ks.under = nil, under
	if err == nil && known {
		ks.last = found
	}
	return found, err
}

// walkScreen runs screen.js in d's isolated world and keeps the DOM ids
// of the elements it numbered for the first time (its answer carries
// them).
func (p *Provider) walkScreen(ctx context.Context, d *doc, clip *[4]float64) (*screenFound, error) {
	p.screenWalks.Add(1)
	ks := &d.info.screen
	if len(ks.ids) > screenKept {
		ks.world, ks.ids = "", nil
	}
	clipJS := "null"
	if clip != nil {
		clipJS = fmt.Sprintf("[%g,%g,%g,%g]", clip[0], clip[1], clip[2], clip[3])
	}
	expr := fill(screenScript, "clip", clipJS, "world", strconv.Quote(ks.world))
	items, err := evalItems(ctx, d.sess, d.frameID, expr)
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
