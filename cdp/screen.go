package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
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
// It keeps its functions in the world; screenCall calls them.
var screenScript = jsTemplate("screen.js")

// screenCall calls the function screen.js kept in the world for the
// numbering {{world}} ({{call}}: find or near), or answers "absent"
// (js/screen_call.js).
var screenCall = jsTemplate("screen_call.js")

// screenVersion is the version of what screen.js keeps in the world:
// a script of another version (an older provider's, in the world all
// providers share) starts its own.
const screenVersion = "5"

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
	// near is the call sent after a read whose answer was new, which
	// numbers the elements near the screen (sendNear); its answer is
	// taken before the document's next one (takeNear). nil: none.
	near *aheadScreen
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
// part of its document's viewport it shows; n is the screen script's
// number of the answer it was made of (0: none, as of a page hidden).
type screenFound struct {
	on     []cdproto.BackendNodeID
	frames map[cdproto.BackendNodeID][4]float64
	// holders are the elements of on that hold another element of on,
	// as far as the script's walk knew, each true when it holds text of
	// its own (warm.PartialNodes asks for them last, and only for what
	// the others' answers lack).
	holders map[cdproto.BackendNodeID]bool
	n       int
	fresh   int // the elements the answer numbered for the first time
}

// screenReport is the first item of screen.js's answer.
type screenReport struct {
	World  string      `json:"world"`
	How    string      `json:"how"`
	On     []int       `json:"on"`
	Frames [][]float64 `json:"frames"`
	Fresh  []int       `json:"fresh"`
	Up     []int       `json:"up"`
	Texts  []int       `json:"texts"`
	N      int         `json:"n"`
}

// errNumberingLost: the screen script named an element on screen whose
// DOM id the provider does not have: an answer that numbered it was
// never taken (a read that ended first, an answer sent ahead for a tab
// not shown after all). Or the world keeps no numbering of the
// provider's (errScreenAbsent). The numbering starts again, and the
// document is walked again.
var errNumberingLost = errors.New("the screen script named an element the provider has no id of")

// errScreenAbsent: the call of the screen script's function answered
// that the world keeps no screen.js of the provider's numbering (its
// document is new, its world made again, or another provider's
// numbering replaced it).
var errScreenAbsent = fmt.Errorf("the isolated world keeps no screen script of the provider's numbering: %w", errNumberingLost)

// findScreen returns, for each document shown (topDocs, and the
// documents of the iframes on screen in them), the backend ids of its
// elements on screen. A document whose walk fails is left out, and
// logged: a screen read then keeps it whole (setScreen), the budget cuts
// it in reading order. Called with p.mu held; each document's docInfo is
// touched by one goroutine.
func (p *Provider) findScreen(ctx context.Context, topDocs []*doc, ahead map[*session]*aheadScreen) screenFinds {
	var mu sync.Mutex
	out := screenFinds{on: map[*doc][]cdproto.BackendNodeID{}, failed: map[*doc]bool{}}
	var wg sync.WaitGroup
	var visit func(d *doc, clip *[4]float64)
	visit = func(d *doc, clip *[4]float64) {
		var a *aheadScreen
		if clip == nil {
			a = ahead[d.sess]
		}
		var before *screenFound
		if d.info != nil {
			before = d.info.screen.last
		}
		found, err := p.screenOf(ctx, d, clip, a)
		if err == nil && clip == nil && found != before && found.n != 0 {
			p.sendNear(ctx, d)
		}
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
// viewport): the answer of the script sent ahead for it (a tab's top
// document in a read of the screen, sendScreen), else the last answer
// when nothing has changed since, else a walk.
func (p *Provider) screenOf(ctx context.Context, d *doc, clip *[4]float64, ahead *aheadScreen) (*screenFound, error) {
	if d.info == nil {
		ahead.drop()
		return nil, fmt.Errorf("document %d is not numbered", d.n)
	}
	ks := &d.info.screen
	under, known := screenUnderOf(d.state, clip)
	keep := func(found *screenFound) { // (not an answer of a page hidden: n 0)
		ks.last, ks.under = nil, under
		if known && found != nil && found.n != 0 {
			ks.last = found
		}
	}
	if ahead.take() {
		found, err := p.takeAhead(ctx, ks, ahead)
		if err == nil {
			keep(found)
			return found, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		p.log.Debug("the screen script sent ahead did not answer; walking again", "url", d.url, "err", err)
	}
	if known && ks.last != nil && ks.under == under {
		p.screenReuses.Add(1)
		return ks.last, nil
	}
	found, err := p.walkScreen(ctx, d, clip)
	keep(found)
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
	for try := 0; ; try++ {
		items, err := evalItems(ctx, sess, frame, p.screenExpr(ks, clip))
		if err != nil {
			return nil, err
		}
		report, err := reportOf(items)
		if err != nil {
			return nil, err
		}
		found, err := p.takeScreen(ctx, ks, report, items)
		if errors.Is(err, errNumberingLost) && try == 0 {
			ks.forget()
			continue
		}
		return found, err
	}
}

// screenExpr is what finds the screen of a document whose numbering is
// ks, within clip (nil: a top document's whole viewport): screen.js when
// the provider has no numbering of it, else a call of the function
// screen.js kept in its world (screenCall), counted (screenCalls). A
// numbering grown past screenKept starts again.
func (p *Provider) screenExpr(ks *docScreen, clip *[4]float64) string {
	if len(ks.ids) > screenKept {
		ks.forget()
	}
	clipJS := "null"
	if clip != nil {
		clipJS = fmt.Sprintf("[%g,%g,%g,%g]", clip[0], clip[1], clip[2], clip[3])
	}
	last := 0
	if ks.last != nil {
		last = ks.last.n
	}
	if ks.world != "" {
		p.screenCalls.Add(1)
		return ks.call(fmt.Sprintf("find(%s, %d)", clipJS, last))
	}
	return fill(screenScript, "version", screenVersion, "clip", clipJS, "world", strconv.Quote(ks.world), "last", strconv.Itoa(last))
}

// nearScreens is how far from the screen, in screens above and below,
// sendNear numbers the elements of the last walk.
const nearScreens = 2

// sendNear sends a top document a call of the screen script's near
// (js/screen.js) after a read whose answer was new (the page scrolled,
// or changed): it numbers the elements of the last walk within
// nearScreens of the screen that have no number yet, whose DOM ids then
// come back while the page is idle rather than in the answer of the
// read after the next scroll. Sent after each such read, not only after
// one that found elements new on screen, it keeps the numbered reach
// ahead of a person who scrolls on. Its answer is not waited for: the
// next screen answer of the document takes it first (takeNear).
func (p *Provider) sendNear(ctx context.Context, d *doc) {
	ks := &d.info.screen
	if ks.near != nil || ks.world == "" {
		return
	}
	ks.near = sendScreen(context.WithoutCancel(ctx), d.sess, d.frameID, ks.call(fmt.Sprintf("near(%d * innerHeight)", nearScreens)), true)
}

// call is screenCall of the function call, for ks's numbering.
func (ks *docScreen) call(call string) string {
	return fill(screenCall, "version", screenVersion, "world", strconv.Quote(ks.world), "call", call)
}

// TakeNear waits for the answers of the near scripts the last screen
// read sent (sendNear), and takes them, as the next read would: for a
// benchmark that times reads as a person makes them, whose page has
// done that work by the next one, seconds later.
func (p *Provider) TakeNear(ctx context.Context) error {
	if err := p.mu.lockContext(ctx); err != nil {
		return err
	}
	defer p.mu.Unlock()
	if p.state == nil {
		return nil
	}
	for _, d := range p.state.docs {
		p.takeNear(ctx, &d.screen)
	}
	return ctx.Err()
}

// takeNear takes the answer of the near script sent for a document
// (sendNear), when there is one, into its numbering ks: it came before
// any later answer of the document's, which may name what it numbered.
// One that failed, or is of another numbering, is dropped: a later
// answer naming what it numbered starts a new numbering
// (errNumberingLost).
func (p *Provider) takeNear(ctx context.Context, ks *docScreen) {
	a := ks.near
	ks.near = nil
	if !a.take() {
		return
	}
	report, items, err := a.answer(ctx)
	if err != nil || report.How != "near" || report.World != ks.world || ks.ids == nil || ks.number(report, items) != nil {
		return
	}
	p.screenNear.Add(int64(len(report.Fresh)))
}

// forget drops a document's numbering and its last answer: the next
// screen script starts a new one, and returns every element it finds.
func (ks *docScreen) forget() { ks.world, ks.ids, ks.last = "", nil, nil }

// takeScreen takes the screen script's answer (its report, read from
// the first of its items, and the items) for the document whose
// numbering is ks: the DOM ids of the elements it numbered for the first
// time are kept, and what is on screen returned; an answer "same" is the
// last one kept (counted as taken again: screenReuses), "hidden" is
// nothing on screen. It fails with errNumberingLost when the answer
// names an element it has no id of.
func (p *Provider) takeScreen(ctx context.Context, ks *docScreen, report screenReport, items []item) (*screenFound, error) {
	p.takeNear(ctx, ks)
	switch report.How {
	case "same":
		if ks.last == nil || report.World != ks.world || report.N != ks.last.n {
			return nil, fmt.Errorf("the screen script answered its answer %d again, which the provider does not keep", report.N)
		}
		p.screenReuses.Add(1)
		return ks.last, nil
	case "hidden":
		return &screenFound{}, nil
	case "absent":
		return nil, errScreenAbsent
	case "scroll":
		p.screenScrolls.Add(1)
	}
	p.screenWalks.Add(1)
	if err := ks.number(report, items); err != nil {
		return nil, err
	}
	p.screenFresh.Add(int64(len(report.Fresh)))
	idOf := func(n int) (cdproto.BackendNodeID, error) {
		id, ok := ks.ids[n]
		if !ok {
			return 0, errNumberingLost
		}
		return id, nil
	}
	found := &screenFound{on: make([]cdproto.BackendNodeID, 0, len(report.On)), n: report.N, fresh: len(report.Fresh)}
	for _, n := range report.On {
		id, err := idOf(n)
		if err != nil {
			return nil, err
		}
		if id != 0 {
			found.on = append(found.on, id)
		}
	}
	for _, n := range report.Up {
		if id := ks.ids[n]; id != 0 {
			if found.holders == nil {
				found.holders = make(map[cdproto.BackendNodeID]bool, len(report.Up))
			}
			found.holders[id] = false
		}
	}
	for _, n := range report.Texts { // (of Up)
		if _, ok := found.holders[ks.ids[n]]; ok {
			found.holders[ks.ids[n]] = true
		}
	}
	for _, f := range report.Frames {
		if len(f) != 5 {
			continue
		}
		id, err := idOf(int(f[0]))
		if err != nil {
			return nil, err
		}
		if id != 0 {
			if found.frames == nil {
				found.frames = map[cdproto.BackendNodeID][4]float64{}
			}
			found.frames[id] = [4]float64{f[1], f[2], f[3], f[4]}
		}
	}
	return found, nil
}

// reportOf reads the first item of the screen script's answer.
func reportOf(items []item) (screenReport, error) {
	var report screenReport
	if len(items) == 0 {
		return report, fmt.Errorf("the screen script returned nothing")
	}
	if err := json.Unmarshal([]byte(items[0].text()), &report); err != nil {
		return report, fmt.Errorf("the screen script's report: %w", err)
	}
	return report, nil
}

// number keeps the DOM ids of the elements an answer numbered for the
// first time (its fresh serials, then the elements, in that order); an
// answer of another numbering than ks's starts ks anew with it.
func (ks *docScreen) number(report screenReport, items []item) error {
	if len(report.Fresh) != len(items)-1 {
		return fmt.Errorf("the screen script numbered %d elements and returned %d", len(report.Fresh), len(items)-1)
	}
	if report.World != ks.world || ks.ids == nil {
		ks.world, ks.ids = report.World, map[int]cdproto.BackendNodeID{}
	}
	for i, n := range report.Fresh {
		ks.ids[n] = items[i+1].node()
	}
	return nil
}

// aheadScreen is the screen script sent right behind a tab's state
// script in a read of the screen (sendScreen), for the tab's top
// document, with the numbering the provider kept of it: its answer is
// the read's to take (screenOf, partialFetch) once, or to drop. Or the
// call of near sent after a read (sendNear), taken by the next.
type aheadScreen struct {
	taken  atomic.Bool
	done   chan struct{} // closed once the answer is in its, report and err
	its    []item
	report screenReport
	err    error
}

// sendScreen sends screen.js, or a call of it, as expr, to the
// provider's isolated world in a frame, without waiting for its answer;
// nil when the frame has no world known (the state script just sent
// makes one first). A goroutine of its own waits for the answer and
// decodes it, while the read goes on, then releases the remote objects
// Chrome keeps of it. later: that goroutine sends it too, for a script
// whose answer this read does not wait for (near): the read does not
// wait for the write either. The report is read there too, while the
// read waits for Chrome's other answers.
func sendScreen(ctx context.Context, s *session, frame cdproto.FrameID, expr string, later bool) *aheadScreen {
	w, ok := s.knownWorld(frame)
	if !ok {
		return nil
	}
	a := &aheadScreen{done: make(chan struct{})}
	group := newObjectGroup()
	send := func() *wire.Reply { return sendEval(ctx, s, w, expr, group, false, deepItems) }
	var reply *wire.Reply
	if !later {
		reply = send()
	}
	go func() {
		defer close(a.done)
		if reply == nil {
			reply = send()
		}
		a.its, a.err = answerItems(ctx, reply)
		s.releaseGroup(ctx, group) // (after the script, even when the wait ended first)
		if a.err == nil {
			a.report, a.err = reportOf(a.its)
		}
	}()
	return a
}

// answerItems waits for the answer of a script sent and returns its
// items.
func answerItems(ctx context.Context, reply *wire.Reply) ([]item, error) {
	r := new(runtime.EvaluateResult)
	if err := reply.Wait(ctx, r); err != nil {
		return nil, err
	}
	res, err := resultOf(r)
	if err != nil {
		return nil, err
	}
	return itemsOf(res)
}

// take reports whether a is there and not taken yet, and takes it.
func (a *aheadScreen) take() bool { return a != nil && a.taken.CompareAndSwap(false, true) }

// drop lets go of an answer nobody takes. The elements it numbered for
// the first time are lost to the provider: the next screen script that
// names one of them starts a new numbering (errNumberingLost).
func (a *aheadScreen) drop() { a.take() }

// answer waits for the script's answer and returns its report and
// items.
func (a *aheadScreen) answer(ctx context.Context) (screenReport, []item, error) {
	select {
	case <-a.done:
		return a.report, a.its, a.err
	case <-ctx.Done():
		return screenReport{}, nil, ctx.Err()
	}
}

// takeAhead waits for the answer of the screen script sent ahead, taken
// by its caller, and takes it for the numbering ks (takeScreen); when
// that names an element it has no id of, the numbering is forgotten.
func (p *Provider) takeAhead(ctx context.Context, ks *docScreen, a *aheadScreen) (*screenFound, error) {
	report, items, err := a.answer(ctx)
	if err != nil {
		return nil, err
	}
	found, err := p.takeScreen(ctx, ks, report, items)
	if errors.Is(err, errNumberingLost) {
		ks.forget()
	}
	if err == nil {
		p.screenAheads.Add(1)
	}
	return found, err
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
// (mapping.Frame.Partial). The document's walk sends no call
// meanwhile.
func (p *Provider) partialFetch(ctx context.Context, o tabSession, f *cdproto.Frame, st pageState, ahead *aheadScreen) ([]*accessibility.Node, *partialScreen, error) {
	// The document's walk sends nothing meanwhile: its calls would go in
	// front of the read's (warm.Trees.HoldWalks).
	defer o.ax.HoldWalks()()
	ps := &partialScreen{}
	ps.under, ps.known = screenUnderOf(st, nil)
	var last *partialScreen
	if info := p.state.docNumbered(docKey{o.target, f.ID, f.LoaderID}); info != nil {
		last = info.partial     // (kept only when known)
		ps.screen = info.screen // its numbering; assemble puts it back
	}
	// The script sent ahead answers first; "same" is the last answer,
	// whose nodes are taken again, as they are when nothing moved.
	var found *screenFound
	if ahead.take() {
		var err error
		if found, err = p.takeAhead(ctx, &ps.screen, ahead); err != nil && ctx.Err() != nil {
			return nil, nil, err
		}
	}
	if last != nil && ps.known && (found == last.found || found == nil && last.under == ps.under) {
		p.partialReuses.Add(1)
		return last.nodes, last, nil
	}
	if found == nil {
		var err error
		if found, err = p.walkScreenIn(ctx, o.sess, f.ID, &ps.screen, nil); err != nil {
			return nil, nil, err
		}
	}
	if err := o.ax.Enable(ctx); err != nil { // (sent by the read meanwhile)
		return nil, nil, err
	}
	if len(found.on) == 0 {
		return nil, nil, fmt.Errorf("nothing of the page is on screen")
	}
	nodes, err := warm.PartialNodes(ctx, o.sess, f.ID, found.on, found.holders)
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
