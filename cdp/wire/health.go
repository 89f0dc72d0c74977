package wire

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A person's browser has pages that crash, freeze in long scripts, or
// wait on a JavaScript dialog, and a page's renderer then answers none of
// the calls made to it (Chrome queues them on its main thread). So every
// page session keeps its health, and a read never waits on a page that
// cannot answer:
//   - a crash (Inspector.targetCrashed) fails the session's calls until
//     Inspector.targetReloadedAfterCrash;
//   - a JavaScript dialog (Page.javascriptDialogOpening, hence Page.enable
//     on each session) fails them until Page.javascriptDialogClosed;
//   - a page that says nothing on the session (no answer to any call, no
//     event: its main thread sends nearly all of them) for answerWithin
//     while the first call of a read waits (a busy main thread), or a
//     call that was under way when it navigated, is stuck: its calls
//     under way fail at once, later ones fail without being sent, and a
//     probe waits in the background until the page answers again;
//   - but a page whose document loads is given loadWithin: from the
//     commit of its top frame's document (Page.frameNavigated) until the
//     page has done a load's work, its main thread parses, lays out and
//     runs the document's scripts and, after the load
//     (Page.frameStoppedLoading), builds the document's accessibility
//     tree when a session's Accessibility domain is on; a large page on
//     a slow machine answers nothing for seconds meanwhile (over 1.8 s
//     after the load of a 50,000-node page, on a CI machine), and a host
//     that reads the page it asked for reads right then. The load's work
//     is done at Accessibility.loadComplete, at the answer of a read's
//     first call made after the load, or loadWithin after the load,
//     whichever comes first.
// Each change is a change of what a read answers: the session's Owner is
// told. How a page that cannot answer is reported is the reader's.

// Why a page's calls fail.
var (
	ErrCrashed       = errors.New("the page crashed")
	ErrDialogOpen    = errors.New("the page waits for its JavaScript dialog to be answered")
	ErrNotResponding = errors.New("the page is not responding")
)

// Owner is the owner of a connection's target sessions, as their pages'
// health needs it: one for the owner's life, shared by its connections.
type Owner struct {
	// Life ends the probes of stuck pages and the watches after a
	// navigation.
	Life context.Context
	// Log receives a page that stops and starts answering.
	Log *slog.Logger
	// Changed is told that a page's health changed (why, and the page's
	// session), on the read loop or a probe's goroutine: it must return
	// at once.
	Changed func(why string, session target.SessionID)

	// dialogs numbers the JavaScript dialogs seen; never reset.
	dialogs atomic.Uint64
}

// answerWithin is how long a page may say nothing (no answer to any
// call, no event) while a read waits for its first call (a small script)
// before it counts as not responding.
const answerWithin = 1500 * time.Millisecond

// loadWithin is answerWithin for a page whose document loads, from its
// commit until its load's work is done or loadWithin after its load (see
// the top of this file). Chrome itself calls a renderer hung after 15 s
// or more.
const loadWithin = 10 * time.Second

// probeEvery bounds one probe of a stuck page; another follows at once.
const probeEvery = 30 * time.Second

// health is what is known of a page session's renderer.
type health struct {
	mu      sync.Mutex
	crashed bool    // since Inspector.targetCrashed
	stuck   bool    // the page said nothing past its patience; until a probe answers
	probing bool    // a probe is under way
	dialog  *Dialog // the JavaScript dialog open in the page, if any
	// document is the top frame's document as the last Page.frameNavigated
	// told (empty: none came since the session was attached). Chrome sends
	// it when a navigation commits, before the new document's scripts run,
	// so it is known of a page that stops answering right after.
	document cdproto.LoaderID
	// top is the top frame, as the last Page.frameNavigated told.
	top cdproto.FrameID
	// committed is when the last Page.frameNavigated of the top frame
	// came; zero: none since the session was attached.
	committed time.Time
	// loading: the top frame's document committed, and its load's work
	// is not known to be done (the top of this file).
	loading bool
	// loaded is when the top frame stopped loading
	// (Page.frameStoppedLoading) since the commit; zero: not yet.
	loaded time.Time
}

// slimNavigated is what a page session's Page.frameNavigated tells the
// health: which frame has which document now.
type slimNavigated struct {
	Frame struct {
		ID       cdproto.FrameID  `json:"id"`
		ParentID string           `json:"parentId"`
		LoaderID cdproto.LoaderID `json:"loaderId"`
	} `json:"frame"`
}

// slimStopped is a Page.frameStoppedLoading.
type slimStopped struct {
	FrameID cdproto.FrameID `json:"frameId"`
}

// onNavigated records the top frame's new document (Page.frameNavigated),
// on the read loop, and watches the calls under way (afterNavigation).
func (s *Session) onNavigated(params jsonv2.Value) {
	var ev slimNavigated
	if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) != nil || ev.Frame.ParentID != "" {
		return
	}
	s.h.mu.Lock()
	now := time.Now()
	s.h.document, s.h.top, s.h.committed = ev.Frame.LoaderID, ev.Frame.ID, now
	s.h.loading, s.h.loaded = true, time.Time{}
	s.h.mu.Unlock()
	go s.afterNavigation(now)
}

// onStopped records that the top frame stopped loading
// (Page.frameStoppedLoading), on the read loop.
func (s *Session) onStopped(params jsonv2.Value) {
	var ev slimStopped
	if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) != nil {
		return
	}
	s.h.mu.Lock()
	if s.h.loading && ev.FrameID == s.h.top && s.h.loaded.IsZero() {
		s.h.loaded = time.Now()
	}
	s.h.mu.Unlock()
}

// loadDone records that the page's load's work is done: its accessibility
// tree is built (Accessibility.loadComplete; sent zero), or a read's first
// call made at sent, after the load, was answered (Chrome answers it
// after the work the load queued before it).
func (s *Session) loadDone(sent time.Time) {
	s.h.mu.Lock()
	if sent.IsZero() || !s.h.loaded.IsZero() && s.h.loaded.Before(sent) {
		s.h.loading = false
	}
	s.h.mu.Unlock()
}

// loading reports whether the page's document loads: its load's work is
// not done, and loadWithin has not passed since its load.
func (s *Session) loading() bool {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.h.loading && (s.h.loaded.IsZero() || time.Since(s.h.loaded) < loadWithin)
}

// DocumentLoading reports whether the page's top document is still
// loading: it committed (Page.frameNavigated), and neither has the top
// frame stopped loading since (Page.frameStoppedLoading) nor its load's
// work been done (the top of this file), for at most loadWithin after the
// commit. What is read of it now is of a document still parsed, whose
// scripts still run, and its load changes it again. False for a page
// whose commit came before the session was attached.
func (s *Session) DocumentLoading() bool {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.h.loading && s.h.loaded.IsZero() && time.Since(s.h.committed) < loadWithin
}

// patience is how long the page may say nothing before it counts as not
// responding: loadWithin while its document loads, answerWithin
// otherwise.
func (s *Session) patience() time.Duration {
	if s.loading() {
		return loadWithin
	}
	return answerWithin
}

// silence waits until the page has said nothing (no answer, no event)
// past its patience since start, nor been busy with a long call of the
// owner's own, while something waits on it (until stop is closed, and
// while waiting says so); it reports whether that came.
func (s *Session) silence(start time.Time, stop <-chan struct{}, waiting func() bool) bool {
	quiet := start
	t := time.NewTimer(answerWithin)
	defer t.Stop()
	for {
		select {
		case <-s.owner.Life.Done():
			return false
		case <-stop:
			return false
		case <-t.C:
		}
		patience := s.patience() // before waiting, which may ask whether it loads
		if !waiting() {
			return false
		}
		now := time.Now()
		if heard := s.c.lastHeard(s.id); heard.After(quiet) {
			quiet = heard
		}
		if s.isBusy() {
			quiet = now
		}
		wait := patience - now.Sub(quiet)
		if wait <= 0 {
			return true
		}
		t.Reset(wait)
	}
}

// afterNavigation treats the calls under way when a tab's page navigated
// as a read's first call (FirstCall): the page before may have answered
// the read's first call, but they wait on the new document, which can be
// busy from its start (a long script as it loads). While some wait and
// the document loads, a page that has said nothing (no answer, no event)
// for loadWithin, and is not busy with a long call of the owner's own (a
// fetch of a document that loaded), is not responding: the calls fail,
// and the read answers without the page rather than at its deadline.
// Once the load's work is done, the calls are the owner's again (a long
// one of them is no sign of trouble). at is when the navigation was told.
func (s *Session) afterNavigation(at time.Time) {
	if s.silence(at, nil, func() bool { return s.c.waiting(s.id) && s.loading() }) {
		s.markStuck()
	}
}

// isBusy reports whether the page is busy with a long call of the
// owner's own (seconds for the tree of a big document that just loaded):
// a page that answers nothing meanwhile is not frozen.
func (s *Session) isBusy() bool { return s.busy != nil && s.busy() }

// ShownDocument is the top frame's document as the page's events last
// told; empty when they did not.
func (s *Session) ShownDocument() cdproto.LoaderID {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.h.document
}

// Dialog is a JavaScript dialog open in a page.
type Dialog struct {
	// Key numbers the dialog among those its Owner has seen.
	Key           uint64
	Type          string // alert, confirm, prompt, beforeunload
	Message       string
	DefaultPrompt string
	URL           string // of the page that opened it
}

// Unavailable says why the session's calls cannot be answered now
// (ErrCrashed, ErrDialogOpen, ErrNotResponding); nil when they can.
func (s *Session) Unavailable() error {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	switch {
	case s.h.crashed:
		return ErrCrashed
	case s.h.dialog != nil:
		return ErrDialogOpen
	case s.h.stuck:
		return ErrNotResponding
	}
	return nil
}

// OpenDialog returns the session's open dialog, if any.
func (s *Session) OpenDialog() *Dialog {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.h.dialog
}

// onHealthEvent updates a page session's health from its events, on the
// read loop; it reports whether the event was one of them, and none of
// the session's handler's: Page.frameNavigated is both.
func (s *Session) onHealthEvent(method string, params jsonv2.Value) bool {
	switch method {
	case page.FrameNavigated.Method:
		s.onNavigated(params)
		return false
	case page.FrameStoppedLoading.Method:
		s.onStopped(params)
		return false
	case accessibility.LoadComplete.Method:
		s.loadDone(time.Time{})
		return false
	}
	var fail error
	s.h.mu.Lock()
	switch method {
	case "Inspector.targetCrashed":
		s.h.crashed, s.h.dialog = true, nil
		fail = ErrCrashed
	case "Inspector.targetReloadedAfterCrash":
		s.h.crashed, s.h.stuck = false, false
	case page.JavascriptDialogOpening.Method:
		var ev page.EventJavascriptDialogOpening
		if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) == nil {
			s.h.dialog = &Dialog{Key: s.owner.dialogs.Add(1), Type: string(ev.Type), Message: ev.Message, DefaultPrompt: ev.DefaultPrompt, URL: ev.URL}
			fail = ErrDialogOpen
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
	s.owner.Changed(method, s.id)
	return true
}

// markStuck records that the session did not answer in time: its calls
// under way fail, and a probe waits in the background for it to answer.
func (s *Session) markStuck() {
	s.h.mu.Lock()
	if s.h.crashed || s.h.dialog != nil { // they say why already
		s.h.mu.Unlock()
		return
	}
	s.h.stuck = true
	start := !s.h.probing
	s.h.probing = true
	s.h.mu.Unlock()
	s.owner.Log.Info("a page is not responding; reads answer without it until it does", "session", s.id)
	s.c.failSession(s.id, ErrNotResponding)
	if start {
		go s.probe()
	}
}

// probe asks a stuck session for its frame tree, a call its page answers
// on its main thread, until it answers; then the page counts as
// responding again.
func (s *Session) probe() {
	defer func() {
		s.h.mu.Lock()
		s.h.probing = false
		s.h.mu.Unlock()
	}()
	for {
		ctx, cancel := context.WithTimeout(s.owner.Life, probeEvery)
		err := s.call(ctx, page.CommandGetFrameTree, cdproto.Empty{}, nil, true)
		cancel()
		switch {
		case err == nil:
			s.h.mu.Lock()
			s.h.stuck = false
			s.h.mu.Unlock()
			s.owner.Log.Info("a page answers again", "session", s.id)
			s.owner.Changed("a page answers again", s.id)
			return
		case s.owner.Life.Err() != nil, errors.Is(err, errDetached), errors.Is(err, errConnClosed), errors.Is(err, ErrCrashed):
			return // the crash says the rest
		}
	}
}

// FirstCall runs call, the first a read makes to a page, and waits for it
// while the page says anything (answers a call, sends an event): Chrome
// answers a page's calls one after another, so this one may wait behind
// others (a walk's, in the background) and that is no sign of trouble;
// nor is a page busy with a long call of the owner's own (the busy func
// of Conn.Session). A page that says nothing past its patience
// (answerWithin; loadWithin as its document loads) is marked stuck, which
// fails call at once.
func (s *Session) FirstCall(ctx context.Context, call func(context.Context) error) error {
	sent := time.Now()
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	answered := make(chan struct{})
	silent := make(chan bool, 1)
	go func() { silent <- s.silence(sent, answered, func() bool { return true }) }()
	select {
	case err := <-done:
		close(answered)
		if err == nil {
			s.loadDone(sent)
		}
		return err
	case stuck := <-silent:
		if stuck {
			s.markStuck()
		}
		return <-done
	}
}
