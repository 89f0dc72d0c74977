package cdp

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
)

// Every test here runs in a synctest bubble: its clock moves only when
// each of its goroutines is blocked, so a deadline, or a page that answers
// every half span, is exact however busy the machine is, and a receive
// that nothing will ever satisfy fails the test at once as a deadlock
// instead of hanging until go test's timeout.

// fakeTransport is a browser on the other end of a conn: the test reads
// what the conn wrote and writes what the browser says.
type fakeTransport struct {
	in     chan *cdproto.Message // browser -> conn
	out    chan *cdproto.Message // conn -> browser
	closed chan struct{}
}

func newFakeTransport() *fakeTransport {
	return &fakeTransport{in: make(chan *cdproto.Message, 16), out: make(chan *cdproto.Message, 16), closed: make(chan struct{})}
}

func (f *fakeTransport) Read(_ context.Context, m *cdproto.Message) error {
	select {
	case msg := <-f.in:
		*m = *msg
		return nil
	case <-f.closed:
		return io.EOF
	}
}

func (f *fakeTransport) Write(_ context.Context, m *cdproto.Message) error {
	f.out <- m
	return nil
}

func (f *fakeTransport) Close() error {
	select {
	case <-f.closed:
	default:
		close(f.closed)
	}
	return nil
}

func TestConnRoutesRepliesBySession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()

		done := make(chan error, 1)
		go func() {
			r, err := cdp.Call(ctx, c.session("S1"), target.GetTargets, target.GetTargetsParams{})
			if err == nil && (len(r.TargetInfos) != 1 || r.TargetInfos[0].TargetID != "T1") {
				err = errors.New("wrong result")
			}
			done <- err
		}()
		req := <-tr.out
		if req.SessionID != "S1" || req.Method != "Target.getTargets" {
			t.Fatalf("sent %+v, want Target.getTargets on session S1", req)
		}
		tr.in <- &cdproto.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{"targetInfos":[{"targetId":"T1","type":"page","title":"","url":"","attached":true,"canAccessOpener":false}]}`)}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

func TestConnBrowserErrorIsReturned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := cdp.Call(ctx, c.browser(), target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		req := <-tr.out
		tr.in <- &cdproto.Message{ID: req.ID, Error: &cdproto.Error{Code: -32000, Message: "No target with given id found"}}
		err := <-done
		var ce *cdproto.Error
		if !errors.As(err, &ce) || ce.Message != "No target with given id found" {
			t.Fatalf("got %v, want the browser's error", err)
		}
	})
}

func TestConnDetachFailsPendingCallsOfThatSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := cdp.Call(ctx, c.session("S9"), target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		<-tr.out
		tr.in <- &cdproto.Message{Method: "Target.detachedFromTarget", Params: jsonv2.Value(`{"sessionId":"S9"}`)}
		if err := <-done; !errors.Is(err, errDetached) {
			t.Fatalf("got %v, want errDetached", err)
		}
		if !c.alive() {
			t.Fatal("a detached session ended the connection")
		}
	})
}

func TestConnLossFailsCallsAndSaysWhy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := cdp.Call(ctx, c.browser(), target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		<-tr.out
		tr.Close()
		if err := <-done; !errors.Is(err, errConnClosed) {
			t.Fatalf("got %v, want errConnClosed", err)
		}
		<-c.done
		if _, err := cdp.Call(ctx, c.browser(), target.GetTargets, target.GetTargetsParams{}); !errors.Is(err, errConnClosed) {
			t.Fatalf("call after loss: got %v, want errConnClosed", err)
		}
	})
}

func TestConnEventsReachTheirSessionOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.close()
		mine, stop := c.session("A").Subscribe("Page.loadEventFired")
		defer stop()
		other, stopOther := c.session("B").Subscribe("Page.loadEventFired")
		defer stopOther()
		tr.in <- &cdproto.Message{SessionID: "B", Method: "Page.loadEventFired", Params: jsonv2.Value(`{"timestamp":1}`)}
		tr.in <- &cdproto.Message{SessionID: "A", Method: "Page.loadEventFired", Params: jsonv2.Value(`{"timestamp":2}`)}
		select {
		case v := <-mine:
			if string(v) != `{"timestamp":2}` {
				t.Fatalf("session A got %s", v)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no event on session A")
		}
		select {
		case v := <-other:
			if string(v) != `{"timestamp":1}` {
				t.Fatalf("session B got %s", v)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no event on session B")
		}
	})
}

// post sends a command and waits for nothing: its answer is dropped, and
// the call after it gets its own answer.
func TestConnPostDropsTheAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s := c.session("S1")
		if err := s.post(ctx, "Runtime.releaseObjectGroup", map[string]string{"objectGroup": "g"}); err != nil {
			t.Fatal(err)
		}
		posted := <-tr.out
		if posted.Method != "Runtime.releaseObjectGroup" || posted.SessionID != "S1" || string(posted.Params) != `{"objectGroup":"g"}` {
			t.Fatalf("posted %+v", posted)
		}
		done := make(chan error, 1)
		go func() {
			_, err := cdp.Call(ctx, s, target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		req := <-tr.out
		if req.ID == posted.ID {
			t.Fatal("the call reused the posted command's id")
		}
		tr.in <- &cdproto.Message{ID: posted.ID, SessionID: "S1", Result: jsonv2.Value(`{}`)}
		tr.in <- &cdproto.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{"targetInfos":[]}`)}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.pending) != 0 {
			t.Errorf("%d calls still pending", len(c.pending))
		}
	})
}

// A browser that stops answering: a call on the browser session fails
// after its deadline saying so, and the connection ends (the provider
// dials anew on the next read) rather than waiting behind it.
func TestConnStalledBrowserEndsTheConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		c.answerWithin = 50 * time.Millisecond
		defer c.close()
		go func() { <-tr.out }() // written, never answered
		_, err := cdp.Call(context.Background(), c.browser(), target.GetTargets, target.GetTargetsParams{})
		if !errors.Is(err, errStalled) {
			t.Fatalf("call to a browser that never answers: %v, want errStalled", err)
		}
		<-c.done
		if err := c.cause(); !errors.Is(err, errStalled) {
			t.Errorf("the connection ended with %v, want errStalled", err)
		}
	})
}

// A page session's calls have no deadline of their own (a big page's tree
// takes seconds): they wait for their context, and the connection lives.
func TestConnPageCallsWaitForTheirContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		c.answerWithin = 10 * time.Millisecond
		defer c.close()
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		go func() { <-tr.out }()
		_, err := cdp.Call(ctx, c.session("S1"), target.GetTargets, target.GetTargetsParams{})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("page call: %v, want its context's deadline", err)
		}
		if !c.alive() {
			t.Error("a slow page ended the connection")
		}
	})
}

// fakePageSession returns a provider, alive until the test ends, and a
// page session "S1" on a connection over a fake transport.
func fakePageSession(t *testing.T) (*fakeTransport, *Provider, *cdpSession) {
	tr := newFakeTransport()
	c := newConn(tr)
	t.Cleanup(c.close)
	p := &Provider{log: discardLogger()}
	p.life, p.stop = context.WithCancel(context.Background())
	t.Cleanup(p.stop)
	return tr, p, c.session("S1")
}

// A page that does not answer in time is stuck: its call under way fails
// at once, later calls fail without being sent, and once the probe is
// answered the page counts as responding again and its calls go out.
func TestStuckPageFailsFastUntilItAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, p, s := fakePageSession(t)
		changed := make(chan struct{}, 8)
		f := func() { changed <- struct{}{} }
		p.watcher.Store(&f)

		// a walk's call, under way when the page freezes
		walk := make(chan error, 1)
		go func() {
			_, err := cdp.Call(context.Background(), s, target.GetTargets, target.GetTargetsParams{})
			walk <- err
		}()
		<-tr.out
		p.markStuck(s)
		if err := <-walk; !errors.Is(err, errNotResponding) {
			t.Fatalf("call under way on a stuck page: %v, want errNotResponding", err)
		}
		probe := <-tr.out // the probe, sent anyway
		if probe.Method != "Page.getFrameTree" {
			t.Fatalf("probe %s, want Page.getFrameTree", probe.Method)
		}
		if _, err := cdp.Call(context.Background(), s, target.GetTargets, target.GetTargetsParams{}); !errors.Is(err, errNotResponding) {
			t.Fatalf("call to a stuck page: %v, want errNotResponding at once", err)
		}
		select {
		case m := <-tr.out:
			t.Fatalf("a call to a stuck page was sent: %s", m.Method)
		default:
		}
		tr.in <- &cdproto.Message{ID: probe.ID, SessionID: "S1", Result: jsonv2.Value(`{"frameTree":{"frame":{"id":"F","loaderId":"L","url":"about:blank","domainAndRegistry":"","securityOrigin":"","mimeType":"text/html","secureContextType":"Secure","crossOriginIsolatedContextType":"NotIsolated","gatedAPIFeatures":[]}}}`)}
		<-changed // the page answers again: what current says changes
		if err := s.unavailable(); err != nil {
			t.Fatalf("after the probe was answered: %v", err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := cdp.Call(context.Background(), s, target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		req := <-tr.out
		tr.in <- &cdproto.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{"targetInfos":[]}`)}
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
		defer c.close()
		p := &Provider{log: discardLogger()}
		s := c.session("S1")
		for _, tc := range []struct {
			open, close string
			params      string
			want        error
		}{
			{"Inspector.targetCrashed", "Inspector.targetReloadedAfterCrash", `{}`, errCrashed},
			{"Page.javascriptDialogOpening", "Page.javascriptDialogClosed", `{"url":"http://a.test/","frameId":"F","message":"Saved","type":"alert","hasBrowserHandler":true}`, errDialogOpen},
		} {
			under := make(chan error, 1)
			go func() {
				_, err := cdp.Call(context.Background(), s, target.GetTargets, target.GetTargetsParams{})
				under <- err
			}()
			<-tr.out
			p.onHealthEvent(s, tc.open, jsonv2.Value(tc.params))
			if err := <-under; !errors.Is(err, tc.want) {
				t.Fatalf("%s: the call under way: %v, want %v", tc.open, err, tc.want)
			}
			if _, err := cdp.Call(context.Background(), s, target.GetTargets, target.GetTargetsParams{}); !errors.Is(err, tc.want) {
				t.Fatalf("%s: a later call: %v, want %v", tc.open, err, tc.want)
			}
			p.onHealthEvent(s, tc.close, jsonv2.Value(`{"result":true,"userInput":""}`))
			if err := s.unavailable(); err != nil {
				t.Fatalf("after %s: %v", tc.close, err)
			}
		}
	})
}

// The first call of a read waits behind the provider's own calls as long
// as the page answers something (a walk's calls, queued before it); a page
// that answers nothing for answerWithin is not responding.
func TestFirstCallWaitsWhileThePageAnswersOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, p, s := fakePageSession(t)
		call := func(ctx context.Context) error {
			_, err := cdp.Call(ctx, s, target.GetTargets, target.GetTargetsParams{})
			return err
		}

		done := make(chan error, 1)
		go func() { done <- p.firstCall(context.Background(), s, call) }()
		req := <-tr.out
		// The page works through the calls ahead of this one for three
		// answerWithin spans, answering one every half span.
		for i := range 6 {
			time.Sleep(answerWithin / 2)
			tr.in <- &cdproto.Message{ID: int64(1000 + i), SessionID: "S1", Result: jsonv2.Value(`{}`)}
		}
		tr.in <- &cdproto.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{"targetInfos":[]}`)}
		if err := <-done; err != nil {
			t.Fatalf("a first call behind a busy queue: %v, want its answer", err)
		}
		if err := s.unavailable(); err != nil {
			t.Fatalf("a page that kept answering counts as %v", err)
		}

		go func() { done <- p.firstCall(context.Background(), s, call) }()
		<-tr.out // never answered, nor anything else
		if err := <-done; !errors.Is(err, errNotResponding) {
			t.Fatalf("a page that answers nothing: %v, want errNotResponding", err)
		}
		probe := <-tr.out
		if probe.Method != "Page.getFrameTree" {
			t.Fatalf("after marking it stuck: sent %s, want the probe", probe.Method)
		}
	})
}

// A call under way when the tab's page navigates waits on the new
// document: one that answers nothing for answerWithin is not responding,
// though the page before answered the read's first call.
func TestCallsUnderWayWhenThePageNavigatesFailWhenItDoesNotAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, p, s := fakePageSession(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := cdp.Call(ctx, s, target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		<-tr.out // sent, and never answered
		p.onSessionEvent(s, "Page.frameNavigated", jsonv2.Value(`{"frame":{"id":"T1","loaderId":"L2","url":"http://a.test/busy"},"type":"Navigation"}`))
		if err := <-done; !errors.Is(err, errNotResponding) {
			t.Fatalf("the call under way: %v, want errNotResponding", err)
		}
		if err := s.unavailable(); !errors.Is(err, errNotResponding) {
			t.Fatalf("after the navigation the page counts as %v, want not responding", err)
		}
		if got := s.shownDocument(); got != "L2" {
			t.Fatalf("the tab's document: %q, want the one navigated to", got)
		}
	})
}

// heldFetch is a warm.Caller whose getFullAXTree calls after the first
// wait for release.
type heldFetch struct {
	mu      sync.Mutex
	fetches int
	asked   chan struct{}
	release chan struct{}
}

func (h *heldFetch) Call(ctx context.Context, method string, params, res any) error {
	answer := `{}`
	switch method {
	case "Accessibility.getFullAXTree":
		h.mu.Lock()
		h.fetches++
		n := h.fetches
		h.mu.Unlock()
		if n > 1 {
			close(h.asked)
			<-h.release
		}
		answer = `{"nodes":[{"nodeId":"1","ignored":false,"role":{"type":"role","value":"RootWebArea"},"backendDOMNodeId":10}]}`
	case "Accessibility.getRootAXNode":
		return errors.New("no walks in this test")
	}
	return jsonv2.Unmarshal([]byte(answer), res, chromedp.DefaultUnmarshalOptions)
}

// A page busy with the provider's own getFullAXTree of a document that
// just loaded is not frozen: the first call of a read waits for it.
func TestFirstCallWaitsForTheFetchAfterALoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, p, s := fakePageSession(t)
		h := &heldFetch{asked: make(chan struct{}), release: make(chan struct{})}
		defer close(h.release) // before the bubble ends, even when the test fails
		a := warm.New(h, nil, nil)
		a.Loaded = func(ctx context.Context, frame cdp.FrameID) (cdp.LoaderID, warm.Activity, error) {
			return "L2", warm.Activity{OK: true}, nil
		}
		s.ax.Store(a)
		if _, _, err := a.Nodes(context.Background(), "F", "L1", warm.Activity{OK: true}); err != nil { // a read
			t.Fatal(err)
		}
		a.OnEvent("Accessibility.loadComplete", jsonv2.Value(`{"root":{"nodeId":"1","ignored":false,"frameId":"F"}}`))
		<-h.asked

		done := make(chan error, 1)
		call := func(ctx context.Context) error {
			_, err := cdp.Call(ctx, s, target.GetTargets, target.GetTargetsParams{})
			return err
		}
		go func() { done <- p.firstCall(context.Background(), s, call) }()
		req := <-tr.out
		time.Sleep(3 * answerWithin) // the fetch goes on, the page answers nothing else
		select {
		case err := <-done:
			t.Fatalf("the first call behind the provider's own fetch ended with %v, want it to wait", err)
		default:
		}
		// The page answers the call (the fake fetch is not on the transport:
		// its end, then, would be no sign of life), then the fetch ends.
		tr.in <- &cdproto.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{"targetInfos":[]}`)}
		if err := <-done; err != nil {
			t.Fatalf("the first call behind the provider's own fetch: %v, want its answer", err)
		}
		if err := s.unavailable(); err != nil {
			t.Fatalf("a page busy with the provider's fetch counts as %v", err)
		}
	})
}
