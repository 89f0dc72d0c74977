package wire

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	cdpmsg "github.com/chromedp/cdproto"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

// fakePageSession returns an owner, alive until the test ends, and its
// page session "S1", whose events it handles, on a connection over a
// fake transport; busy says the page is busy with the owner's own call
// (nil: never).
func fakePageSession(t *testing.T, busy func() bool) (*fakeTransport, *Owner, *Session) {
	tr := newFakeTransport()
	c := newConn(tr)
	t.Cleanup(c.Close)
	life, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	o := &Owner{Life: life, Log: slog.New(slog.DiscardHandler), Changed: func(string, target.SessionID) {}}
	s := c.Session("S1", o, busy)
	s.Handle(func(string, jsonv2.Value) {})
	return tr, o, s
}

// pageEvent has the fake page send an event on session S1, and waits
// until it is handled (in a synctest bubble).
func pageEvent(tr *fakeTransport, method, params string) {
	tr.in <- &cdpmsg.Message{SessionID: "S1", Method: cdpmsg.MethodType(method), Params: jsonv2.Value(params)}
	synctest.Wait()
}

// commitTop has the fake page commit a new document in its top frame, T1.
func commitTop(tr *fakeTransport) {
	pageEvent(tr, "Page.frameNavigated", `{"frame":{"id":"T1","loaderId":"L2","url":"http://a.test/big"},"type":"Navigation"}`)
}

// stopTop has the fake page's top frame stop loading.
func stopTop(tr *fakeTransport) { pageEvent(tr, "Page.frameStoppedLoading", `{"frameId":"T1"}`) }

// getTargets returns a call on the session that the fake page answers
// only when the test sends its answer.
func getTargets(s *Session) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := cdproto.Call(ctx, s, target.GetTargets, target.GetTargetsParams{})
		return err
	}
}

// A page that does not answer in time is stuck: its call under way fails
// at once, later calls fail without being sent, and once the probe is
// answered the page counts as responding again and its calls go out.
func TestStuckPageFailsFastUntilItAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, o, s := fakePageSession(t, nil)
		changed := make(chan struct{}, 8)
		o.Changed = func(string, target.SessionID) { changed <- struct{}{} }

		// a walk's call, under way when the page freezes
		walk := make(chan error, 1)
		go func() {
			_, err := cdproto.Call(context.Background(), s, target.GetTargets, target.GetTargetsParams{})
			walk <- err
		}()
		<-tr.out
		s.markStuck()
		if err := <-walk; !errors.Is(err, ErrNotResponding) {
			t.Fatalf("call under way on a stuck page: %v, want ErrNotResponding", err)
		}
		probe := <-tr.out // the probe, sent anyway
		if probe.Method != "Page.getFrameTree" {
			t.Fatalf("probe %s, want Page.getFrameTree", probe.Method)
		}
		if _, err := cdproto.Call(context.Background(), s, target.GetTargets, target.GetTargetsParams{}); !errors.Is(err, ErrNotResponding) {
			t.Fatalf("call to a stuck page: %v, want ErrNotResponding at once", err)
		}
		select {
		case m := <-tr.out:
			t.Fatalf("a call to a stuck page was sent: %s", m.Method)
		default:
		}
		tr.in <- &cdpmsg.Message{ID: probe.ID, SessionID: "S1", Result: jsonv2.Value(`{"frameTree":{"frame":{"id":"F","loaderId":"L","url":"about:blank","domainAndRegistry":"","securityOrigin":"","mimeType":"text/html","secureContextType":"Secure","crossOriginIsolatedContextType":"NotIsolated","gatedAPIFeatures":[]}}}`)}
		<-changed // the page answers again: what a read answers changes
		if err := s.Unavailable(); err != nil {
			t.Fatalf("after the probe was answered: %v", err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := cdproto.Call(context.Background(), s, target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		req := <-tr.out
		tr.in <- &cdpmsg.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{"targetInfos":[]}`)}
		if err := <-done; err != nil {
			t.Fatalf("call after the page answers again: %v", err)
		}
	})
}

// A crash fails the calls under way and those after, until the page is
// reloaded; a dialog does the same until it closes.
func TestCrashAndDialogFailCallsUntilOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.Close()
		o := &Owner{Log: slog.New(slog.DiscardHandler), Changed: func(string, target.SessionID) {}}
		s := c.Session("S1", o, nil)
		for _, tc := range []struct {
			open, close string
			params      string
			want        error
		}{
			{"Inspector.targetCrashed", "Inspector.targetReloadedAfterCrash", `{}`, ErrCrashed},
			{"Page.javascriptDialogOpening", "Page.javascriptDialogClosed", `{"url":"http://a.test/","frameId":"F","message":"Saved","type":"alert","hasBrowserHandler":true}`, ErrDialogOpen},
		} {
			under := make(chan error, 1)
			go func() {
				_, err := cdproto.Call(context.Background(), s, target.GetTargets, target.GetTargetsParams{})
				under <- err
			}()
			<-tr.out
			s.onHealthEvent(tc.open, jsonv2.Value(tc.params))
			if err := <-under; !errors.Is(err, tc.want) {
				t.Fatalf("%s: the call under way: %v, want %v", tc.open, err, tc.want)
			}
			if _, err := cdproto.Call(context.Background(), s, target.GetTargets, target.GetTargetsParams{}); !errors.Is(err, tc.want) {
				t.Fatalf("%s: a later call: %v, want %v", tc.open, err, tc.want)
			}
			s.onHealthEvent(tc.close, jsonv2.Value(`{"result":true,"userInput":""}`))
			if err := s.Unavailable(); err != nil {
				t.Fatalf("after %s: %v", tc.close, err)
			}
		}
	})
}

// The first call of a read waits behind the owner's own calls as long
// as the page answers something (a walk's calls, queued before it); a page
// that answers nothing for answerWithin is not responding.
func TestFirstCallWaitsWhileThePageAnswersOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, _, s := fakePageSession(t, nil)
		call := getTargets(s)

		done := make(chan error, 1)
		go func() { done <- s.FirstCall(context.Background(), call) }()
		req := <-tr.out
		// The page works through the calls ahead of this one for three
		// answerWithin spans, answering one every half span.
		for i := range 6 {
			time.Sleep(answerWithin / 2)
			tr.in <- &cdpmsg.Message{ID: int64(1000 + i), SessionID: "S1", Result: jsonv2.Value(`{}`)}
		}
		tr.in <- &cdpmsg.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{"targetInfos":[]}`)}
		if err := <-done; err != nil {
			t.Fatalf("a first call behind a busy queue: %v, want its answer", err)
		}
		if err := s.Unavailable(); err != nil {
			t.Fatalf("a page that kept answering counts as %v", err)
		}

		go func() { done <- s.FirstCall(context.Background(), call) }()
		<-tr.out // never answered, nor anything else
		if err := <-done; !errors.Is(err, ErrNotResponding) {
			t.Fatalf("a page that answers nothing: %v, want ErrNotResponding", err)
		}
		probe := <-tr.out
		if probe.Method != "Page.getFrameTree" {
			t.Fatalf("after marking it stuck: sent %s, want the probe", probe.Method)
		}
	})
}

// A call under way when the tab's page navigates waits on the new
// document: one that says nothing for loadWithin (it loads) is not
// responding, though the page before answered the read's first call.
func TestCallsUnderWayWhenThePageNavigatesFailWhenItDoesNotAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, _, s := fakePageSession(t, nil)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- getTargets(s)(ctx) }()
		<-tr.out // sent, and never answered
		tr.in <- &cdpmsg.Message{SessionID: "S1", Method: "Page.frameNavigated", Params: jsonv2.Value(`{"frame":{"id":"T1","loaderId":"L2","url":"http://a.test/busy"},"type":"Navigation"}`)}
		if err := <-done; !errors.Is(err, ErrNotResponding) {
			t.Fatalf("the call under way: %v, want ErrNotResponding", err)
		}
		if err := s.Unavailable(); !errors.Is(err, ErrNotResponding) {
			t.Fatalf("after the navigation the page counts as %v, want not responding", err)
		}
		if got := s.ShownDocument(); got != "L2" {
			t.Fatalf("the tab's document: %q, want the one navigated to", got)
		}
	})
}

// A page busy with its owner's own long call (the provider's
// getFullAXTree of a document that just loaded) is not frozen: the first
// call of a read waits for it.
func TestFirstCallWaitsForTheOwnersFetch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fetching atomic.Bool
		fetching.Store(true) // the owner's fetch, under way and not on the transport
		tr, _, s := fakePageSession(t, fetching.Load)

		done := make(chan error, 1)
		call := getTargets(s)
		go func() { done <- s.FirstCall(context.Background(), call) }()
		req := <-tr.out
		time.Sleep(3 * answerWithin) // the fetch goes on, the page answers nothing else
		select {
		case err := <-done:
			t.Fatalf("the first call behind the owner's own fetch ended with %v, want it to wait", err)
		default:
		}
		// The page answers the call (the fake fetch is not on the transport:
		// its end, then, would be no sign of life), then the fetch ends.
		tr.in <- &cdpmsg.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{"targetInfos":[]}`)}
		if err := <-done; err != nil {
			t.Fatalf("the first call behind the owner's own fetch: %v, want its answer", err)
		}
		fetching.Store(false)
		if err := s.Unavailable(); err != nil {
			t.Fatalf("a page busy with the owner's fetch counts as %v", err)
		}
	})
}

// A page whose document loads may answer nothing for longer than one that
// has loaded: it parses, lays out, runs its scripts and, after its load,
// builds its accessibility tree, seconds for a large page on a slow
// machine. It is given loadWithin, from its commit until its load's work
// is done (Accessibility.loadComplete, a read's first call made after the
// load answered, or loadWithin after the load); then answerWithin again.
func TestALoadingPageIsGivenLoadWithin(t *testing.T) {
	// silent runs a read's first call that the page never answers, and
	// returns how long it took to count as not responding.
	silent := func(t *testing.T, tr *fakeTransport, s *Session) time.Duration {
		t.Helper()
		start := time.Now()
		done := make(chan error, 1)
		go func() { done <- s.FirstCall(context.Background(), getTargets(s)) }()
		<-tr.out
		if err := <-done; !errors.Is(err, ErrNotResponding) {
			t.Fatalf("a first call never answered: %v, want ErrNotResponding", err)
		}
		took := time.Since(start)
		<-tr.out // the probe
		return took
	}

	// answeredLate sends a call that is not a read's first (the owner's:
	// a walk's), runs then (nil: nothing), lets the page say nothing for
	// d, answers the call, and fails unless the call got its answer and
	// the page counts as answering.
	answeredLate := func(t *testing.T, tr *fakeTransport, s *Session, then func(), d time.Duration) {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- getTargets(s)(context.Background()) }()
		req := <-tr.out
		if then != nil {
			then()
		}
		time.Sleep(d)
		tr.in <- &cdpmsg.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{"targetInfos":[]}`)}
		if err := <-done; err != nil {
			t.Fatalf("a call the page answered after %v of silence: %v, want its answer", d, err)
		}
		if err := s.Unavailable(); err != nil {
			t.Fatalf("a page that answered a call after %v of silence counts as %v", d, err)
		}
	}

	t.Run("busy after its load", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tr, _, s := fakePageSession(t, nil)
			commitTop(tr)
			time.Sleep(3 * time.Second) // parsed, laid out
			stopTop(tr)
			time.Sleep(300 * time.Millisecond)
			// The read's first call waits behind the accessibility tree
			// Chrome builds after the load: 4 s without an answer.
			done := make(chan error, 1)
			go func() { done <- s.FirstCall(context.Background(), getTargets(s)) }()
			req := <-tr.out
			time.Sleep(4 * time.Second)
			tr.in <- &cdpmsg.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{"targetInfos":[]}`)}
			if err := <-done; err != nil {
				t.Fatalf("the first call to a page busy with its load: %v, want its answer", err)
			}
			if err := s.Unavailable(); err != nil {
				t.Fatalf("a page busy with its load counts as %v", err)
			}
			// That answer ended the load's work: a page silent now is
			// frozen, and counts so after answerWithin.
			if took := silent(t, tr, s); took != answerWithin {
				t.Fatalf("a loaded page counted as not responding after %v, want %v", took, answerWithin)
			}
		})
	})
	t.Run("a call under way at the commit", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tr, _, s := fakePageSession(t, nil)
			answeredLate(t, tr, s, func() { commitTop(tr) }, 5*time.Second)
		})
	})
	t.Run("says things as it loads", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tr, _, s := fakePageSession(t, nil)
			commitTop(tr)
			go func() {
				time.Sleep(8 * time.Second)
				pageEvent(tr, "Page.domContentEventFired", `{"timestamp":1}`) // then a script loops
			}()
			if took := silent(t, tr, s); took != 8*time.Second+loadWithin {
				t.Fatalf("a page that sent an event 8 s into its load counted as not responding after %v, want %v", took, 8*time.Second+loadWithin)
			}
		})
	})
	t.Run("a call under way, then silence", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tr, _, s := fakePageSession(t, nil)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			done := make(chan error, 1)
			go func() { done <- getTargets(s)(ctx) }()
			<-tr.out // never answered
			commitTop(tr)
			time.Sleep(time.Second)
			pageEvent(tr, "Page.domContentEventFired", `{"timestamp":1}`) // then a script loops
			if err := <-done; !errors.Is(err, ErrNotResponding) {
				t.Fatalf("a call under way when the page navigated, the page silent after an event: %v, want ErrNotResponding", err)
			}
			if took := time.Since(start); took != time.Second+loadWithin {
				t.Fatalf("the page counted as not responding after %v, want %v", took, time.Second+loadWithin)
			}
		})
	})
	t.Run("a long call after the load", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tr, _, s := fakePageSession(t, nil)
			commitTop(tr)
			stopTop(tr)
			pageEvent(tr, "Accessibility.loadComplete", `{"root":{"nodeId":"1","ignored":false}}`)
			// A call of the owner's, not a read's first: Chrome may work
			// on it for seconds with no word. Loaded, the page is past
			// what a navigation watches.
			answeredLate(t, tr, s, nil, 5*time.Second)
		})
	})
	// How long a page that says nothing to a read's first call, after
	// what the page did before, takes to count as not responding.
	for _, c := range []struct {
		name   string
		before func(tr *fakeTransport)
		want   time.Duration
	}{
		{"never loads", func(tr *fakeTransport) { commitTop(tr) /* and a script loops as it parses */ }, loadWithin},
		{"accessibility tree built", func(tr *fakeTransport) {
			commitTop(tr)
			stopTop(tr)
			pageEvent(tr, "Accessibility.loadComplete", `{"root":{"nodeId":"1","ignored":false}}`)
		}, answerWithin},
		{"long after its load", func(tr *fakeTransport) {
			commitTop(tr)
			stopTop(tr)
			time.Sleep(loadWithin)
		}, answerWithin},
		{"an iframe stops loading", func(tr *fakeTransport) {
			commitTop(tr)
			pageEvent(tr, "Page.frameStoppedLoading", `{"frameId":"F9"}`)
			time.Sleep(loadWithin) // the top frame has not stopped loading: still its load
		}, loadWithin},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tr, _, s := fakePageSession(t, nil)
				c.before(tr)
				if took := silent(t, tr, s); took != c.want {
					t.Fatalf("counted as not responding after %v, want %v", took, c.want)
				}
			})
		})
	}
}

// A page's document is loading from its top frame's commit until its top
// frame stops loading or its load's work is done, for at most loadWithin:
// what the provider reads in the background leaves it to its load.
func TestDocumentLoading(t *testing.T) {
	iframeStopped := func(tr *fakeTransport) { pageEvent(tr, "Page.frameStoppedLoading", `{"frameId":"F2"}`) }
	loadComplete := func(tr *fakeTransport) {
		pageEvent(tr, "Accessibility.loadComplete", `{"root":{"nodeId":"1","ignored":false}}`)
	}
	for _, c := range []struct {
		name  string
		steps func(tr *fakeTransport)
		want  bool
	}{
		{"no commit seen", func(*fakeTransport) {}, false},
		{"committed", commitTop, true},
		{"committed, an iframe stopped", func(tr *fakeTransport) { commitTop(tr); iframeStopped(tr) }, true},
		{"committed, 9 s", func(tr *fakeTransport) { commitTop(tr); time.Sleep(9 * time.Second) }, true},
		{"stopped", func(tr *fakeTransport) { commitTop(tr); stopTop(tr) }, false},
		{"its tree built", func(tr *fakeTransport) { commitTop(tr); loadComplete(tr) }, false},
		{"loadWithin after the commit", func(tr *fakeTransport) { commitTop(tr); time.Sleep(loadWithin) }, false},
		{"stopped, committed again", func(tr *fakeTransport) { commitTop(tr); stopTop(tr); commitTop(tr) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tr, _, s := fakePageSession(t, nil)
				c.steps(tr)
				if got := s.DocumentLoading(); got != c.want {
					t.Errorf("DocumentLoading() = %v, want %v", got, c.want)
				}
			})
		})
	}
}
