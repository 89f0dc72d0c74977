package wire

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	cdpmsg "github.com/chromedp/cdproto"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// errConnClosed is the error of a call on a connection that has ended.
var errConnClosed = errors.New("the connection to the browser is closed")

// ErrStalled is why a connection whose browser stopped answering ended:
// a call on the browser session went unanswered for 10 s, and the
// connection was dropped (a new one is dialled for the next read).
var ErrStalled = errors.New("the browser stopped answering")

// browserAnswerWithin bounds a call on the browser session: Chrome
// answers those (targets, windows, attaching) in its browser process,
// whatever its pages do, so one that takes longer means the browser or
// the connection has stalled.
const browserAnswerWithin = 10 * time.Second

// errDetached is the error of a call whose session was detached (its tab or
// frame went away) before the answer came.
var errDetached = errors.New("the target was detached")

// Conn is one websocket connection to a browser, multiplexing the browser
// session and any number of flat target sessions (Target.attachToTarget
// with flatten). chromedp's own Browser routes only the sessions it
// created; this layer lets cdproto's typed Call work on any
// session without chromedp enabling domains or running script in the
// user's pages.
type Conn struct {
	tr   chromedp.Transport
	next atomic.Int64

	mu      sync.Mutex
	pending map[int64]pendingCall      // guarded by mu
	subs    map[subKey][]*subscription // guarded by mu
	// handlers see every event of their session, on the read loop: they
	// must return at once and must not call the conn. Guarded by mu.
	handlers map[target.SessionID]func(method string, params jsonv2.Value)
	err      error // why the connection ended; guarded by mu
	// heard is when each session's page last said something: an answer
	// or an event, a sign of life of the page's main thread, which sends
	// nearly all of them (FirstCall). Guarded by mu.
	heard  map[target.SessionID]time.Time
	closed bool // the read loop has failed every call; guarded by mu

	done chan struct{} // closed when the read loop ends

	// answerWithin bounds calls on the browser session
	// (browserAnswerWithin; tests set less).
	answerWithin time.Duration

	// sent counts the commands sent to target sessions, by method
	// (Traffic); guarded by mu.
	sent map[string]uint64
	// events counts the events that came, by method, those of the
	// browser session apart (Traffic); guarded by mu.
	events, browserEvents map[string]uint64
}

// Traffic is what crossed a connection since it opened: the commands
// sent to its target sessions (pages and frames: calls and posts, each
// one a task in a renderer), and the events that came, by method, from
// the target sessions and from the browser's own.
type Traffic struct {
	Sent          uint64            // all the commands sent to target sessions
	Calls         map[string]uint64 // the same by method
	Events        map[string]uint64
	BrowserEvents map[string]uint64
}

// Traffic returns what crossed the connection so far.
func (c *Conn) Traffic() Traffic {
	c.mu.Lock()
	defer c.mu.Unlock()
	var sent uint64
	for _, n := range c.sent {
		sent += n
	}
	return Traffic{Sent: sent, Calls: maps.Clone(c.sent), Events: maps.Clone(c.events), BrowserEvents: maps.Clone(c.browserEvents)}
}

type pendingCall struct {
	session target.SessionID
	reply   chan *cdpmsg.Message
	// why is set, before reply is closed, when failSession fails the call.
	why *error
}

type subKey struct {
	session target.SessionID
	method  string
}

// dial opens a connection to the browser endpoint at wsURL, sending
// header (nil: none) with the websocket handshake.
func dial(ctx context.Context, wsURL string, header http.Header) (*Conn, error) {
	tr, err := dialWS(ctx, wsURL, header)
	if err != nil {
		return nil, err
	}
	return newConn(tr), nil
}

// newConn starts reading a transport.
func newConn(tr chromedp.Transport) *Conn {
	c := &Conn{
		tr:       tr,
		pending:  make(map[int64]pendingCall),
		subs:     make(map[subKey][]*subscription),
		handlers: make(map[target.SessionID]func(string, jsonv2.Value)),
		heard:    make(map[target.SessionID]time.Time),
		done:     make(chan struct{}),

		sent:          make(map[string]uint64),
		events:        make(map[string]uint64),
		browserEvents: make(map[string]uint64),

		answerWithin: browserAnswerWithin,
	}
	go c.read()
	return c
}

// Browser returns the session of the browser itself.
func (c *Conn) Browser() *Session { return &Session{c: c} }

// Session returns the flat session with the id, of a target attached
// with Target.attachToTarget and flatten. Its page's health is kept
// (health.go) once its events are handled (Handle), for o; busy says the
// page is busy with a long call of o's own, which is no sign of trouble
// (nil: never).
func (c *Conn) Session(id target.SessionID, o *Owner, busy func() bool) *Session {
	return &Session{c: c, id: id, owner: o, busy: busy}
}

// handle sets the function that sees every event of a session. It runs
// on the read loop, in the order the browser sent the events, before any
// later reply is delivered: it must return at once and must not call the
// conn.
func (c *Conn) handle(id target.SessionID, fn func(method string, params jsonv2.Value)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers[id] = fn
}

// Close ends the connection; pending calls fail.
func (c *Conn) Close() {
	c.tr.Close()
	<-c.done
}

// Alive reports whether the connection still reads.
func (c *Conn) Alive() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

func (c *Conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Cause returns why the connection ended.
func (c *Conn) Cause() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		return errConnClosed
	}
	return fmt.Errorf("%w: %w", errConnClosed, c.err)
}

func (c *Conn) read() {
	defer close(c.done)
	for {
		msg := new(cdpmsg.Message)
		if err := c.tr.Read(context.Background(), msg); err != nil {
			c.mu.Lock()
			if c.err == nil { // stall said why already
				c.err = err
			}
			c.closed = true
			for id, p := range c.pending {
				close(p.reply)
				delete(c.pending, id)
			}
			for k, subs := range c.subs {
				for _, s := range subs {
					s.stop()
				}
				delete(c.subs, k)
			}
			c.mu.Unlock()
			return
		}
		switch {
		case msg.ID != 0:
			c.mu.Lock()
			p, ok := c.pending[msg.ID]
			delete(c.pending, msg.ID)
			c.heard[msg.SessionID] = time.Now()
			c.mu.Unlock()
			if ok {
				p.reply <- msg
			}
		case msg.Method != "":
			if msg.Method == cdpmsg.MethodType(target.DetachedFromTarget.Method) {
				c.detached(msg.Params)
			}
			c.mu.Lock()
			if msg.SessionID != "" {
				c.events[string(msg.Method)]++
			} else {
				c.browserEvents[string(msg.Method)]++
			}
			for _, s := range c.subs[subKey{msg.SessionID, string(msg.Method)}] {
				s.push(msg.Params)
			}
			h := c.handlers[msg.SessionID]
			if h != nil { // a session of the conn's, not detached
				c.heard[msg.SessionID] = time.Now()
			}
			c.mu.Unlock()
			if h != nil {
				h(string(msg.Method), msg.Params)
			}
		}
	}
}

// lastHeard returns when Chrome last sent a message of the session: an
// answer to one of its calls, or an event; zero: none yet.
func (c *Conn) lastHeard(id target.SessionID) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.heard[id]
}

// waiting reports whether a call of the session waits for its answer.
func (c *Conn) waiting(id target.SessionID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.pending {
		if p.session == id {
			return true
		}
	}
	return false
}

// stall ends a connection whose browser stopped answering: its calls fail
// saying so, and the provider dials again on the next read.
func (c *Conn) stall() {
	c.mu.Lock()
	if c.err == nil {
		c.err = ErrStalled
	}
	c.mu.Unlock()
	c.tr.Close()
}

// failSession fails the calls waiting on a session with err: they return
// at once, and their answers, should they come, are dropped.
func (c *Conn) failSession(id target.SessionID, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, p := range c.pending {
		if p.session == id {
			*p.why = err
			close(p.reply)
			delete(c.pending, k)
		}
	}
}

// detached fails the calls still waiting on a session that went away.
func (c *Conn) detached(params jsonv2.Value) {
	var ev target.EventDetachedFromTarget
	if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, p := range c.pending {
		if p.session == ev.SessionID {
			close(p.reply)
			delete(c.pending, id)
		}
	}
	// Nothing comes for the session any more: what the conn kept of it
	// goes, so that a connection that lives all day, through many tabs
	// and iframes attached and gone, keeps only the sessions alive.
	delete(c.handlers, ev.SessionID)
	delete(c.heard, ev.SessionID)
	for k, subs := range c.subs {
		if k.session == ev.SessionID {
			for _, s := range subs {
				s.stop()
			}
			delete(c.subs, k)
		}
	}
}

// Session is one CDP session on a Conn: the browser session (id "")
// or the flat session of a page or iframe target. It implements
// cdproto.Session, so the generated commands run on it with
// cdproto.Call. A target's session keeps its page's health (health.go).
type Session struct {
	c  *Conn
	id target.SessionID

	// owner is told of the page's health and gives it what it needs;
	// busy says the page is busy with a long call of the owner's own.
	// Both nil on the browser session.
	owner *Owner
	busy  func() bool

	// h is what is known of the page's renderer (health.go).
	h health
}

var _ cdproto.Session = (*Session)(nil)

// ID is the session's id; "" for the browser session.
func (s *Session) ID() target.SessionID { return s.id }

// Browser returns the browser session of the session's connection.
func (s *Session) Browser() *Session { return s.c.Browser() }

// Handle sets the function that sees the session's events, on the read
// loop, in the order the browser sent them: it must return at once and
// must not call the connection. A target's session sees its page's
// health events itself first (health.go), and fn the others.
func (s *Session) Handle(fn func(method string, params jsonv2.Value)) {
	if s.owner == nil {
		s.c.handle(s.id, fn)
		return
	}
	s.c.handle(s.id, func(method string, params jsonv2.Value) {
		if !s.onHealthEvent(method, params) {
			fn(method, params)
		}
	})
}

// Call sends the command and waits for its answer. On a page session that
// cannot answer now (crashed, behind a dialog, not responding) it fails
// at once, unsent.
func (s *Session) Call(ctx context.Context, method string, params, res any) error {
	return s.call(ctx, method, params, res, false)
}

// call is Call; anyway sends the command even to a session that cannot
// answer now (a probe).
func (s *Session) call(ctx context.Context, method string, params, res any, anyway bool) error {
	return s.send(ctx, method, params, anyway).Wait(ctx, res)
}

// Reply is the answer to come of a command Send wrote.
type Reply struct {
	s      *Session
	method string
	id     int64
	reply  chan *cdpmsg.Message
	why    *error // set, before reply is closed, when failSession fails the call
	err    error  // why the command was not sent, as Wait returns it
}

// Send writes the command and returns without waiting for its answer,
// which Reply.Wait waits for. Chrome runs a session's commands in the
// order they came, so a command sent after it runs after it: a caller can
// send the next at once, and save the round trip between them. An answer
// that nobody waits for is dropped when it comes. On a page session that
// cannot answer now, it is not sent, and Wait says why.
func (s *Session) Send(ctx context.Context, method string, params any) *Reply {
	return s.send(ctx, method, params, false)
}

func (s *Session) send(ctx context.Context, method string, params any, anyway bool) *Reply {
	r := &Reply{s: s, method: method}
	// A call whose context ended is not sent: its caller has stopped
	// (a walk the provider's rest stopped), and the page must not see it.
	if err := ctx.Err(); err != nil {
		r.err = fmt.Errorf("%s: %w", method, err)
		return r
	}
	if !anyway && s.id != "" {
		if err := s.Unavailable(); err != nil {
			r.err = fmt.Errorf("%s: %w", method, err)
			return r
		}
	}
	var buf jsonv2.Value
	if params != nil {
		b, err := jsonv2.Marshal(params, chromedp.DefaultMarshalOptions)
		if err != nil {
			r.err = err
			return r
		}
		buf = b
	}
	r.id = s.c.next.Add(1)
	r.reply = make(chan *cdpmsg.Message, 1)
	r.why = new(error)
	s.c.mu.Lock()
	if s.c.closed {
		s.c.mu.Unlock()
		r.err = s.c.Cause()
		return r
	}
	s.c.pending[r.id] = pendingCall{session: s.id, reply: r.reply, why: r.why}
	s.c.mu.Unlock()
	msg := &cdpmsg.Message{ID: r.id, SessionID: s.id, Method: cdpmsg.MethodType(method), Params: buf}
	s.c.count(s.id, method)
	if err := s.c.tr.Write(ctx, msg); err != nil {
		s.forget(r.id)
		r.err = fmt.Errorf("%s: %w", method, err)
	}
	return r
}

// Wait waits for the command's answer and decodes its result into res
// (nil: the result is not wanted). A call on the browser session that is
// not answered in time ends the connection (ErrStalled).
func (r *Reply) Wait(ctx context.Context, res any) error {
	if r.err != nil {
		return r.err
	}
	s := r.s
	wait := ctx
	if s.id == "" {
		var cancel context.CancelFunc
		wait, cancel = context.WithTimeout(ctx, s.c.answerWithin)
		defer cancel()
	}
	select {
	case <-wait.Done():
		s.forget(r.id)
		if errors.Is(wait.Err(), context.DeadlineExceeded) && ctx.Err() == nil { // only the browser session has a wait of its own
			s.c.stall()
			return fmt.Errorf("%s: %w", r.method, ErrStalled)
		}
		return fmt.Errorf("%s: %w", r.method, ctx.Err())
	case m, ok := <-r.reply:
		switch {
		case !ok && *r.why != nil:
			return fmt.Errorf("%s: %w", r.method, *r.why)
		case !ok && s.c.isClosed():
			return fmt.Errorf("%s: %w", r.method, s.c.Cause())
		case !ok:
			return fmt.Errorf("%s: %w", r.method, errDetached)
		case m.Error != nil:
			return fmt.Errorf("%s: %w", r.method, m.Error)
		case res != nil:
			return jsonv2.Unmarshal(m.Result, res, chromedp.DefaultUnmarshalOptions)
		}
		return nil
	}
}

// Post sends a command without waiting for its answer, which the read
// loop drops: for a call whose outcome changes nothing for the caller
// (releasing remote objects), so that it costs no round trip. Calls after
// it on the session still run after it.
func (s *Session) Post(ctx context.Context, method string, params any) error {
	buf, err := jsonv2.Marshal(params, chromedp.DefaultMarshalOptions)
	if err != nil {
		return err
	}
	msg := &cdpmsg.Message{ID: s.c.next.Add(1), SessionID: s.id, Method: cdpmsg.MethodType(method), Params: buf}
	s.c.count(s.id, method)
	if err := s.c.tr.Write(ctx, msg); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// count counts a command sent to a session, when it is a target's
// (Traffic).
func (c *Conn) count(session target.SessionID, method string) {
	if session != "" {
		c.mu.Lock()
		c.sent[method]++
		c.mu.Unlock()
	}
}

func (s *Session) forget(id int64) {
	s.c.mu.Lock()
	delete(s.c.pending, id)
	s.c.mu.Unlock()
}

// Subscribe buffers the session's events of the method, without limit, from
// the moment it returns.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	sub := newSubscription()
	k := subKey{s.id, method}
	s.c.mu.Lock()
	if !s.c.closed {
		s.c.subs[k] = append(s.c.subs[k], sub)
	} else {
		sub.stop()
	}
	s.c.mu.Unlock()
	return sub.out, func() {
		s.c.mu.Lock()
		subs := s.c.subs[k]
		for i, x := range subs {
			if x == sub {
				s.c.subs[k] = append(subs[:i:i], subs[i+1:]...)
				break
			}
		}
		if len(s.c.subs[k]) == 0 {
			delete(s.c.subs, k)
		}
		s.c.mu.Unlock()
		sub.stop()
	}
}

// subscription is an unbounded queue of events feeding a channel, so the
// read loop never blocks on a slow reader.
type subscription struct {
	out  chan jsonv2.Value
	mu   sync.Mutex
	q    []jsonv2.Value
	wake chan struct{}
	once sync.Once
	done chan struct{}
}

func newSubscription() *subscription {
	s := &subscription{out: make(chan jsonv2.Value), wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.pump()
	return s
}

func (s *subscription) push(v jsonv2.Value) {
	s.mu.Lock()
	s.q = append(s.q, v)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscription) stop() { s.once.Do(func() { close(s.done) }) }

func (s *subscription) pump() {
	defer close(s.out)
	for {
		s.mu.Lock()
		q := s.q
		s.q = nil
		s.mu.Unlock()
		for _, v := range q {
			select {
			case s.out <- v:
			case <-s.done:
				return
			}
		}
		select {
		case <-s.wake:
		case <-s.done:
			return
		}
	}
}
