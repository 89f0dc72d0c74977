package cdp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
)

// A browser whose person allowed debugging at chrome://inspect asks them,
// in its window ("Allow remote debugging?"), before it lets each new
// websocket in; the handshake waits until they answer. So the provider
// dials in the background and keeps that one dial, never a second one
// beside it (each would ask again): reads wait for it only briefly, and
// say what the person has to do meanwhile (the callers log it: the MCP
// server once, the current command once). The one connection then serves
// every later read, locate and subscription.

// ErrConsentPending is the error of a read while the browser asks its
// person whether to allow the provider's connection.
var ErrConsentPending = errors.New("waiting for the person to allow remote debugging")

// ErrConsentDeclined is the error of a read after the person declined
// the provider's connection; the next read asks again.
var ErrConsentDeclined = errors.New("remote debugging was not allowed")

// consentWait is how long a read waits for a connection the browser may
// be asking its person about, before it answers ErrConsentPending.
const consentWait = 2 * time.Second

// dialTimeout bounds the handshake with a browser that does not ask.
const dialTimeout = 20 * time.Second

// dialing is one connection being opened in the background.
type dialing struct {
	target browsers.Resolved
	done   chan struct{} // closed when the dial has ended
	c      *conn         // the connection; set before done is closed
	err    error         // why the dial failed; set before done is closed
	asked  bool          // a read has answered ErrConsentPending; guarded by Provider.mu
}

// startDial dials t in the background until it connects, fails, or the
// provider closes. A browser that may ask its person is given all the
// time they take.
func (p *Provider) startDial(t browsers.Resolved) *dialing {
	d := &dialing{target: t, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		ctx := p.life
		if !t.Asks {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, dialTimeout)
			defer cancel()
		}
		d.c, d.err = dial(ctx, t.WS, t.Header)
	}()
	return d
}

// awaitDial waits for the dial under way: while the browser may be asking
// its person, at most consentWait; otherwise until ctx ends. It returns the
// connection when the dial is done (and forgets the dial), or the error a
// read answers meanwhile. Called with p.mu held.
func (p *Provider) awaitDial(ctx context.Context) (*conn, browsers.Resolved, error) {
	d := p.dialing
	var wait <-chan time.Time
	if d.target.Asks {
		t := time.NewTimer(consentWait)
		defer t.Stop()
		wait = t.C
	}
	select {
	case <-d.done:
	case <-wait:
		d.asked = true
		return nil, d.target, fail(ReasonConsentPending, consentMessage(d.target.Name), ErrConsentPending)
	case <-ctx.Done():
		return nil, d.target, fmt.Errorf("the browser did not answer the connection: %w", ctx.Err())
	}
	p.dialing = nil
	switch {
	case d.err != nil && d.target.Asks && rejected(d.err):
		msg := fmt.Sprintf("%s did not allow remote debugging (Cancel in its \"Allow remote debugging?\" dialog). "+
			"The next read asks again: click Allow there to let cdpprovider read what you see.", capitalize(d.target.Name))
		return nil, d.target, fail(ReasonConsentDeclined, msg, ErrConsentDeclined)
	case d.err != nil:
		return nil, d.target, d.err
	}
	if d.asked {
		p.log.Info("remote debugging allowed", "browser", d.target.Name)
	}
	return d.c, d.target, nil
}

// consentMessage says what the person has to do while the browser asks.
func consentMessage(name string) string {
	return fmt.Sprintf("%s is asking whether to allow remote debugging: click Allow in its window "+
		"(the dialog \"Allow remote debugging?\") to let cdpprovider read what you see.", capitalize(name))
}

// rejected says whether a handshake failed because the browser refused
// the connection: it answers 403 when its person clicks Cancel.
func rejected(err error) bool { return errors.Is(err, errRefused) }

func capitalize(s string) string {
	if s == "" {
		return "The browser"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// stopDial ends the dial under way, if any, closing what it connected.
// Called with p.mu held, after p.life is cancelled.
func (p *Provider) stopDial() {
	if d := p.dialing; d != nil {
		<-d.done
		if d.c != nil {
			d.c.close()
		}
		p.dialing = nil
	}
}

// followConn tells the watcher when the connection ends (current answers
// differently, an error) and, while anyone watches, reads until the
// browser is back.
func (p *Provider) followConn(c *conn) {
	select {
	case <-c.done:
	case <-p.life.Done():
		return
	}
	if f := p.watcher.Load(); f != nil {
		p.changed("the connection to the browser ended", "")
		p.readWhileWatched(f, true)
	}
}

// watchRetry is how long a watcher's read waits before it tries again
// to reach a browser that is not there.
const watchRetry = time.Second

// readWhileWatched reads current until a read succeeds, while f is the
// watcher, so that the watchers of every page shown run and a browser
// that comes back (or a person who clicks Allow) is told to the host.
// It tells the watcher of the success when notify, or when a read failed
// before it.
func (p *Provider) readWhileWatched(f *func(), notify bool) {
	for p.watcher.Load() == f {
		_, err := p.Current(p.life)
		if err == nil {
			if notify {
				p.changed("a read succeeded after the browser was away", "")
			}
			return
		}
		p.log.Debug("a read for the watcher failed", "err", err)
		notify = true
		select {
		case <-time.After(watchRetry):
		case <-p.life.Done():
			return
		}
	}
}
