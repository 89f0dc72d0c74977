package cdp

import (
	"cmp"
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
)

// bindingName is the function stateScript's watchers call, in the
// provider's isolated world only, when something a person sees changed:
// the DOM, a field's value, focus, the element under the pointer, the
// page's visibility (a tab switch), the URL's fragment.
const bindingName = "cdpproviderChanged"

// Watch calls changed whenever what current answers may have changed,
// until stop is called; at most one watcher at a time. What tells it:
// Chrome's target events (tabs opened, closed, navigated, retitled), the
// accessibility events of the documents it keeps warm, and the passive
// watchers its isolated world keeps in every page it has read. changed is
// called on the connection's read loop: it must return at once. Watch
// reads current in the background, until a read succeeds, so that every
// page shown is watched from the start; when the browser goes away it
// tells the watcher, and reads until the browser is back (or its person
// allowed the connection) to tell it again.
func (p *Provider) Watch(changed func()) (stop func()) {
	f := &changed
	p.watcher.Store(f)
	p.heard()
	go p.readWhileWatched(f, false, "")
	return func() {
		if p.watcher.CompareAndSwap(f, nil) {
			p.heard() // the rest comes RestAfter after the host stopped watching
		}
	}
}

// changed tells the watcher, if any, that the answer may have changed;
// why, and the session of the page that told (empty: none), are logged
// at debug level, so that a notification a host did not expect can be
// traced to its cause. It runs on the read loop: with debug off it
// costs nothing more.
func (p *Provider) changed(why string, session target.SessionID) {
	if f := p.watcher.Load(); f != nil {
		p.log.Debug("current may have changed; telling the watcher", "why", why, "session", session)
		(*f)()
	}
}

// onSessionEvent sees the events of an attached target's session, on the
// read loop, but those of its page's health, which the session keeps
// itself (wire.Session.Handle).
func (p *Provider) onSessionEvent(s *session, method string, params jsonv2.Value) {
	switch method {
	case accessibility.NodesUpdated.Method, accessibility.LoadComplete.Method:
		if a := s.ax.Load(); a != nil {
			a.OnEvent(method, params)
		}
		p.changed(method, s.ID())
	case page.FrameNavigated.Method:
		// The frame's document, and the provider's isolated world in it,
		// are gone: the next script there makes the world at once,
		// rather than first fail in the old one's context.
		var ev struct {
			Frame struct {
				ID cdproto.FrameID `json:"id"`
			} `json:"frame"`
		}
		if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) == nil {
			s.forgetWorld(ev.Frame.ID)
		}
	case page.FrameDetached.Method:
		// The frame is gone from this session (removed, or moved to a
		// process of its own): nothing kept of it is of use again, and
		// its id never comes back here.
		var ev struct {
			FrameID cdproto.FrameID `json:"frameId"`
		}
		if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) == nil && ev.FrameID != "" {
			s.forgetFrame(ev.FrameID)
		}
	case "Runtime.bindingCalled":
		if !strings.Contains(string(params), `"`+bindingName+`"`) {
			return
		}
		sig, ok := parseSignal(params)
		if a := s.ax.Load(); a != nil && ok {
			a.OnSignal(sig.watcher, sig.count)
		}
		if ok && p.ahead.visibility(sig.watcher, sig.visible) {
			p.readAhead()
		}
		p.changed("the page's watchers signalled", s.ID())
	}
}

// signal is what the page's watchers pass the binding: "id count
// visible", visible 1 or 0 (watchers of an older provider pass "id count").
type signal struct {
	watcher, count int64
	visible        int8 // 1 shown, 0 hidden, -1 not told
}

// parseSignal reads the payload of the page's watchers' binding call.
func parseSignal(params jsonv2.Value) (signal, bool) {
	var b struct {
		Payload string `json:"payload"`
	}
	if jsonv2.Unmarshal(params, &b, chromedp.DefaultUnmarshalOptions) != nil {
		return signal{}, false
	}
	f := strings.Fields(b.Payload)
	if len(f) < 2 || len(f) > 3 {
		return signal{}, false
	}
	w, err1 := strconv.ParseInt(f[0], 10, 64)
	c, err2 := strconv.ParseInt(f[1], 10, 64)
	sig := signal{watcher: w, count: c, visible: -1}
	if len(f) == 3 {
		switch f[2] {
		case "1":
			sig.visible = 1
		case "0":
			sig.visible = 0
		default:
			return signal{}, false
		}
	}
	return sig, err1 == nil && err2 == nil
}

// onBrowserEvent sees the browser session's events: the target events
// that Target.setDiscoverTargets turns on. shown holds the connection's
// targets whose end changes what current shows: its tabs and their
// out-of-process frames. A worker, a service worker or a page of
// Chrome's own UI (type browser_ui: a window's omnibox popup, which
// Chrome makes and drops as it pleases) comes and goes unseen, and its
// end is no change: the host is not told. Only the connection's read
// loop touches shown.
func (p *Provider) onBrowserEvent(shown map[target.ID]bool, method string, params jsonv2.Value) {
	switch method {
	case target.TargetCreated.Method, target.TargetInfoChanged.Method:
		var ev struct {
			TargetInfo *target.Info `json:"targetInfo"`
		}
		if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) != nil || ev.TargetInfo == nil {
			return
		}
		info := ev.TargetInfo
		tab := isPage(info)
		if tab || info.Type == "iframe" {
			shown[info.TargetID] = true
		}
		if !tab {
			return
		}
		p.changed(method, "") // not its params: a page's url and title stay out of the log
		if method == target.TargetCreated.Method && !p.ahead.discovering.Load() {
			p.readAhead() // a tab opened
		}
	case target.TargetDestroyed.Method:
		var ev target.EventTargetDestroyed
		if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) != nil || !shown[ev.TargetID] {
			return
		}
		delete(shown, ev.TargetID)
		p.changed(method, "")
	}
}

// discover turns on the target events for a new connection. Chrome
// answers with a targetCreated for every target there is, before the
// reply: those are not tabs opened.
func (p *Provider) discover(ctx context.Context, c *wire.Conn) error {
	shown := map[target.ID]bool{}
	c.Browser().Handle(func(method string, params jsonv2.Value) { p.onBrowserEvent(shown, method, params) })
	p.ahead.discovering.Store(true)
	defer p.ahead.discovering.Store(false)
	_, err := cdproto.Call(ctx, c.Browser(), target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true})
	return err
}

// aheadReads are the reads made in the background (readAhead), and what
// the person is shown at the level of tabs, which starts them.
type aheadReads struct {
	discovering atomic.Bool // the targets there already are being told

	mu      sync.Mutex
	visible map[int64]int8 // watcher -> what it last told of its page's visibility
	running bool           // a background read is under way
	again   bool           // asked for again while it was
	done    int64          // background reads made
	// wg counts the goroutine of the reads under way, which Close waits
	// for: none is left when the provider is closed.
	wg sync.WaitGroup
}

// visibility records what a page's watchers told of its visibility, and
// reports whether it changed: a tab switched (shown or hidden), a window
// minimised or restored.
func (r *aheadReads) visibility(watcher int64, visible int8) bool {
	if visible < 0 {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.visible == nil || len(r.visible) > 256 { // pages long gone
		r.visible = map[int64]int8{}
	}
	before, known := r.visible[watcher]
	r.visible[watcher] = visible
	return known && before != visible
}

// boolInt8 is 1 for true, 0 for false: a visibility as the watchers tell it.
func boolInt8(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// readAhead reads the browser in the background, before a host asks,
// when what the person is shown changed at the level of tabs (a tab
// opened, shown or hidden): a host's next read would meet a document the
// provider has not read, and read it whole. Read now, the document's
// fetch is kept for that read, and its walk starts after it
// (warm.Trees), as after a load. It reads too once the fetch of a page
// that loaded in a read tab is in (warm.Trees.OnLoadFetched): the new
// document is then mapped, and the host's next read, the page unchanged,
// is answered with that mapping (memo.go) rather than map it
// again. Only a provider that has read is told (the events come from its
// connection and from the pages it has read), and one background read
// runs at a time: asked for again while it runs, it runs once more
// after. One that finds a shown tab's document still loading leaves it
// to its load (read: errLeftToLoad), whose fetch reads again.
func (p *Provider) readAhead() {
	if p.resting() {
		return
	}
	r := &p.ahead
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running {
		r.again = true
		return
	}
	if p.life.Err() != nil { // closed: Close waits for what was started before
		return
	}
	r.running = true
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			// Never a dial: a browser that went away is the host's to
			// find again, and asking a person's browser to allow a new
			// connection is not for a read nobody asked for.
			p.mu.Lock()
			connected := p.conn != nil && p.conn.Alive()
			p.mu.Unlock()
			if connected {
				warm.Tracef("read ahead: starts")
				ctx, cancel := context.WithTimeout(p.life, readTimeout)
				err := p.readBehind(ctx)
				cancel()
				warm.Tracef("read ahead: done, err %v", err)
				if err != nil {
					p.log.Debug("a background read failed", "err", err)
				}
			}
			r.mu.Lock()
			r.done++
			if !r.again || p.life.Err() != nil {
				r.running = false
				r.mu.Unlock()
				return
			}
			r.again = false
			r.mu.Unlock()
		}
	}()
}

// readIfNewIframes reads in the background when a tab whose top document
// just loaded (session s) has an out-of-process iframe no read has
// attached to: such an iframe is a target of its own, a new one at each
// load of its page, and Chrome tells nothing of its document to a
// provider not attached to it. The load event comes after the iframes'
// loads, so their targets are there to find.
func (p *Provider) readIfNewIframes(ctx context.Context, s *session) {
	p.mu.Lock()
	st := p.state
	var tab target.ID
	if st != nil {
		for id, ss := range st.sessions {
			if ss == s {
				tab = id
			}
		}
	}
	p.mu.Unlock()
	if tab == "" {
		return
	}
	infos, err := cdproto.Call(ctx, s.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return
	}
	live := make(map[target.ID]*target.Info, len(infos.TargetInfos))
	for _, ti := range infos.TargetInfos {
		live[ti.TargetID] = ti
	}
	p.mu.Lock()
	fresh := false
	for _, ti := range live {
		if ti.Type == "iframe" && underTab(ti, tab, live) && st.sessions[ti.TargetID] == nil {
			fresh = true
		}
	}
	p.mu.Unlock()
	if fresh {
		p.readAhead()
	}
}

// readsAhead tells how many background reads the provider has made
// (readAhead), and whether one is under way.
func (p *Provider) readsAhead() (done int64, running bool) {
	p.ahead.mu.Lock()
	defer p.ahead.mu.Unlock()
	return p.ahead.done, p.ahead.running
}

// followConn tells the watcher when the connection ends (current answers
// differently, an error) and, while anyone watches, reads until the
// browser is back; t is how the connection was reached.
func (p *Provider) followConn(c *wire.Conn, t browsers.Resolved) {
	select {
	case <-c.Done():
	case <-p.life.Done():
		return
	}
	if f := p.watcher.Load(); f != nil {
		p.changed("the connection to the browser ended", "")
		p.readWhileWatched(f, true, portOf(t))
	}
}

// watchRetry is how long a watcher's read waits before it tries again
// to reach a browser that is not there (Provider.watchRetry), unless the
// port of the browser it lost listens again first (untilRetry).
const watchRetry = time.Second

// watchProbe is how often, between a watcher's reads, the port of the
// browser it lost is asked whether it listens again. A person's browser
// restarts at every update, on the same port: read as soon as it is
// back, not up to watchRetry later. A connection to a closed port on
// this machine costs microseconds.
const watchProbe = 25 * time.Millisecond

// readWhileWatched reads current until a read succeeds, while f is the
// watcher, so that the watchers of every page shown run and a browser
// that comes back (or a person who clicks Allow) is told to the host.
// It tells the watcher of the success when notify, or when a read failed
// before it. port is the loopback host:port of the browser last read
// ("" when none, or not on this machine): when nothing listened there,
// the next read comes as soon as something does (untilRetry).
func (p *Provider) readWhileWatched(f *func(), notify bool, port string) {
	for p.watcher.Load() == f {
		_, err := p.current(p.life, readWarm)
		if err == nil {
			if notify {
				p.changed("a read succeeded after the browser was away", "")
			}
			return
		}
		p.log.Debug("a read for the watcher failed", "err", err)
		notify = true
		if !p.untilRetry(port, errors.Is(err, syscall.ECONNREFUSED)) {
			return
		}
	}
}

// untilRetry waits until the watcher's next read is due: watchRetry
// after the last one, or as soon as port, where nothing listened
// (closed, or seen so meanwhile), accepts a TCP connection: a browser
// that restarted there answers, and one read, one dial, follows at
// once. A port that listened all along (the last read failed for
// another reason) starts no read early, lest a port that accepts but
// does not answer be read in a loop. Only a TCP connection, never a
// websocket: a browser that asks its person before it lets one in is
// asked only by the read. It reports false when the provider closed.
func (p *Provider) untilRetry(port string, closed bool) bool {
	retry := time.NewTimer(cmp.Or(p.watchRetry, watchRetry))
	defer retry.Stop()
	var probe <-chan time.Time
	if port != "" {
		t := time.NewTicker(watchProbe)
		defer t.Stop()
		probe = t.C
	}
	for {
		select {
		case <-retry.C:
			return true
		case <-p.life.Done():
			return false
		case <-probe:
		}
		switch {
		case !listens(p.life, port):
			closed = true
		case closed:
			p.log.Debug("the browser's port listens again: reading it", "port", port)
			return true
		}
	}
}

// listens says whether something accepts a TCP connection at addr
// within a probe's time.
func listens(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, watchProbe)
	defer cancel()
	return browsers.Listens(ctx, addr)
}

// portOf is the host:port of a connection's websocket when it is on
// this machine, the port a restarted browser most likely listens on
// again; "" otherwise (a browser service elsewhere is not asked again
// and again).
func portOf(t browsers.Resolved) string {
	u, err := url.Parse(t.WS)
	if err != nil || u.Port() == "" || !browsers.IsLoopback(u.Hostname()) {
		return ""
	}
	return u.Host
}
