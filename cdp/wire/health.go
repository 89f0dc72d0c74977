package wire

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

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
//   - a page that answers none of the session's calls for answerWithin
//     while the first call of a read waits (a busy main thread) is
//     stuck: its calls under way fail at once, later ones fail without
//     being sent, and a probe waits in the background until the page
//     answers again.
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

// answerWithin is how long a page may go without answering any call
// while a read waits for its first one (a small script) before it counts
// as not responding.
const answerWithin = 1500 * time.Millisecond

// probeEvery bounds one probe of a stuck page; another follows at once.
const probeEvery = 30 * time.Second

// health is what is known of a page session's renderer.
type health struct {
	mu      sync.Mutex
	crashed bool    // since Inspector.targetCrashed
	stuck   bool    // a call went unanswered past answerWithin; until a probe answers
	probing bool    // a probe is under way
	dialog  *Dialog // the JavaScript dialog open in the page, if any
	// document is the top frame's document as the last Page.frameNavigated
	// told (empty: none came since the session was attached). Chrome sends
	// it when a navigation commits, before the new document's scripts run,
	// so it is known of a page that stops answering right after.
	document cdproto.LoaderID
}

// slimNavigated is what a page session's Page.frameNavigated tells the
// health: which frame has which document now.
type slimNavigated struct {
	Frame struct {
		ParentID string           `json:"parentId"`
		LoaderID cdproto.LoaderID `json:"loaderId"`
	} `json:"frame"`
}

// onNavigated records the top frame's new document (Page.frameNavigated),
// on the read loop, and watches the calls under way (afterNavigation).
func (s *Session) onNavigated(params jsonv2.Value) {
	var ev slimNavigated
	if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) != nil || ev.Frame.ParentID != "" {
		return
	}
	s.h.mu.Lock()
	s.h.document = ev.Frame.LoaderID
	s.h.mu.Unlock()
	go s.afterNavigation(s.c.progress(s.id))
}

// afterNavigation treats the calls under way when a tab's page navigated
// as a read's first call (FirstCall): the page before may have answered
// the read's first call, but they wait on the new document, which can be
// busy from its start (a long script as it loads). When the page has
// answered none of the session's calls since the navigation (its count
// was last) answerWithin after it while some wait, and is not busy with
// a long call of the owner's own (a fetch of a document that loaded), it
// is not responding: the calls fail, and the read answers without the
// page rather than at its deadline.
func (s *Session) afterNavigation(last uint64) {
	t := time.NewTimer(answerWithin)
	defer t.Stop()
	for {
		select {
		case <-s.owner.Life.Done():
			return
		case <-t.C:
		}
		if !s.c.waiting(s.id) || s.c.progress(s.id) != last {
			return // nothing waits on it, or it answers
		}
		if s.isBusy() {
			t.Reset(answerWithin)
			continue
		}
		s.markStuck()
		return
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
	if method == page.FrameNavigated.Method {
		s.onNavigated(params)
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
// while the page answers anything: Chrome answers a page's calls one after
// another, so this one may wait behind others (a walk's, in the
// background) and that is no sign of trouble; nor is a page busy with a
// long call of the owner's own (the busy func of Conn.Session). A page
// that answers none of the session's calls for answerWithin otherwise is
// marked stuck, which fails call at once.
func (s *Session) FirstCall(ctx context.Context, call func(context.Context) error) error {
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
			if s.isBusy() {
				t.Reset(answerWithin)
				continue
			}
			s.markStuck()
			return <-done
		}
	}
}
