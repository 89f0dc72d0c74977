package cdp

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// Step 3 of a read, with read3_pagestate.go: each tab's state. A page
// that cannot answer is reported without being asked (readDown).

// A person's browser has pages that crash, freeze in long scripts, or
// wait on a JavaScript dialog, and a page's renderer then answers none of
// the calls made to it (Chrome queues them on its main thread). So every
// page session keeps its health, and a read never waits on a page that
// cannot answer:
//   - a crash (Inspector.targetCrashed) fails the session's calls until
//     Inspector.targetReloadedAfterCrash;
//   - a JavaScript dialog (Page.javascriptDialogOpening, hence Page.enable
//     on each session) fails them until Page.javascriptDialogClosed;
//   - a page that answers none of the provider's calls for answerWithin
//     while the first call of a read waits (a busy main thread) is
//     stuck: its calls under way fail at once, later ones fail without
//     being sent, and a probe waits in the background until the page
//     answers again.
// Each change is a change of what current answers: the watcher is told.

// Why a page's calls fail.
var (
	errCrashed       = errors.New("the page crashed")
	errDialogOpen    = errors.New("the page waits for its JavaScript dialog to be answered")
	errNotResponding = errors.New("the page is not responding")
)

// answerWithin is how long a page may go without answering any call
// while a read waits for its first one (a small script) before it counts
// as not responding.
const answerWithin = 1500 * time.Millisecond

// probeEvery bounds one probe of a stuck page; another follows at once.
const probeEvery = 30 * time.Second

// health is what the provider knows of a page session's renderer.
type health struct {
	mu      sync.Mutex
	crashed bool      // since Inspector.targetCrashed
	stuck   bool      // a call went unanswered past answerWithin; until a probe answers
	probing bool      // a probe is under way
	dialog  *jsDialog // the JavaScript dialog open in the page, if any
	// document is the top frame's document as the last Page.frameNavigated
	// told (empty: none came since the session was attached). Chrome sends
	// it when a navigation commits, before the new document's scripts run,
	// so it is known of a page that stops answering right after.
	document cdp.LoaderID
}

// slimNavigated is what a page session's Page.frameNavigated tells the
// health: which frame has which document now.
type slimNavigated struct {
	Frame struct {
		ParentID string       `json:"parentId"`
		LoaderID cdp.LoaderID `json:"loaderId"`
	} `json:"frame"`
}

// onNavigated records the top frame's new document (Page.frameNavigated),
// on the read loop, and watches the calls under way (afterNavigation).
func (p *Provider) onNavigated(s *cdpSession, params jsonv2.Value) {
	var ev slimNavigated
	if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) != nil || ev.Frame.ParentID != "" {
		return
	}
	s.h.mu.Lock()
	s.h.document = ev.Frame.LoaderID
	s.h.mu.Unlock()
	go p.afterNavigation(s, s.c.progress(s.id))
}

// afterNavigation treats the calls under way when a tab's page navigated
// as a read's first call (firstCall): the page before may have answered
// the read's first call, but they wait on the new document, which can be
// busy from its start (a long script as it loads). When the page has
// answered none of the session's calls since the navigation (its count
// was last) answerWithin after it while some wait, and is not busy with
// the provider's own fetch of a document that loaded, it is not
// responding: the calls fail, and the read answers without the page
// rather than at its deadline.
func (p *Provider) afterNavigation(s *cdpSession, last uint64) {
	t := time.NewTimer(answerWithin)
	defer t.Stop()
	for {
		select {
		case <-p.life.Done():
			return
		case <-t.C:
		}
		if !s.c.waiting(s.id) || s.c.progress(s.id) != last {
			return // nothing waits on it, or it answers
		}
		if s.fetchingLoaded() {
			t.Reset(answerWithin)
			continue
		}
		p.markStuck(s)
		return
	}
}

// fetchingLoaded reports whether the page is busy with the provider's own
// getFullAXTree of a document that just loaded (seconds for a big one):
// a page that answers nothing meanwhile is not frozen.
func (s *cdpSession) fetchingLoaded() bool {
	a := s.ax.Load()
	return a != nil && a.Fetching()
}

// shownDocument is the top frame's document as the page's events last
// told; empty when they did not.
func (s *cdpSession) shownDocument() cdp.LoaderID {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.h.document
}

// jsDialog is an open JavaScript dialog.
type jsDialog struct {
	key           uint64
	typ           string
	message       string
	defaultPrompt string
	url           string
}

// unavailable says why the session's calls cannot be answered now; nil
// when they can.
func (s *cdpSession) unavailable() error {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	switch {
	case s.h.crashed:
		return errCrashed
	case s.h.dialog != nil:
		return errDialogOpen
	case s.h.stuck:
		return errNotResponding
	}
	return nil
}

// openDialog returns the session's open dialog, if any.
func (s *cdpSession) openDialog() *jsDialog {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.h.dialog
}

// onHealthEvent updates a page session's health from its events, on the
// read loop; it reports whether the event was one of them.
func (p *Provider) onHealthEvent(s *cdpSession, method string, params jsonv2.Value) bool {
	var fail error
	s.h.mu.Lock()
	switch method {
	case "Inspector.targetCrashed":
		s.h.crashed, s.h.dialog = true, nil
		fail = errCrashed
	case "Inspector.targetReloadedAfterCrash":
		s.h.crashed, s.h.stuck = false, false
	case page.JavascriptDialogOpening.Method:
		var ev page.EventJavascriptDialogOpening
		if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) == nil {
			s.h.dialog = &jsDialog{key: p.dialogs.Add(1), typ: string(ev.Type), message: ev.Message, defaultPrompt: ev.DefaultPrompt, url: ev.URL}
			fail = errDialogOpen
		}
	case page.JavascriptDialogClosed.Method:
		s.h.dialog = nil
	default:
		s.h.mu.Unlock()
		return false
	}
	s.h.mu.Unlock()
	if fail != nil {
		s.c.failSession(s.id, fail)
	}
	p.changed(method, s.id)
	return true
}

// markStuck records that the session did not answer in time: its calls
// under way fail, and a probe waits in the background for it to answer.
func (p *Provider) markStuck(s *cdpSession) {
	s.h.mu.Lock()
	if s.h.crashed || s.h.dialog != nil { // they say why already
		s.h.mu.Unlock()
		return
	}
	s.h.stuck = true
	start := !s.h.probing
	s.h.probing = true
	s.h.mu.Unlock()
	p.log.Info("a page is not responding; reads answer without it until it does", "session", s.id)
	s.c.failSession(s.id, errNotResponding)
	if start {
		go p.probe(s)
	}
}

// probe asks a stuck session for its frame tree, a call its page answers
// on its main thread, until it answers; then the page counts as
// responding again.
func (p *Provider) probe(s *cdpSession) {
	defer func() {
		s.h.mu.Lock()
		s.h.probing = false
		s.h.mu.Unlock()
	}()
	for {
		ctx, cancel := context.WithTimeout(p.life, probeEvery)
		err := s.call(ctx, page.CommandGetFrameTree, cdp.Empty{}, nil, true)
		cancel()
		switch {
		case err == nil:
			s.h.mu.Lock()
			s.h.stuck = false
			s.h.mu.Unlock()
			p.log.Info("a page answers again", "session", s.id)
			p.changed("a page answers again", s.id)
			return
		case p.life.Err() != nil, errors.Is(err, errDetached), errors.Is(err, errConnClosed), errors.Is(err, errCrashed):
			return // the crash says the rest
		}
	}
}

// firstCall runs call, the first a read makes to a page, and waits for it
// while the page answers anything: Chrome answers a page's calls one after
// another, so this one may wait behind others (a walk's, in the
// background) and that is no sign of trouble; nor is a page busy with the
// provider's own getFullAXTree of a document that just loaded
// (warm.Trees.Fetching). A page that answers none of the provider's calls
// for answerWithin otherwise is marked stuck, which fails call at once.
func (p *Provider) firstCall(ctx context.Context, s *cdpSession, call func(context.Context) error) error {
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	last := s.c.progress(s.id)
	t := time.NewTimer(answerWithin)
	defer t.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-t.C:
			if n := s.c.progress(s.id); n != last {
				last = n
				t.Reset(answerWithin)
				continue
			}
			if s.fetchingLoaded() {
				t.Reset(answerWithin)
				continue
			}
			p.markStuck(s)
			return <-done
		}
	}
}

// dialogElement is the mapping's Dialog of an open dialog.
func dialogElement(d *jsDialog) *mapping.Dialog {
	title := "Leave site?"
	if d.typ != "beforeunload" {
		title = "This page says"
		if u, err := url.Parse(d.url); err == nil && u.Host != "" {
			title = u.Host + " says"
		}
	}
	return &mapping.Dialog{Key: d.key, Type: d.typ, Title: title, Message: d.message, DefaultPrompt: d.defaultPrompt}
}

// crashedLoader stands for the loader of a crashed page's document: what
// it showed is gone, and a reload makes a new document.
const crashedLoader cdp.LoaderID = "crashed"

// readDown gives a window whose active tab cannot be read its content
// without asking the page: its Document as last read (when kept), with
// nothing on it focused or hovered, saying why in its description; and
// the JavaScript dialog the page waits on, where the person sees it. A
// crashed page's Document is new and empty: its old elements are gone.
// So is the Document of a page that navigated since it was last read
// (Page.frameNavigated told of a document no read has seen): the person
// sees the new page, not the one before.
func (p *Provider) readDown(w *mapping.Window, t *tabState) {
	st := p.state
	top := cdp.FrameID(t.info.TargetID)
	crashed := errors.Is(t.down, errCrashed)
	shown := t.sess.shownDocument()
	if crashed {
		shown = ""
	}
	var n uint64
	var last docKey
	for k, m := range st.docs {
		if k.target == t.info.TargetID && k.frame == top && m > n && (shown == "" || k.loader == shown) {
			n, last = m, k
		}
	}
	if crashed && last.loader != crashedLoader || n == 0 {
		key := docKey{t.info.TargetID, top, shown}
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
