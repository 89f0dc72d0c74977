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
// for uicontext://current while anyone is subscribed: the first change
// after a quiet spell at once, then at most one per coalesce interval, the
// last change of a burst never lost.
type notifier struct {
	w    Watcher
	send func()

	mu    sync.Mutex
	subs  int    // subscriptions; guarded by mu
	stop  func() // stops the watch while subs > 0; guarded by mu
	kick  chan struct{}
	quit  chan struct{}
	after func(time.Duration) <-chan time.Time // time.After, or a test clock
	now   func() time.Time                     // time.Now, or a test clock
}

func newNotifier(w Watcher, send func()) *notifier {
	return &notifier{w: w, send: send, after: time.After, now: time.Now}
}

// subscribe counts a subscription; the first starts the watch.
func (n *notifier) subscribe() {
	n.mu.Lock()
	defer n.mu.Unlock()
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

// unsubscribe drops a subscription; the last stops the watch.
func (n *notifier) unsubscribe() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.subs == 0 {
		return
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
// watch: subscribing is offered for uicontext://current only.
func (s *Server) watch(opts *sdk.ServerOptions, caps *sdk.ServerCapabilities) {
	w, ok := s.src.(Watcher)
	if !ok {
		return
	}
	s.notify = newNotifier(w, func() {
		s.mcp.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: CurrentURI})
	})
	caps.Resources.Subscribe = true
	opts.SubscribeHandler = func(ctx context.Context, req *sdk.SubscribeRequest) error {
		if req.Params == nil || req.Params.URI != CurrentURI {
			return sdk.ResourceNotFoundError(subscribedURI(req.Params))
		}
		s.notify.subscribe()
		return nil
	}
	opts.UnsubscribeHandler = func(ctx context.Context, req *sdk.UnsubscribeRequest) error {
		if req.Params == nil || req.Params.URI != CurrentURI {
			return sdk.ResourceNotFoundError(subscribedURI((*sdk.SubscribeParams)(req.Params)))
		}
		s.notify.unsubscribe()
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
