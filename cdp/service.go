package cdp

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
)

// A browser service's session, read as a second client: the agent that
// opened it is the first. A service keeps a session while any client is
// connected (Browserless: up to its TIMEOUT) and ends it, deleting its
// browser, when the last one leaves. So that the provider never keeps a
// session alive on its own, it asks the service's list while connected
// and lets go once it is the session's only client (Options.HoldSession
// keeps it instead). Once it read a session, a provider reads that
// session or none: after it ends, reads answer browser-unreachable,
// "the service ended the session", rather than move to another agent's
// browser.

// sessionPoll is how often the provider asks a service's list of
// sessions while it reads one: how long it may keep a session the agent
// left.
const sessionPoll = time.Second

// serviceSession is the service's session the provider reads, and how it
// ended.
type serviceSession struct {
	// id is the session's browser id, set (under Provider.mu) by the
	// first connection that reached a service's session and never
	// changed after.
	id string
	// ended is why the session can no longer be read, set by
	// followSession: "" while it can.
	ended atomicString
}

// followSession asks the service's list every sessionPoll while c
// lasts, and closes c when the service ended the session or the
// provider is its only client (the agent left), unless the host asked to
// hold it.
func (p *Provider) followSession(c *wire.Conn, t browsers.Resolved) {
	tick := time.NewTicker(p.sessionPoll())
	defer tick.Stop()
	held := false // said once that the provider holds the session alone
	for {
		select {
		case <-c.Done():
			return
		case <-p.life.Done():
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(p.life, 5*time.Second)
		st, ok, err := t.SessionState(ctx)
		cancel()
		switch {
		case err != nil:
			p.log.Debug("could not ask the browser service's list of sessions", "err", err)
			continue
		case !ok:
			return // the service offers no list: nothing to follow
		case !st.Listed:
			p.session.ended.Store("the service ended the session")
			p.log.Info("the browser service ended the session", "session", t.Session)
		case st.Clients <= 1 && !p.opts.HoldSession:
			p.session.ended.Store("its other clients left and cdpprovider does not keep a session open on its own, so the service ended the session")
			p.log.Info("the agent's client left the browser service's session: letting go of it, so that the service ends it "+
				"as it would without cdpprovider (--hold-session keeps it)", "session", t.Session)
		case st.Clients <= 1:
			if !held {
				held = true
				p.log.Info("the agent's client left the browser service's session: holding it, as --hold-session asks; "+
					"the service keeps it while cdpprovider is connected", "session", t.Session)
			}
			continue
		default:
			continue
		}
		c.Close()
		return
	}
}

func (p *Provider) sessionPoll() time.Duration {
	if p.sessionPollEvery > 0 {
		return p.sessionPollEvery
	}
	return sessionPoll
}

// atomicString is a string read and written from any goroutine.
type atomicString struct{ v atomic.Pointer[string] }

func (a *atomicString) Load() string {
	if s := a.v.Load(); s != nil {
		return *s
	}
	return ""
}

func (a *atomicString) Store(s string) { a.v.Store(&s) }

// sessionEnded is the failure of a read after the service's session
// ended, nil while it has not: then the read goes on to Resolve, which
// finds that session again or says the service no longer lists it.
func (p *Provider) sessionEnded() error {
	why := p.session.ended.Load()
	if why == "" {
		return nil
	}
	return fail(ReasonUnreachable, fmt.Sprintf("The browser service at %s no longer has the session %s: %s. "+
		"A new session is another browser: cdpprovider reads it when started for it.", p.ep.Shown(), p.session.id, why), errSessionEnded)
}

// serviceEnded says the failure to reach the service's session the
// provider read (t: the browser found, nil when none was) is the
// service's having ended it: its list no longer has it, whether the
// list was asked to find it (browsers.ErrNoSession) or a session's own
// address dialled nothing. Called with Provider.mu held.
func (p *Provider) serviceEnded(err error, t *browsers.Resolved) bool {
	if errors.Is(err, browsers.ErrNoSession) {
		return true
	}
	if t == nil || t.Session != p.session.id {
		return false
	}
	st, ok, lerr := t.SessionState(p.life)
	return lerr == nil && ok && !st.Listed
}

// errSessionEnded is under the failure of a read after the service ended
// the session the provider read.
var errSessionEnded = errors.New("the service ended the session")

// serviceMessage words a service's answer that let the provider not in
// or named no session to read, for the host's person; ok is false for
// any other error. It names no flag (the command line adds its own).
func (p *Provider) serviceMessage(err error) (msg string, ok bool) {
	addr := p.ep.Shown()
	code, said := refusalOf(err)
	quote := ""
	if said != "" {
		quote = fmt.Sprintf(" (it said %q)", said)
	}
	switch {
	case code == 401:
		return fmt.Sprintf("The browser service at %s refused the connection: 401 Unauthorized%s: the token is missing or wrong. "+
			"Give the service's token with every request, in the address's query (?token=…) or as a header.", addr, quote), true
	case code == 429:
		return fmt.Sprintf("The browser service at %s is full: 429 Too Many Requests%s: it runs as many sessions as it allows "+
			"and queues no more. Try again once one ends, or raise the service's limit.", addr, quote), true
	case errors.Is(err, browsers.ErrNoSession), errors.Is(err, browsers.ErrSessions):
		return fmt.Sprintf("The browser service at %s has no session cdpprovider can tell is the agent's: %s. "+
			"A connection to the service's own address would start a new, blank browser, which cdpprovider never reads.", addr, causeOf(err)), true
	case errors.Is(err, browsers.ErrNoSessionList):
		return fmt.Sprintf("The browser service at %s starts a new, blank browser for every connection to that address and offers "+
			"no list of its sessions; give the address of the agent's session (its ws:// or wss:// URL) instead.", addr), true
	}
	return "", false
}

// refusalOf is the HTTP status and what the service said of a request
// or a handshake that let the provider not in; code is 0 for any other
// error.
func refusalOf(err error) (code int, said string) {
	if se := (*browsers.StatusError)(nil); errors.As(err, &se) {
		return se.Code, se.Said
	}
	if he := (*wire.HandshakeError)(nil); errors.As(err, &he) {
		return he.Code, he.Said
	}
	return 0, ""
}

// The kinds of a browser service's answer (ServiceAnswer).
const (
	// ServiceToken: the service refused the token (401).
	ServiceToken = "token"
	// ServiceFull: the service runs all the sessions it allows (429).
	ServiceFull = "full"
	// ServiceNoSession: its list has no session the provider can tell
	// is the agent's: none with pages, several, or not the one named.
	ServiceNoSession = "no-session"
	// ServiceEnded: the service ended the session the provider read.
	ServiceEnded = "ended"
	// ServiceNoList: its address starts a new browser per connection and
	// it offers no list of sessions.
	ServiceNoList = "no-list"
)

// ServiceAnswer is the kind of browser service's answer a read's failure
// is (one of the Service constants), "" when it is none: the command
// line's advice for a service follows it, not a local browser's.
func ServiceAnswer(err error) string {
	code, _ := refusalOf(err)
	switch {
	case errors.Is(err, errSessionEnded):
		return ServiceEnded
	case code == 401:
		return ServiceToken
	case code == 429:
		return ServiceFull
	case errors.Is(err, browsers.ErrNoSession), errors.Is(err, browsers.ErrSessions):
		return ServiceNoSession
	case errors.Is(err, browsers.ErrNoSessionList):
		return ServiceNoList
	}
	return ""
}
