package cdp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// identify learns the browser's product name and version.
func (p *Provider) identify(ctx context.Context, c *conn, st *connState) error {
	v, err := cdp.Call(ctx, c.browser(), browser.GetVersion, cdp.Empty{})
	if err != nil {
		return err
	}
	name, ver, _ := strings.Cut(v.Product, "/")
	st.version = ver
	st.product = productName(name, v.UserAgent, nil)
	// The brands a page sees tell Chrome from Chromium, Edge and Brave,
	// which the product string does not.
	infos, err := cdp.Call(ctx, c.browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return err
	}
	for _, ti := range infos.TargetInfos {
		if !isPage(ti) {
			continue
		}
		s, err := p.attach(ctx, c, st, ti.TargetID)
		if err != nil {
			continue
		}
		var brands []struct{ Brand string }
		// A page that cannot answer (a dialog, a long script) must not
		// hold the connection up: another page can tell.
		pctx, cancel := probeCtx(ctx)
		err = evalIn(pctx, s, cdp.FrameID(ti.TargetID), brandsScript, &brands)
		if timedOut(pctx, ctx) {
			p.markStuck(s)
		}
		cancel()
		if err == nil {
			names := make([]string, len(brands))
			for i, b := range brands {
				names[i] = b.Brand
			}
			st.product = productName(name, v.UserAgent, names)
			break
		}
	}
	return nil
}

// brandsScript returns the brands a page sees (navigator.userAgentData).
var brandsScript = fill(jsTemplate("brands.js"))

// productName names the browser as a person knows it.
func productName(product, userAgent string, brands []string) string {
	for _, want := range []string{"Google Chrome", "Microsoft Edge", "Brave", "Opera", "Vivaldi"} {
		if slices.Contains(brands, want) {
			return want
		}
	}
	switch {
	case strings.Contains(userAgent, " Edg/"):
		return "Microsoft Edge"
	case strings.Contains(userAgent, " OPR/"):
		return "Opera"
	case slices.Contains(brands, "Chromium"):
		return "Chromium"
	case strings.Contains(product, "Chrome"):
		return "Chromium"
	}
	return cmp.Or(product, "Chromium")
}

// isPage reports whether a target is a tab a person sees: a page, not
// DevTools, not browser UI, not a worker.
func isPage(ti *target.Info) bool {
	return ti.Type == "page" && !strings.HasPrefix(ti.URL, "devtools://")
}

// attach returns the flat session of a target, attaching once per
// connection.
func (p *Provider) attach(ctx context.Context, c *conn, st *connState, id target.ID) (*cdpSession, error) {
	if s, ok := st.sessions[id]; ok {
		return s, nil
	}
	r, err := cdp.Call(ctx, c.browser(), target.AttachToTarget, target.AttachToTargetParams{TargetID: id, Flatten: ptr(true)})
	if err != nil {
		return nil, err
	}
	s := c.session(r.SessionID)
	st.sessions[id] = s
	c.handle(s.id, func(method string, params jsonv2.Value) { p.onSessionEvent(s, method, params) })
	// The Page domain says when a JavaScript dialog opens and closes
	// (health.go). Posted: a page that shows a dialog already does not
	// answer until it closes.
	if err := s.post(ctx, page.CommandEnable, page.EnableParams{}); err != nil {
		return nil, err
	}
	return s, nil
}

// tabState is what one page tab says of itself.
type tabState struct {
	info   *target.Info
	sess   *cdpSession
	window int64
	bounds *browser.Bounds
	state  pageState // of its top document, also used to read it
	// down says why the tab's page cannot be read now (errCrashed,
	// errDialogOpen, errNotResponding); the tab is reported all the same.
	down error
	err  error
}

// gather reads the windows, their tabs and the active tabs' documents,
// in the steps of a read (doc.go has the map): list the page targets,
// ask each tab for its state, group the tabs into windows and choose
// each window's active tab and the focused window, read the content of
// each active tab (every frame at once, then assembled, then the focus
// marked), and find the pointer. It returns what the mapping builds from
// and the top documents it read, the focused window's first.
func (p *Provider) gather(ctx context.Context, c *conn, cold bool) (*mapping.Browser, []*doc, error) {
	pages, live, err := p.listPages(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	recent := p.readTabStates(ctx, c, pages)
	b, wins := p.groupWindows(pages, recent)
	focusWindow(wins, recent, len(pages))
	topDocs := p.readContents(ctx, c, wins, live, cold)
	p.findPointer(ctx, topDocs)
	return b, topDocs, nil
}

// listPages lists the browser's targets: the tabs a person sees (pages),
// and every live target by id. What the provider knew of targets that
// are gone is forgotten.
func (p *Provider) listPages(ctx context.Context, c *conn) ([]*tabState, map[target.ID]*target.Info, error) {
	infos, err := cdp.Call(ctx, c.browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, nil, err
	}
	live := make(map[target.ID]*target.Info, len(infos.TargetInfos))
	var pages []*tabState
	for _, ti := range infos.TargetInfos {
		live[ti.TargetID] = ti
		if isPage(ti) {
			pages = append(pages, &tabState{info: ti})
		}
	}
	p.forgetDead(p.state, live)
	clear(p.state.held)
	return pages, live, nil
}

// readTabStates attaches to every tab serially (it touches the session
// map), then asks each about itself (its window, whether it is visible
// and focused: readTabState) in parallel, since each answer is a round
// trip or two; meanwhile it asks /json/list which tab was activated
// last, and returns that ranking (recency).
func (p *Provider) readTabStates(ctx context.Context, c *conn, pages []*tabState) (recent func(target.ID) int) {
	for _, t := range pages {
		t.sess, t.err = p.attach(ctx, c, p.state, t.info.TargetID)
	}
	var wg sync.WaitGroup
	wg.Go(func() { recent = p.recency(ctx) })
	for _, t := range pages {
		if t.err != nil {
			continue
		}
		wg.Go(func() { t.err = p.readTabState(ctx, c, t) })
	}
	wg.Wait()
	return recent
}

// windowRead is one browser window of a read and its active tab (nil
// when none can be told).
type windowRead struct {
	w      *mapping.Window
	active *tabState
}

// groupWindows groups the tabs that answered into their windows, in the
// order of the windows' ids, and chooses each window's active tab
// (pickActive).
func (p *Provider) groupWindows(pages []*tabState, recent func(target.ID) int) (*mapping.Browser, []windowRead) {
	st := p.state
	byWindow := map[int64][]*tabState{}
	var windowIDs []int64
	for _, t := range pages {
		if t.err != nil {
			p.log.Debug("skipping a tab that did not answer", "url", t.info.URL, "err", t.err)
			continue
		}
		if _, ok := byWindow[t.window]; !ok {
			windowIDs = append(windowIDs, t.window)
		}
		byWindow[t.window] = append(byWindow[t.window], t)
	}
	slices.Sort(windowIDs)

	b := &mapping.Browser{Product: st.product}
	var wins []windowRead
	for _, wid := range windowIDs {
		tabs := byWindow[wid]
		w := &mapping.Window{Key: keyOf(st.windows, wid, &p.keys)}
		w.Minimized = tabs[0].bounds != nil && tabs[0].bounds.WindowState == browser.WindowStateMinimized
		active := pickActive(tabs, recent, st.lastActive[wid])
		if active != nil {
			st.lastActive[wid] = active.info.TargetID
		}
		for _, t := range tabs {
			w.Tabs = append(w.Tabs, &mapping.Tab{
				Key:    keyOf(st.tabs, t.info.TargetID, &p.keys),
				Title:  t.info.Title,
				URL:    t.info.URL,
				Active: t == active,
			})
		}
		b.Windows = append(b.Windows, w)
		wins = append(wins, windowRead{w, active})
	}
	return b, wins
}

// focusWindow marks the focused window: the one whose visible page has
// focus; when several claim it (headless), the most recently activated;
// when none does, the most recently activated window that shows a page.
// tabs is how many tabs the browser has (ranks run below it).
func focusWindow(wins []windowRead, recent func(target.ID) int, tabs int) {
	best, bestScore := -1, [2]int{}
	for i, w := range wins {
		score := [2]int{0, -tabs - 1}
		if a := w.active; a != nil && !w.w.Minimized {
			score = [2]int{1, -recent(a.info.TargetID)}
			if a.state.visible && a.state.focus {
				score[0] = 2
			}
		}
		if best < 0 || score[0] > bestScore[0] || (score[0] == bestScore[0] && score[1] > bestScore[1]) {
			best, bestScore = i, score
		}
	}
	if best >= 0 {
		wins[best].w.Focused = true
	}
}

// readContents reads the content of each window's active tab: planned
// one after another (planTab), fetched side by side (fetch: every frame
// of each tab at once), then assembled (readDocument) and, in the focused
// window, the focus marked (markFocus). A tab whose page cannot answer
// gets its content without asking it (readDown). It returns the top
// documents read, the focused window's first.
func (p *Provider) readContents(ctx context.Context, c *conn, wins []windowRead, live map[target.ID]*target.Info, cold bool) []*doc {
	reads := make([]*tabRead, len(wins))
	for i, w := range wins {
		if a := w.active; a != nil && !w.w.Minimized && a.down == nil {
			reads[i] = p.planTab(ctx, c, a, live, cold, w.w.Focused)
		}
	}
	var wg sync.WaitGroup
	for _, r := range reads {
		if r != nil {
			wg.Go(func() { p.fetch(ctx, r) })
		}
	}
	wg.Wait()
	var topDocs []*doc
	for i, w := range wins {
		r := reads[i]
		a := w.active
		if r == nil {
			if a != nil && !w.w.Minimized && a.down != nil {
				p.readDown(w.w, a)
			}
			continue
		}
		d, err := p.readDocument(ctx, c, r)
		r.forgetHidden()
		if err != nil {
			if a.down = a.sess.unavailable(); a.down != nil { // it crashed, froze or opened a dialog meanwhile
				p.readDown(w.w, a)
				continue
			}
			p.log.Debug("could not read a tab's document", "url", w.active.info.URL, "err", err)
			continue
		}
		if w.w.Focused {
			markFocus(ctx, d)
			topDocs = slices.Insert(topDocs, 0, d)
		} else {
			topDocs = append(topDocs, d)
		}
		for _, t := range w.w.Tabs {
			if t.Active {
				t.Doc = d.frame
			}
		}
	}
	return topDocs
}

// readTabState asks a tab for its window and whether it is visible and
// focused. A page that cannot answer (crashed, behind a dialog, or not
// answering within answerWithin) is marked down, not failed: the tab is
// reported all the same.
func (p *Provider) readTabState(ctx context.Context, c *conn, t *tabState) error {
	w, err := cdp.Call(ctx, c.browser(), browser.GetWindowForTarget, browser.GetWindowForTargetParams{TargetID: t.info.TargetID})
	if err != nil {
		return err
	}
	t.window, t.bounds = int64(w.WindowID), w.Bounds
	if t.down = t.sess.unavailable(); t.down != nil {
		return nil
	}
	pctx, cancel := probeCtx(ctx)
	defer cancel()
	t.state = readPageState(pctx, t.sess, cdp.FrameID(t.info.TargetID))
	if !t.state.ok {
		if timedOut(pctx, ctx) {
			p.markStuck(t.sess)
		}
		if t.down = t.sess.unavailable(); t.down != nil {
			return nil
		}
		return fmt.Errorf("the tab at %s did not answer", t.info.URL)
	}
	return nil
}

// crashedLoader stands for the loader of a crashed page's document: what
// it showed is gone, and a reload makes a new document.
const crashedLoader cdp.LoaderID = "crashed"

// readDown gives a window whose active tab cannot be read its content
// without asking the page: its Document as last read (when kept), with
// nothing on it focused or hovered, saying why in its description; and
// the JavaScript dialog the page waits on, where the person sees it. A
// crashed page's Document is new and empty: its old elements are gone.
func (p *Provider) readDown(w *mapping.Window, t *tabState) {
	st := p.state
	top := cdp.FrameID(t.info.TargetID)
	crashed := errors.Is(t.down, errCrashed)
	var n uint64
	var last docKey
	for k, m := range st.docs {
		if k.target == t.info.TargetID && k.frame == top && m > n {
			n, last = m, k
		}
	}
	if crashed && last.loader != crashedLoader || n == 0 {
		key := docKey{t.info.TargetID, top, ""}
		if crashed {
			key.loader = crashedLoader
			for k, m := range st.docs { // the page's documents are gone
				if k.target == key.target && k.frame == top {
					delete(st.docs, k)
					delete(st.docInfo, m)
				}
			}
		}
		n = keyOf(st.docs, key, &p.keys)
		st.docInfo[n] = &docInfo{key: key, tab: t.info.TargetID}
	}
	dialog := t.sess.openDialog()
	f := &mapping.Frame{Doc: n, URL: t.info.URL, Title: t.info.Title, HasFocus: w.Focused && dialog == nil}
	switch {
	case crashed:
		f.Unavailable = mapping.Crashed
	case dialog != nil:
		f.Unavailable = mapping.BehindDialog
		w.Dialog = dialogElement(dialog)
	default:
		f.Unavailable = mapping.NotResponding
	}
	if el := st.shown[n]; el != nil && !crashed {
		f.Mapped = el
		st.held[n] = true
	}
	for _, tab := range w.Tabs {
		if tab.Active {
			tab.Doc = f
		}
	}
}

// pickActive chooses the active tab of a window: the visible one (the most
// recently activated if several claim it), else the one last known.
func pickActive(tabs []*tabState, recent func(target.ID) int, last target.ID) *tabState {
	var best *tabState
	for _, t := range tabs {
		if t.state.visible && (best == nil || recent(t.info.TargetID) < recent(best.info.TargetID)) {
			best = t
		}
	}
	if best != nil {
		return best
	}
	for _, t := range tabs {
		if t.info.TargetID == last {
			return t
		}
	}
	if len(tabs) == 1 && tabs[0].down != nil { // a page that cannot say it is shown: the window shows it
		return tabs[0]
	}
	return nil
}

// recency returns the rank of each target in /json/list, which lists the
// most recently activated target first (observed, not documented). Targets
// it does not list rank last.
func (p *Provider) recency(ctx context.Context) func(target.ID) int {
	var list []struct {
		ID string `json:"id"`
	}
	rank := map[target.ID]int{}
	if err := p.state.target.getJSON(ctx, "/json/list", &list); err == nil {
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

// keyOf returns the number of a thing, handing out a new one the first
// time it is seen.
func keyOf[K comparable](m map[K]uint64, k K, c *counter) uint64 {
	if n, ok := m[k]; ok {
		return n
	}
	n := c.next()
	m[k] = n
	return n
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
	for k, n := range st.docs {
		if live[k.target] == nil {
			delete(st.docs, k)
			delete(st.docInfo, n)
		}
	}
}

// axRole returns the role name of an accessibility node.
func axRole(n *accessibility.Node) string {
	if n.Role == nil {
		return ""
	}
	var s string
	json.Unmarshal(n.Role.Value, &s)
	return s
}

// axBool reports whether a boolean property of the node is true.
func axBool(n *accessibility.Node, name accessibility.PropertyName) bool {
	for _, pr := range n.Properties {
		if pr.Name == name && pr.Value != nil {
			return string(pr.Value.Value) == "true"
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }
