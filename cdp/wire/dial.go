package wire

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// A browser whose person allowed debugging at chrome://inspect asks them,
// in its window ("Allow remote debugging?"), before it lets each new
// websocket in; the handshake waits until they answer. So a connection is
// dialled in the background and that one dial is kept, never a second
// one beside it (each would ask again): a read waits for it only briefly
// (Wait), and says what the person has to do meanwhile. The one
// connection then serves every later read, locate and subscription.

// ErrConsentPending is Wait's error while the browser asks its person
// whether to allow the connection.
var ErrConsentPending = errors.New("waiting for the person to allow remote debugging")

// ErrConsentDeclined is Wait's error after the person declined the
// connection; the next dial asks again.
var ErrConsentDeclined = errors.New("remote debugging was not allowed")

// consentWait is how long Wait waits for a connection the browser may
// be asking its person about, before it answers ErrConsentPending.
const consentWait = 2 * time.Second

// dialTimeout bounds the handshake with a browser that does not ask.
const dialTimeout = 20 * time.Second

// Dial is one connection being opened in the background.
type Dial struct {
	asks bool          // the browser may ask its person first
	done chan struct{} // closed when the dial has ended
	c    *Conn         // the connection; set before done is closed
	err  error         // why the dial failed; set before done is closed
}

// StartDial dials the browser's websocket at url in the background,
// sending header (nil: none) with the handshake, until it connects,
// fails, or life ends. A browser that may ask its person (asks) is given
// all the time they take; another, dialTimeout.
func StartDial(life context.Context, url string, header http.Header, asks bool) *Dial {
	d := &Dial{asks: asks, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		ctx := life
		if !asks {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, dialTimeout)
			defer cancel()
		}
		d.c, d.err = dial(ctx, url, header)
	}()
	return d
}

// Wait waits for the dial: while the browser may be asking its person, at
// most consentWait (then ErrConsentPending); otherwise until ctx ends.
// over says the dial has ended and is spent: it returns the connection,
// or why the dial failed, ErrConsentDeclined when the person declined.
// Until then the dial goes on, for a later Wait.
func (d *Dial) Wait(ctx context.Context) (c *Conn, over bool, err error) {
	var wait <-chan time.Time
	if d.asks {
		t := time.NewTimer(consentWait)
		defer t.Stop()
		wait = t.C
	}
	select {
	case <-d.done:
	case <-wait:
		return nil, false, ErrConsentPending
	case <-ctx.Done():
		return nil, false, fmt.Errorf("the browser did not answer the connection: %w", ctx.Err())
	}
	switch {
	case d.err != nil && d.asks && errors.Is(d.err, errRefused):
		// The browser answers 403 when its person clicks Cancel.
		return nil, true, ErrConsentDeclined
	case d.err != nil:
		return nil, true, d.err
	}
	return d.c, true, nil
}

// Stop waits for the dial to end (its life ended) and closes what it
// connected.
func (d *Dial) Stop() {
	<-d.done
	if d.c != nil {
		d.c.Close()
	}
}
