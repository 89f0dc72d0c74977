package cdp

import (
	"context"
	"fmt"
	"slices"
	"sync"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/cdp/wire"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// read reads what the person sees: the browser's windows, their tabs,
// each window's active tab with every frame of its document, the focus
// and the pointer, mapped into the protocol's answer. It runs the steps
// of a read in order (doc.go has the map), each on what the steps before
// it returned; the windows and their tabs are built last, with their
// Documents. (The one value added to what a step made is a frame's
// OnScreen, which the budget step finds, only when an answer must be
// cut, for mapping to cut by.) A cold read reads every document whole
// (getFullAXTree), bypassing the warm trees, and neither uses nor keeps
// the elements other reads mapped (the tests compare the two). It also
// returns what it saw of the windows, for at (at.go). A read in the
// background (behind: readAhead) that finds a shown tab's document still
// loading stops there, with errLeftToLoad, and keeps nothing: what it
// would read is of a document half parsed, which its load changes again
// and reads again (warm.Trees.OnLoadFetched), and its calls would wait
// behind the load's work on the page's main thread, holding the host's
// next read behind them. Called with p.mu held, on a live connection.
func (p *Provider) read(ctx context.Context, c *wire.Conn, how readHow, behind bool) (*mapping.Current, *sight, error) {
	cold := how == readCold
	if behind && p.state.lastLoading() {
		p.leftToLoad.Add(1)
		return nil, nil, errLeftToLoad
	}
	// The tabs (tabs.go): the page targets and every live target, what
	// each tab says of itself, and which was activated last.
	pages, live, tabs, recent, err := p.readTabs(ctx, c, how)
	if err != nil {
		return nil, nil, p.failure("read the browser's windows and pages", err)
	}
	// A screen script sent ahead for a tab and not taken (the tab not
	// shown after all, the read failed) is dropped.
	ahead := map[*session]*aheadScreen{}
	for _, t := range tabs {
		if t.screen != nil {
			ahead[t.sess] = t.screen
			defer t.screen.drop()
		}
	}
	// The windows: their tabs, numbered, each one's active tab, and the
	// focused window (-1: none).
	wins := p.groupWindows(tabs, recent)
	focused := focusWindow(wins, recent, len(pages))
	// Every frame of each window's active tab, fetched at once
	// (fetch.go), then assembled into its document (assemble.go); or,
	// for a page that cannot answer, its Document as last shown
	// (down.go).
	reads := p.fetchTabs(ctx, c, wins, focused, live, how, behind)
	if behind && slices.ContainsFunc(reads, (*tabRead).leftToLoad) {
		p.leftToLoad.Add(1)
		return nil, nil, errLeftToLoad
	}
	shown := p.assembleTabs(ctx, c, wins, focused, reads)
	// The tabs or pages that could not be read are in the answer,
	// marked; the log says so once for each.
	p.noteUnread(tabs)
	topDocs := topDocuments(shown, focused)
	// What is on screen of them (screen.go), for a screen read, found
	// while the focus and the pointer are read.
	var onScreen chan screenFinds
	if how == readScreen {
		onScreen = make(chan screenFinds, 1)
		go func() { onScreen <- p.findScreen(ctx, topDocs, ahead) }()
	}
	// The keyboard focus (focus.go) and the pointer (pointer.go), read
	// live.
	var focus focusPath
	if focused >= 0 {
		focus = readFocus(ctx, shown[focused].doc)
	}
	pointer := findPointer(ctx, topDocs)
	// The documents that have not changed since the last read, which keep
	// the element it mapped (memo.go).
	var fingerprints map[uint64]uint64
	var reused map[uint64]*mapping.Element
	if !cold {
		fingerprints, reused = p.reuseMapped(topDocs, focus, pointer)
	}
	// The browser as mapping takes it, its windows and tabs with their
	// Documents; the answer, cut to the budgets (budget.go).
	b, frames := p.browserOf(wins, focused, shown, focus, pointer, reused)
	root := mapping.Build(b, p.ids, p.opts.Budget)
	var whole mapping.Element
	cut := false
	if how == readScreen {
		setScreen(<-onScreen, frames, true)
	} else {
		whole = *root // the cut changes the root in place and no element below it
		cut = p.applyBudget(ctx, root, b, topDocs, frames, cold)
	}
	// What the next read needs: the elements mapped, the Documents shown
	// (of the whole page, for a read of the screen too).
	if !cold {
		p.keepMapped(root, fingerprints, cut)
		p.keepScans(reads)
		p.rememberShown(root, topDocs)
		p.restUnshown(reads)
	}
	if how == readScreen {
		root = p.screenAnswer(root, b)
	}
	cur := &mapping.Current{Protocol: mapping.Protocol, Instance: p.ids.Instance(), Root: root}
	seen := &sight{wins: wins, shown: shown, stack: stackWindows(wins, recent, len(pages))}
	if cut {
		seen.whole = &whole
	}
	return cur, seen, nil
}

// screenAnswer is the screen of the answer root of b (mapping.Screen),
// cut to the budgets in reading order: all of it is on screen.
func (p *Provider) screenAnswer(root *mapping.Element, b *mapping.Browser) *mapping.Element {
	cp := *mapping.Screen(root, b, &p.screenMemo) // the cut changes the root in place
	if mapping.OverBudget(&cp, p.opts.Budget) {
		mapping.ApplyBudgetOnScreen(&cp, p.opts.Budget, nil, p.ids)
	}
	return &cp
}

// readHow is how a read reads: warm (the kept trees), cold (every
// document whole, for the tests) or the screen (warm, and only what is
// on screen in the answer).
type readHow int

const (
	readWarm readHow = iota
	readCold
	readScreen
)

// sight is what a read saw of the windows besides its answer: each window
// (wins), what it shows of its active tab (shown, by the same index), and
// the windows from the one on top down (stack: indexes into wins), and,
// when the budget cut the answer, its tree before the cut (whole: the
// hit test names an element it cut, At).
type sight struct {
	wins  []window
	shown []shownTab
	stack []int
	whole *mapping.Element
}

// shownTab is what a window shows of its active tab: the document read,
// or, when its page cannot answer, its Document as last shown (down) and
// the JavaScript dialog it waits on. Empty when the window shows nothing
// (minimised, no active tab, a read that failed).
type shownTab struct {
	doc    *doc
	down   *mapping.Frame
	dialog *mapping.Dialog
}

// fetchTabs plans the read of each window's active tab one after another
// (planTab: it touches the provider's state), then fetches them side by
// side (fetch: every frame of each tab at once). It returns each
// window's tabRead, nil for a window whose tab is not read: minimised,
// none active, or one whose page cannot answer. The tabs it reads are
// the next read's to ask first (readLast, readTabs).
func (p *Provider) fetchTabs(ctx context.Context, c *wire.Conn, wins []window, focused int, live map[target.ID]*target.Info, how readHow, behind bool) []*tabRead {
	reads := make([]*tabRead, len(wins))
	p.state.readLast = p.state.readLast[:0]
	for i, w := range wins {
		if a := w.active; a != nil && !w.minimized && a.down == nil {
			reads[i] = p.planTab(ctx, c, a, live, how, i == focused)
			reads[i].behind = behind
			p.state.readLast = append(p.state.readLast, a.info.TargetID)
		}
	}
	var wg sync.WaitGroup
	for _, r := range reads {
		if r != nil {
			wg.Go(func() { p.fetch(ctx, r) })
		}
	}
	wg.Wait()
	return reads
}

// assembleTabs makes what each window shows of its active tab: the
// document of the frames fetched for it (readDocument), or, for a tab
// whose page cannot answer (before the fetch, or since) or whose
// document could not be read (errNoDocument, then its down), its
// content without asking it (readDown).
func (p *Provider) assembleTabs(ctx context.Context, c *wire.Conn, wins []window, focused int, reads []*tabRead) []shownTab {
	shown := make([]shownTab, len(wins))
	for i, w := range wins {
		r, a := reads[i], w.active
		if r == nil {
			if a != nil && !w.minimized && a.down != nil {
				shown[i].down, shown[i].dialog = p.readDown(a, a.down, i == focused)
			}
			continue
		}
		d, err := p.readDocument(ctx, c, r)
		r.forgetHidden()
		p.forgetGoneFrames(r)
		if err != nil {
			down := a.sess.Unavailable() // it crashed, froze or opened a dialog meanwhile
			if down == nil {
				a.down = fmt.Errorf("%w: %w", errNoDocument, err)
				down = a.down
			}
			shown[i].down, shown[i].dialog = p.readDown(a, down, i == focused)
			continue
		}
		shown[i].doc = d
	}
	return shown
}

// topDocuments are the documents the windows show, the focused window's
// first.
func topDocuments(shown []shownTab, focused int) []*doc {
	var topDocs []*doc
	for i, s := range shown {
		switch {
		case s.doc == nil:
		case i == focused:
			topDocs = slices.Insert(topDocs, 0, s.doc)
		default:
			topDocs = append(topDocs, s.doc)
		}
	}
	return topDocs
}

// browserOf builds the browser as mapping takes it: each window with its
// tabs, the active one with its Document (the document's frames, marked
// with the focus and the pointer, or the Document of a page that cannot
// answer), and the dialog its page waits on; the unchanged top documents
// hold the element reused for them. It returns the frame of every
// document read, too.
func (p *Provider) browserOf(wins []window, focused int, shown []shownTab, focus focusPath, pointer pointerAt, reused map[uint64]*mapping.Element) (*mapping.Browser, map[*doc]*mapping.Frame) {
	b := &mapping.Browser{Product: p.state.product}
	frames := map[*doc]*mapping.Frame{}
	for i, w := range wins {
		mw := &mapping.Window{Key: w.key, Minimized: w.minimized, Unknown: w.unknown, Focused: i == focused, Dialog: shown[i].dialog}
		document := shown[i].down
		if d := shown[i].doc; d != nil {
			document = frameOf(d, focus, pointer, frames)
			document.Mapped = reused[d.n]
		}
		for _, t := range w.tabs {
			tab := &mapping.Tab{Key: t.key, Title: t.info.Title, URL: t.info.URL, Active: t.tabState == w.active}
			tab.Unread, _, _ = unreadMarks(t.tabState)
			if tab.Active {
				tab.Doc = document
			}
			mw.Tabs = append(mw.Tabs, tab)
		}
		b.Windows = append(b.Windows, mw)
	}
	return b, frames
}

// frameOf is the mapping's frame of a document and, in its Frames, of the
// documents its <iframe> elements hold; it records each in frames.
func frameOf(d *doc, focus focusPath, pointer pointerAt, frames map[*doc]*mapping.Frame) *mapping.Frame {
	f := &mapping.Frame{Doc: d.n, URL: d.url, Nodes: d.nodes, ValueText: d.valueText, NodeBase: d.base, Partial: d.partial}
	if focus.has(d) {
		f.HasFocus, f.FocusLive, f.Focus = true, true, focus.chainIn(d)
	}
	if pointer.in == d {
		f.Pointer, f.Hover = true, pointer.hover
	}
	if len(d.children) > 0 {
		f.Frames = map[cdproto.BackendNodeID]*mapping.Frame{}
		for owner, ch := range d.children {
			f.Frames[owner] = frameOf(ch, focus, pointer, frames)
		}
	}
	frames[d] = f
	return f
}
