package wire

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	cdpmsg "github.com/chromedp/cdproto"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

// Every test here runs in a synctest bubble: its clock moves only when
// each of its goroutines is blocked, so a deadline, or a page that answers
// every half span, is exact however busy the machine is, and a receive
// that nothing will ever satisfy fails the test at once as a deadlock
// instead of hanging until go test's timeout.

// fakeTransport is a browser on the other end of a conn: the test reads
// what the conn wrote and writes what the browser says.
type fakeTransport struct {
	in     chan *cdpmsg.Message // browser -> conn
	out    chan *cdpmsg.Message // conn -> browser
	closed chan struct{}
}

func newFakeTransport() *fakeTransport {
	return &fakeTransport{in: make(chan *cdpmsg.Message, 16), out: make(chan *cdpmsg.Message, 16), closed: make(chan struct{})}
}

func (f *fakeTransport) Read(_ context.Context, m *cdpmsg.Message) error {
	select {
	case msg := <-f.in:
		*m = *msg
		return nil
	case <-f.closed:
		return io.EOF
	}
}

func (f *fakeTransport) Write(_ context.Context, m *cdpmsg.Message) error {
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
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()

		done := make(chan error, 1)
		go func() {
			r, err := cdproto.Call(ctx, c.Session("S1", nil, nil), target.GetTargets, target.GetTargetsParams{})
			if err == nil && (len(r.TargetInfos) != 1 || r.TargetInfos[0].TargetID != "T1") {
				err = errors.New("wrong result")
			}
			done <- err
		}()
		req := <-tr.out
		if req.SessionID != "S1" || req.Method != "Target.getTargets" {
			t.Fatalf("sent %+v, want Target.getTargets on session S1", req)
		}
		tr.in <- &cdpmsg.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{"targetInfos":[{"targetId":"T1","type":"page","title":"","url":"","attached":true,"canAccessOpener":false}]}`)}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

func TestConnBrowserErrorIsReturned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := cdproto.Call(ctx, c.Browser(), target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		req := <-tr.out
		tr.in <- &cdpmsg.Message{ID: req.ID, Error: &cdpmsg.Error{Code: -32000, Message: "No target with given id found"}}
		err := <-done
		var ce *cdpmsg.Error
		if !errors.As(err, &ce) || ce.Message != "No target with given id found" {
			t.Fatalf("got %v, want the browser's error", err)
		}
	})
}

func TestConnDetachFailsPendingCallsOfThatSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := cdproto.Call(ctx, c.Session("S9", nil, nil), target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		<-tr.out
		tr.in <- &cdpmsg.Message{Method: "Target.detachedFromTarget", Params: jsonv2.Value(`{"sessionId":"S9"}`)}
		if err := <-done; !errors.Is(err, errDetached) {
			t.Fatalf("got %v, want errDetached", err)
		}
		if !c.Alive() {
			t.Fatal("a detached session ended the connection")
		}
	})
}

// A connection that lives all day keeps nothing of the sessions gone:
// their event handlers (which hold the provider's session), their
// subscriptions and their counts go at Target.detachedFromTarget.
func TestConnForgetsADetachedSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s := c.Session("S9", nil, nil)
		s.Handle(func(string, jsonv2.Value) {})
		events, _ := s.Subscribe("Page.frameNavigated")
		done := make(chan error, 1)
		go func() {
			_, err := cdproto.Call(ctx, s, target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		req := <-tr.out
		tr.in <- &cdpmsg.Message{ID: req.ID, SessionID: "S9", Result: jsonv2.Value(`{"targetInfos":[]}`)}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		// A call of the browser's session, answered after the detach:
		// the read loop has handled it by then.
		go func() {
			_, err := cdproto.Call(ctx, c.Browser(), target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		req = <-tr.out
		tr.in <- &cdpmsg.Message{Method: "Target.detachedFromTarget", Params: jsonv2.Value(`{"sessionId":"S9"}`)}
		tr.in <- &cdpmsg.Message{ID: req.ID, Result: jsonv2.Value(`{"targetInfos":[]}`)}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		handlers, heard, subs := len(c.handlers), len(c.heard), len(c.subs)
		c.mu.Unlock()
		if handlers != 0 || subs != 0 {
			t.Errorf("after the detach: %d handlers, %d subscriptions kept; want none", handlers, subs)
		}
		if heard > 1 { // the browser session's own count
			t.Errorf("after the detach: %d sessions' messages counted; want the browser's alone", heard)
		}
		if _, open := <-events; open {
			t.Error("the detached session's subscription got an event")
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
			_, err := cdproto.Call(ctx, c.Browser(), target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		<-tr.out
		tr.Close()
		if err := <-done; !errors.Is(err, errConnClosed) {
			t.Fatalf("got %v, want errConnClosed", err)
		}
		<-c.done
		if _, err := cdproto.Call(ctx, c.Browser(), target.GetTargets, target.GetTargetsParams{}); !errors.Is(err, errConnClosed) {
			t.Fatalf("call after loss: got %v, want errConnClosed", err)
		}
	})
}

func TestConnEventsReachTheirSessionOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.Close()
		mine, stop := c.Session("A", nil, nil).Subscribe("Page.loadEventFired")
		defer stop()
		other, stopOther := c.Session("B", nil, nil).Subscribe("Page.loadEventFired")
		defer stopOther()
		tr.in <- &cdpmsg.Message{SessionID: "B", Method: "Page.loadEventFired", Params: jsonv2.Value(`{"timestamp":1}`)}
		tr.in <- &cdpmsg.Message{SessionID: "A", Method: "Page.loadEventFired", Params: jsonv2.Value(`{"timestamp":2}`)}
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
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s := c.Session("S1", nil, nil)
		if err := s.Post(ctx, "Runtime.releaseObjectGroup", map[string]string{"objectGroup": "g"}); err != nil {
			t.Fatal(err)
		}
		posted := <-tr.out
		if posted.Method != "Runtime.releaseObjectGroup" || posted.SessionID != "S1" || string(posted.Params) != `{"objectGroup":"g"}` {
			t.Fatalf("posted %+v", posted)
		}
		done := make(chan error, 1)
		go func() {
			_, err := cdproto.Call(ctx, s, target.GetTargets, target.GetTargetsParams{})
			done <- err
		}()
		req := <-tr.out
		if req.ID == posted.ID {
			t.Fatal("the call reused the posted command's id")
		}
		tr.in <- &cdpmsg.Message{ID: posted.ID, SessionID: "S1", Result: jsonv2.Value(`{}`)}
		tr.in <- &cdpmsg.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{"targetInfos":[]}`)}
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

// Send writes the command at once and returns: the next is written
// before the first is answered, in order. Each Wait gets its own answer,
// whatever order the answers come in, and an answer nobody waits for is
// dropped when it comes.
func TestConnSendDoesNotWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s := c.Session("S1", nil, nil)
		first := s.Send(ctx, "Runtime.evaluate", map[string]string{"expression": "1"})
		second := s.Send(ctx, "Page.getFrameTree", nil)
		dropped := s.Send(ctx, "Accessibility.enable", nil)
		var sent []string
		var ids []int64
		for range 3 {
			m := <-tr.out
			sent = append(sent, string(m.Method))
			ids = append(ids, m.ID)
		}
		if want := []string{"Runtime.evaluate", "Page.getFrameTree", "Accessibility.enable"}; !slices.Equal(sent, want) {
			t.Fatalf("written %v, want %v", sent, want)
		}
		tr.in <- &cdpmsg.Message{ID: ids[1], SessionID: "S1", Result: jsonv2.Value(`{"n":2}`)}
		tr.in <- &cdpmsg.Message{ID: ids[2], SessionID: "S1", Result: jsonv2.Value(`{}`)}
		tr.in <- &cdpmsg.Message{ID: ids[0], SessionID: "S1", Result: jsonv2.Value(`{"n":1}`)}
		var r1, r2 struct {
			N int `json:"n"`
		}
		if err := first.Wait(ctx, &r1); err != nil || r1.N != 1 {
			t.Errorf("first: %+v, %v", r1, err)
		}
		if err := second.Wait(ctx, &r2); err != nil || r2.N != 2 {
			t.Errorf("second: %+v, %v", r2, err)
		}
		synctest.Wait()
		_ = dropped
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
		defer c.Close()
		go func() { <-tr.out }() // written, never answered
		_, err := cdproto.Call(context.Background(), c.Browser(), target.GetTargets, target.GetTargetsParams{})
		if !errors.Is(err, ErrStalled) {
			t.Fatalf("call to a browser that never answers: %v, want ErrStalled", err)
		}
		<-c.done
		if err := c.Cause(); !errors.Is(err, ErrStalled) {
			t.Errorf("the connection ended with %v, want ErrStalled", err)
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
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		go func() { <-tr.out }()
		_, err := cdproto.Call(ctx, c.Session("S1", nil, nil), target.GetTargets, target.GetTargetsParams{})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("page call: %v, want its context's deadline", err)
		}
		if !c.Alive() {
			t.Error("a slow page ended the connection")
		}
	})
}

// Traffic counts the commands sent to target sessions, calls and posts,
// not the browser session's, and the events that came by method, the
// browser session's apart.
func TestConnTraffic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.Close()
		ctx := context.Background()
		page, browser := c.Session("S1", nil, nil), c.Browser()
		if err := page.Post(ctx, "Runtime.evaluate", map[string]string{"expression": "1"}); err != nil {
			t.Fatal(err)
		}
		<-tr.out
		if err := browser.Post(ctx, "Target.getTargets", struct{}{}); err != nil {
			t.Fatal(err)
		}
		<-tr.out
		done := make(chan error, 1)
		go func() { done <- page.Call(ctx, "Accessibility.enable", nil, nil) }()
		req := <-tr.out
		tr.in <- &cdpmsg.Message{Method: "Accessibility.loadComplete", SessionID: "S1", Params: jsonv2.Value(`{}`)}
		tr.in <- &cdpmsg.Message{Method: "Target.targetCreated", Params: jsonv2.Value(`{}`)}
		tr.in <- &cdpmsg.Message{ID: req.ID, SessionID: "S1", Result: jsonv2.Value(`{}`)}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		got := c.Traffic()
		if got.Sent != 2 || got.Calls["Runtime.evaluate"] != 1 || got.Calls["Accessibility.enable"] != 1 || len(got.Calls) != 2 {
			t.Errorf("Sent = %d, Calls = %v, want the post and the call to the page, not the browser's", got.Sent, got.Calls)
		}
		if got.Events["Accessibility.loadComplete"] != 1 || len(got.Events) != 1 {
			t.Errorf("Events = %v, want the page's one loadComplete", got.Events)
		}
		if got.BrowserEvents["Target.targetCreated"] != 1 || len(got.BrowserEvents) != 1 {
			t.Errorf("BrowserEvents = %v, want the one targetCreated", got.BrowserEvents)
		}
	})
}

// A call whose context has ended is not sent: the caller stopped (a walk
// the provider's rest stopped), and the page sees nothing of it.
func TestConnSendsNothingForAnEndedContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newFakeTransport()
		c := newConn(tr)
		defer c.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := c.Session("S1", nil, nil)
		err := s.Send(ctx, "Accessibility.getChildAXNodes", map[string]string{"id": "1"}).Wait(context.Background(), nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the call's error: %v, want context.Canceled", err)
		}
		synctest.Wait()
		if len(tr.out) != 0 {
			t.Errorf("%d messages written", len(tr.out))
		}
		if n := c.Traffic().Sent; n != 0 {
			t.Errorf("%d calls counted as sent", n)
		}
	})
}
