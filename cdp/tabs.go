package cdp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// The tabs and windows of a read (read.go): the page targets, what each
// tab says of itself, the tabs grouped into windows with each window's
// active tab, and the focused window.

// listPages lists the browser's targets: the tabs a person sees (pages),
// and every live target by id. What the provider knew of targets that
// are gone is forgotten.
func (p *Provider) listPages(ctx context.Context, c *wire.Conn) ([]*target.Info, map[target.ID]*target.Info, error) {
	infos, err := cdproto.Call(ctx, c.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, nil, err
	}
	live := make(map[target.ID]*target.Info, len(infos.TargetInfos))
	var pages []*target.Info
	for _, ti := range infos.TargetInfos {
		live[ti.TargetID] = ti
		if isPage(ti) {
			pages = append(pages, ti)
		}
	}
	p.forgetDead(p.state, live)
	for _, d := range p.state.docs {
		d.held = false
	}
	return pages, live, nil
}

// forgetDead drops what the provider knew of targets that are gone, so its
// memory is bounded by what is alive. Ids of what was dropped answer gone.
func (p *Provider) forgetDead(st *connState, live map[target.ID]*target.Info) {
	for id, s := range st.sessions {
		if live[id] == nil {
			s.ax.Store(nil) // its warm trees are dropped; its events no longer kept
			delete(st.sessions, id)
		}
	}
	for id := range st.tabs {
		if live[id] == nil {
			delete(st.tabs, id)
		}
	}
	for n, d := range st.docs {
		if live[d.key.target] == nil {
			st.forgetDoc(n)
		}
	}
}

// tabState is what one page tab says of itself.
type tabState struct {
	info   *target.Info
	sess   *session
	window int64
	bounds *browser.Bounds
	state  pageState // of its top document, also used to read it
	// frames waits for the frame tree sent right behind the state script
	// (sendAhead); nil when none was.
	frames framesWait
	// screen is the screen script sent right behind the state script in
	// a read of the screen (sendScreen); nil when none was.
	screen *aheadScreen
	// barrier is the first call of the top document's barrier, sent
	// right behind the state script (sendAhead); nil when none was.
	barrier *warm.Barrier
	// down says why the tab's page cannot be read now (wire.ErrCrashed,
	// wire.ErrDialogOpen, wire.ErrNotResponding; errNoState, errNoDocument
	// when the page answers and the provider's read of it failed); the
	// tab is reported all the same.
	down error
	// err says why the tab's window is not known (errNoAttach,
	// errNoWindow): it is reported in a window of its own (groupWindows).
	err error
}

// readTabs lists the tabs (listPages) and asks each about itself (its
// window, whether it is visible and focused: readTabState), all at once,
// since each answer is a round trip or two; meanwhile it asks /json/list
// which tab was activated last. It returns the page targets and every
// live target, the tabs' states in the order of the pages, and that
// ranking (recency).
//
// A tab whose document the last read read is most likely there and
// shown now: it is asked at once, beside the list of targets rather than
// after it, and what the read of its document asks first is sent right
// behind its state script (sendAhead). (Not the active tab of a
// minimised window, nor one whose page could not answer: no read of
// theirs follows.) The other tabs are attached to serially (it touches
// the session map) once listed, then asked.
func (p *Provider) readTabs(ctx context.Context, c *wire.Conn, how readHow) (pages []*target.Info, live map[target.ID]*target.Info, tabs []*tabState, recent func(target.ID) int, err error) {
	cold := how == readCold
	var wg sync.WaitGroup
	wg.Go(func() { recent = p.recency(ctx) })
	early := map[target.ID]*tabState{}
	for _, id := range p.state.readLast {
		if s := p.state.sessions[id]; s != nil && early[id] == nil {
			t := &tabState{info: &target.Info{TargetID: id}, sess: s} // its info once listed
			early[id] = t
			screen := ""
			if how == readScreen {
				screen = p.screenExpr(p.state.topScreen(id, s.ShownDocument()), nil)
			}
			wg.Go(func() { t.err = p.readTabState(ctx, c, t, true, cold, screen) })
		}
	}
	pages, live, err = p.listPages(ctx, c)
	if err != nil {
		wg.Wait()
		return nil, nil, nil, nil, err
	}
	tabs = make([]*tabState, len(pages))
	for i, ti := range pages {
		if t := early[ti.TargetID]; t != nil {
			tabs[i] = t
			p.askedEarly.Add(1)
			continue
		}
		t := &tabState{info: ti}
		tabs[i] = t
		var err error
		if t.sess, err = p.attach(ctx, c, p.state, ti.TargetID); err != nil {
			t.err = fmt.Errorf("%w: %w", errNoAttach, err)
			continue
		}
		wg.Go(func() { t.err = p.readTabState(ctx, c, t, false, cold, "") })
	}
	wg.Wait()
	for i, ti := range pages {
		tabs[i].info = ti // the early ones' too, now that they are done
	}
	return pages, live, tabs, recent, nil
}

// readTabState asks a tab for its window and whether it is visible and
// focused. A page that cannot answer (crashed, behind a dialog, or not
// answering anything for a moment: wire.Session.FirstCall), or that
// answers but not the state script (errNoState), is marked down, not
// failed: the tab is reported all the same. It fails (errNoWindow) only
// when the browser does not say the tab's window. With ahead, what the
// read of its document asks first is sent right behind the state script
// (sendAhead), and, given screen (the screen script for its top
// document), that script too (sendScreen): a read of the screen after a
// scroll then finds the screen before Chrome's main thread is busy
// painting the new one, and one round trip sooner.
func (p *Provider) readTabState(ctx context.Context, c *wire.Conn, t *tabState, ahead, cold bool, screen string) error {
	// The window (the browser's) and the page state (the page's) are
	// asked at once: a round trip less before the document is read.
	var state sync.WaitGroup
	var then func()
	if ahead {
		then = func() {
			t.frames, t.barrier = p.sendAhead(ctx, t.sess, cdproto.FrameID(t.info.TargetID), cold)
			if screen != "" {
				t.screen.drop() // of a try in a world gone
				t.screen = sendScreen(ctx, t.sess, cdproto.FrameID(t.info.TargetID), screen, false)
			}
		}
	}
	if t.down = t.sess.Unavailable(); t.down == nil {
		state.Go(func() {
			t.sess.FirstCall(ctx, func(ctx context.Context) error {
				t.state = readPageStateThen(ctx, t.sess, cdproto.FrameID(t.info.TargetID), then)
				return nil
			})
		})
	}
	w, err := cdproto.Call(ctx, c.Browser(), browser.GetWindowForTarget, browser.GetWindowForTargetParams{TargetID: t.info.TargetID})
	state.Wait()
	if err != nil {
		return fmt.Errorf("%w: %w", errNoWindow, err)
	}
	t.window, t.bounds = int64(w.WindowID), w.Bounds
	if t.down != nil {
		return nil
	}
	if t.state.ok {
		// Known now, a later change of it told by the watchers is a tab
		// switch (readAhead).
		p.ahead.visibility(t.state.watcher, boolInt8(t.state.visible))
	}
	if !t.state.ok {
		if t.down = t.sess.Unavailable(); t.down == nil {
			t.down = errNoState
			if t.state.err != nil {
				t.down = fmt.Errorf("%w: %w", errNoState, t.state.err)
			}
		}
	}
	return nil
}

// Why a tab or its page could not be read, though the page may answer:
// the tab is reported all the same, marked (unreadMarks), and the log
// says so once (noteUnread).
var (
	// errNoAttach: the browser refused the tab's session; nothing of it
	// was asked, its window included.
	errNoAttach = errors.New("could not attach to the tab")
	// errNoWindow: Browser.getWindowForTarget failed.
	errNoWindow = errors.New("the browser did not say the tab's window")
	// errNoState: the page answers calls but not the state script in the
	// provider's isolated world.
	errNoState = errors.New("the tab's page did not answer the state script")
	// errNoDocument: the read of the active tab's document failed.
	errNoDocument = errors.New("could not read the tab's document")
)

// unreadMarks returns what the answer says of a tab the provider could
// not read: the mark of its Tab and of its page's Document (mapping's
// sentences; "" for none), and the cause (nil when the tab was read). A
// page that cannot answer (crashed, behind a dialog, not responding) is
// not the provider's failure: its Document says so (readDown), and its
// Tab is not marked.
func unreadMarks(t *tabState) (tab, page string, cause error) {
	switch {
	case errors.Is(t.err, errNoAttach):
		return mapping.TabNoAttach, "", t.err
	case t.err != nil:
		return mapping.TabNoWindow, "", t.err
	case errors.Is(t.down, errNoState):
		return mapping.TabNoScript, mapping.PageNoScript, t.down
	case errors.Is(t.down, errNoDocument):
		return "", mapping.PageReadFailed, t.down
	}
	return "", "", nil
}

// noteUnread logs each tab the read could not read, at Info, once: a
// tab is noted with its marks until a read reads it again (or it goes:
// forgetDead), so a tab that keeps failing is not logged at every read,
// and one that fails again after it was read, or fails otherwise, is.
func (p *Provider) noteUnread(tabs []*tabState) {
	st := p.state
	for _, t := range tabs {
		info := st.tabs[t.info.TargetID] // groupWindows numbered every tab
		if info == nil {
			continue
		}
		tab, page, cause := unreadMarks(t)
		if cause == nil {
			info.unread = ""
			continue
		}
		mark := tab + " " + page
		if info.unread == mark {
			continue
		}
		info.unread = mark
		p.log.Info("a tab could not be read: the answer shows it, marked, until a read reads it", "title", t.info.Title, "url", t.info.URL, "mark", strings.TrimSpace(mark), "err", cause)
	}
}

// sendAhead sends a tab's page what the read of its document asks first,
// without waiting: its frame tree and, for a warm read, Accessibility.enable
// when the domain is not on (warm.Trees.SendEnable), and the first call
// of the barrier of its top frame's kept tree (warm.Trees.SendBarrier).
// Sent right behind the state script, Chrome runs them right after it,
// and the read finds their answers come, a round trip sooner than asking
// when the state script has answered; right after a scroll, the page's
// work for the read is then more often done before Chrome paints the
// new screen, which holds the page's calls for milliseconds. It returns
// what waits for the frame tree, and the barrier's call, for the read
// of the top document to pass to the warm trees (warm.Activity.Barrier);
// when the tab is not shown after all, nobody waits, and the answers are
// dropped.
func (p *Provider) sendAhead(ctx context.Context, s *session, top cdproto.FrameID, cold bool) (framesWait, *warm.Barrier) {
	frames := sendFrameTree(ctx, s)
	if cold {
		return frames, nil
	}
	a := p.axOf(s)
	a.SendEnable(ctx, func() func(context.Context) error {
		r := s.Send(ctx, accessibility.CommandEnable, cdproto.Empty{})
		return func(ctx context.Context) error { return r.Wait(ctx, nil) }
	})
	barrier := a.SendBarrier(top, func(q accessibility.GetPartialAXTreeParams) func(context.Context) error {
		r := s.Send(ctx, accessibility.CommandGetPartialAXTree, q)
		return func(ctx context.Context) error { return r.Wait(ctx, nil) }
	})
	return frames, barrier
}

// window is one browser window of a read: its number, its tabs, each
// with its number, and its active tab (nil when none can be told). The
// window unknown holds the tabs whose window the browser did not say.
type window struct {
	key       uint64
	minimized bool
	unknown   bool
	bounds    *browser.Bounds // as its first tab's target says; nil when unknown
	tabs      []windowTab
	active    *tabState
}

// windowTab is a tab of a window, with its number.
type windowTab struct {
	key uint64
	*tabState
}

// groupWindows groups the tabs into their windows, in the order of the
// windows' ids, numbers the windows and their tabs, and chooses each
// window's active tab (pickActive). The tabs whose window the browser
// did not say (tabState.err) are put last, in a window of their own
// (noWindow), marked unknown and with no active tab: placed in a window
// of the browser's they might be said to be where they are not. When
// every tab said which window it is in, a window none is in is gone, and
// forgotten.
func (p *Provider) groupWindows(pages []*tabState, recent func(target.ID) int) []window {
	st := p.state
	byWindow := map[int64][]*tabState{}
	var windowIDs []int64
	var lost []*tabState
	allAnswered := true
	for _, t := range pages {
		if t.err != nil {
			lost = append(lost, t)
			allAnswered = false
			continue
		}
		if _, ok := byWindow[t.window]; !ok {
			windowIDs = append(windowIDs, t.window)
		}
		byWindow[t.window] = append(byWindow[t.window], t)
	}
	slices.Sort(windowIDs)

	var wins []window
	for _, wid := range windowIDs {
		tabs := byWindow[wid]
		info := st.windowOf(wid, &p.keys)
		w := window{key: info.key}
		w.bounds = tabs[0].bounds
		w.minimized = w.bounds != nil && w.bounds.WindowState == browser.WindowStateMinimized
		w.active = pickActive(tabs, recent, info.active, w.minimized)
		if w.active != nil {
			info.active = w.active.info.TargetID
		}
		for _, t := range tabs {
			w.tabs = append(w.tabs, windowTab{st.tabOf(t.info.TargetID, &p.keys).key, t})
		}
		wins = append(wins, w)
	}
	if len(lost) > 0 {
		w := window{key: st.windowOf(noWindow, &p.keys).key, unknown: true}
		for _, t := range lost {
			w.tabs = append(w.tabs, windowTab{st.tabOf(t.info.TargetID, &p.keys).key, t})
		}
		wins = append(wins, w)
	}
	if allAnswered {
		for wid := range st.windows {
			if byWindow[wid] == nil {
				delete(st.windows, wid)
			}
		}
	}
	return wins
}

// noWindow stands for the window of the tabs whose window the browser did
// not say (groupWindows): the browser's window ids are positive.
const noWindow int64 = -1

// pickActive chooses the active tab of a window: the visible one (the most
// recently activated if several claim it), else the one last known. When
// no tab says it is visible but the one last known answers that it is
// hidden, the person brought another tab to the front that cannot say so
// (it crashed, or does not answer): the most recently activated of those
// (in a minimised window every tab is hidden, so there the one last known
// stays).
func pickActive(tabs []*tabState, recent func(target.ID) int, last target.ID, minimized bool) *tabState {
	var best *tabState
	for _, t := range tabs {
		if t.state.visible && (best == nil || recent(t.info.TargetID) < recent(best.info.TargetID)) {
			best = t
		}
	}
	if best != nil {
		return best
	}
	var known *tabState
	for _, t := range tabs {
		if t.info.TargetID == last {
			known = t
		}
	}
	if known != nil && (known.down != nil || minimized) {
		return known
	}
	for _, t := range tabs {
		if t.down != nil && (best == nil || recent(t.info.TargetID) < recent(best.info.TargetID)) {
			best = t
		}
	}
	if best != nil {
		return best
	}
	return known
}

// recency returns the rank of each target in /json/list, which lists the
// most recently activated target first (observed, not documented). Targets
// it does not list rank last.
func (p *Provider) recency(ctx context.Context) func(target.ID) int {
	var list []struct {
		ID string `json:"id"`
	}
	rank := map[target.ID]int{}
	if err := p.state.target.GetJSON(ctx, "/json/list", &list); err == nil {
		for i, t := range list {
			rank[target.ID(t.ID)] = i
		}
	}
	return func(id target.ID) int {
		if r, ok := rank[id]; ok {
			return r
		}
		return len(rank)
	}
}

// focusWindow returns the index in wins of the focused window: the one
// whose visible page has focus; when several claim it (headless), the
// most recently activated; when none does, the most recently activated
// window that shows a page. -1 when there is no window. tabs is how many
// tabs the browser has (ranks run below it).
func focusWindow(wins []window, recent func(target.ID) int, tabs int) int {
	if order := stackWindows(wins, recent, tabs); len(order) > 0 {
		return order[0]
	}
	return -1
}

// stackWindows returns the indexes in wins from the window on top to the
// one at the bottom, as far as the browser tells: the focused window
// first (focusWindow), then the others from the most recently activated;
// minimised windows and windows that show no page last. Chrome does not
// say how its windows are stacked; the person works in the window they
// activated last.
func stackWindows(wins []window, recent func(target.ID) int, tabs int) []int {
	score := func(w window) [2]int {
		if a := w.active; a != nil && !w.minimized {
			if a.state.visible && a.state.focus {
				return [2]int{2, -recent(a.info.TargetID)}
			}
			return [2]int{1, -recent(a.info.TargetID)}
		}
		return [2]int{0, -tabs - 1}
	}
	order := make([]int, len(wins))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := score(wins[i]), score(wins[j])
		if a[0] != b[0] {
			return b[0] - a[0]
		}
		return b[1] - a[1]
	})
	return order
}

// windowOf returns what is kept of the browser window with the id,
// numbering it when it is new.
func (st *connState) windowOf(id int64, c *counter) *windowInfo {
	w := st.windows[id]
	if w == nil {
		w = &windowInfo{key: c.next()}
		st.windows[id] = w
	}
	return w
}

// tabOf returns what is kept of the tab, numbering it when it is new.
func (st *connState) tabOf(id target.ID, c *counter) *tabInfo {
	t := st.tabs[id]
	if t == nil {
		t = &tabInfo{key: c.next()}
		st.tabs[id] = t
	}
	return t
}
