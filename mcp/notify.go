package mcp

import (
	"context"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Watcher is a Source that can tell when what current answers may have
// changed (7.4). The cdp package's Provider is one.
type Watcher interface {
	// Watch calls changed, from any goroutine and without blocking on it,
	// whenever current may answer differently, until stop is called.
	Watch(changed func()) (stop func())
}

// coalesce is the shortest time between two notifications (7.4).
const coalesce = 100 * time.Millisecond

// notifier turns a Watcher's signals into notifications/resources/updated
// for uicontext://current while any session is subscribed: the first
// change after a quiet spell at once, then at most one per coalesce
// interval, the last change of a burst never lost. The SDK server sends
// each notification to the sessions subscribed to current; the notifier
// keeps one watch of the source for all of them, from the first
// subscription until the last session subscribed unsubscribes or ends.
type notifier struct {
	w    Watcher
	send func()

	mu sync.Mutex
	// sessions are the sessions that subscribed, each with the bits of
	// the URIs it is subscribed to (uriBit; 0 when none now); a session
	// stays until it ends, so that it is waited for once. Guarded by mu.
	sessions map[subscriber]uint8
	subs     int    // sessions subscribed to any URI; guarded by mu
	stop     func() // stops the watch while subs > 0; guarded by mu
	kick     chan struct{}
	quit     chan struct{}
	after    func(time.Duration) <-chan time.Time // time.After, or a test clock
	now      func() time.Time                     // time.Now, or a test clock
}

// subscriber is one client's session: *sdk.ServerSession, or a test's.
// Wait returns when the session has ended.
type subscriber interface{ Wait() error }

func newNotifier(w Watcher, send func()) *notifier {
	return &notifier{w: w, send: send, sessions: map[subscriber]uint8{}, after: time.After, now: time.Now}
}

// uriBit is the bit of a subscribable URI in notifier.sessions.
func uriBit(uri string) uint8 {
	if uri == ScreenURI {
		return 2
	}
	return 1
}

// subscribe marks a session subscribed to uri; the first subscribed
// session starts the watch. A session subscribes to a URI once:
// subscribing again changes nothing, and one unsubscribe ends it, as the
// SDK keeps subscriptions.
func (n *notifier) subscribe(ss subscriber, uri string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	bits, known := n.sessions[ss]
	bit := uriBit(uri)
	if bits&bit != 0 {
		return
	}
	n.sessions[ss] = bits | bit
	if !known {
		go func() {
			ss.Wait()
			n.end(ss)
		}()
	}
	if bits != 0 {
		return // counted already
	}
	if n.subs++; n.subs == 1 {
		n.kick, n.quit = make(chan struct{}, 1), make(chan struct{})
		go n.loop(n.kick, n.quit)
		kick := n.kick
		n.stop = n.w.Watch(func() {
			select {
			case kick <- struct{}{}:
			default:
			}
		})
	}
}

// unsubscribe unsubscribes a session from uri; one that is not
// subscribed to it changes nothing. The last subscribed session stops
// the watch.
func (n *notifier) unsubscribe(ss subscriber, uri string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.drop(ss, uriBit(uri))
}

// end forgets a session that has ended, subscribed or not.
func (n *notifier) end(ss subscriber) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.drop(ss, ^uint8(0))
	delete(n.sessions, ss)
}

// drop unsubscribes ss from the URIs of bits; n.mu is held.
func (n *notifier) drop(ss subscriber, bits uint8) {
	had := n.sessions[ss]
	if had&bits == 0 {
		return
	}
	n.sessions[ss] = had &^ bits
	if had&^bits != 0 {
		return // still subscribed to another
	}
	if n.subs--; n.subs == 0 {
		n.stop()
		close(n.quit)
	}
}

func (n *notifier) loop(kick <-chan struct{}, quit <-chan struct{}) {
	var last time.Time
	var later <-chan time.Time // a trailing notification is due
	for {
		select {
		case <-quit:
			return
		case <-kick:
			if later != nil {
				continue // the pending one will carry this change too
			}
			if wait := coalesce - n.now().Sub(last); wait > 0 {
				later = n.after(wait)
				continue
			}
		case <-later:
			later = nil
		}
		last = n.now()
		n.send()
	}
}

// watch wires subscriptions into the SDK server options when src can
// watch: subscribing is offered for uicontext://current and its screen
// only (any other URI: subscribeError). The SDK
// keeps who is subscribed, per session, and sends each notification to
// them; the handlers tell the notifier, which keeps the one watch.
func (s *Server) watch(opts *sdk.ServerOptions, caps *sdk.ServerCapabilities) {
	w, ok := s.src.(Watcher)
	if !ok {
		return
	}
	s.notify = newNotifier(w, func() {
		s.mcp.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: CurrentURI})
		s.mcp.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: ScreenURI})
	})
	caps.Resources.Subscribe = true
	opts.SubscribeHandler = func(ctx context.Context, req *sdk.SubscribeRequest) error {
		if err := s.subscribeError(subscribedURI(req.Params)); err != nil {
			return err
		}
		s.notify.subscribe(req.Session, req.Params.URI)
		return nil
	}
	opts.UnsubscribeHandler = func(ctx context.Context, req *sdk.UnsubscribeRequest) error {
		if err := s.subscribeError(subscribedURI((*sdk.SubscribeParams)(req.Params))); err != nil {
			return err
		}
		s.notify.unsubscribe(req.Session, req.Params.URI)
		return nil
	}
}

// subscribedURI is the URI a (un)subscribe request names, "" when none.
func subscribedURI(p *sdk.SubscribeParams) string {
	if p == nil {
		return ""
	}
	return p.URI
}
