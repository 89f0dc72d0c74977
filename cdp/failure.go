package cdp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
)

// A read that fails for the browser's sake (not for the id or URI asked
// for) fails with a *Failure: its Kind is one of the stable Reason names
// below, which the mcp package (which never imports cdp) finds through
// the Reason method and puts in the error's data.reason for the host's
// code, and its message says, for the host and its person, what
// happened and what the person can do there. Advice for the command line
// (flags, `cdpprovider doctor`) is not in it: the command line adds its
// own (provider.Advice).

// The reasons a read can fail for the browser's sake.
const (
	// ReasonUnreachable: no browser could be reached: none allows
	// debugging, nothing answers at the address, or the handshake failed.
	// The next read tries again.
	ReasonUnreachable = "browser-unreachable"
	// ReasonConsentPending: the browser is asking its person, in its
	// window, whether to allow the provider's connection. The next read
	// after they click Allow succeeds.
	ReasonConsentPending = "consent-pending"
	// ReasonConsentDeclined: the person clicked Cancel in that dialog.
	// The next read asks again.
	ReasonConsentDeclined = "consent-declined"
	// ReasonRestarting: the provider had the browser in this run, the
	// connection ended, and no browser answers yet (it may be
	// restarting). The next read looks for it again.
	ReasonRestarting = "browser-restarting"
	// ReasonLaunchFailed: the browser the provider was told to start
	// (--launch) did not start.
	ReasonLaunchFailed = "launch-failed"
	// ReasonBadAddress: the browser's address (--connect, --header) is
	// not one the provider can use; only a new setting mends it.
	ReasonBadAddress = "bad-address"
	// ReasonReadFailed: the browser was reached but failed during the
	// read. The next read tries again.
	ReasonReadFailed = "read-failed"
)

// Failure is a read's failure for the browser's sake, of a kind a host
// can act on.
type Failure struct {
	// Kind is one of the Reason constants.
	Kind string
	// Err is what happened, worded for the host and its person.
	Err error
}

func (f *Failure) Error() string { return f.Err.Error() }

func (f *Failure) Unwrap() error { return f.Err }

// Reason is the failure's Kind: what the mcp package looks for.
func (f *Failure) Reason() string { return f.Kind }

// ReasonOf is the Kind of the first *Failure in err's chain, or
// ReasonReadFailed when there is none.
func ReasonOf(err error) string {
	if f := (*Failure)(nil); errors.As(err, &f) {
		return f.Kind
	}
	return ReasonReadFailed
}

// fail is a Failure of kind whose message is msg; cause (nil: none) is
// what errors.Is and errors.As find under it.
func fail(kind, msg string, cause error) *Failure {
	return &Failure{Kind: kind, Err: &worded{msg: msg, cause: cause}}
}

// worded is an error whose message is written for a person, over the
// error that caused it.
type worded struct {
	msg   string
	cause error
}

func (w *worded) Error() string { return w.msg }

func (w *worded) Unwrap() error { return w.cause }

// statusOf is the answer of the request or the handshake that let the
// provider not in (browsers.StatusError, wire.HandshakeError), as a
// person reads it: "401 Unauthorized"; ok is false when err is no such
// answer.
func statusOf(err error) (status string, ok bool) {
	code := 0
	if se := (*browsers.StatusError)(nil); errors.As(err, &se) {
		code = se.Code
	} else if he := (*wire.HandshakeError)(nil); errors.As(err, &he) {
		code = he.Code
	} else {
		return "", false
	}
	return strings.TrimSpace(fmt.Sprintf("%d %s", code, http.StatusText(code))), true
}

// unreachable is the Failure of a read that could not reach the browser:
// err says why (resolve's, the dial's or the handshake's error), t is
// the browser found, nil when none was. Before this provider ever had a
// connection it is browser-unreachable; after, the connection that
// worked has ended and the browser does not answer yet:
// browser-restarting.
func (p *Provider) unreachable(err error, t *browsers.Resolved) error {
	name := "the browser"
	switch {
	case t != nil && t.Name != "":
		name = t.Name
	case p.lastProduct != "":
		name = p.lastProduct
	}
	if p.session.id != "" && p.serviceEnded(err, t) {
		p.session.ended.Store("the service ended the session")
		return p.sessionEnded()
	}
	if msg, ok := p.serviceMessage(err); ok {
		return fail(ReasonUnreachable, msg, err)
	}
	msg := p.unreachableMessage(err, name)
	if !p.hadConn {
		return fail(ReasonUnreachable, msg, err)
	}
	return fail(ReasonRestarting, fmt.Sprintf("The connection to %s ended and it does not answer yet; it may be restarting, "+
		"and the next read looks for it again. %s", name, msg), err)
}

// unreachableMessage says, for the host's person, why the browser named
// name could not be reached, in the terms of how it was asked for: the
// browser the provider started, the person's own browser found on this
// machine, a debugging port on this machine, or a browser service
// elsewhere. It names no command-line flag (the command line adds its
// own advice) and no secret of the address.
func (p *Provider) unreachableMessage(err error, name string) string {
	refused := errors.Is(err, syscall.ECONNREFUSED)
	status, refusal := statusOf(err)
	addr := p.ep.Shown()
	switch {
	case p.opts.Launched && refused:
		return "The browser cdpprovider started is not running any more."
	case p.opts.Launched:
		return fmt.Sprintf("The browser cdpprovider started does not answer: %s.", causeOf(err))
	case errors.Is(err, browsers.ErrNoBrowserFound):
		return err.Error() // auto discovery's, which says what to do
	case p.ep.IsAuto():
		return fmt.Sprintf("%s allows remote debugging but does not answer: %s.", capitalize(name), causeOf(err))
	case (!p.ep.Local() || p.ep.Service()) && refusal:
		return fmt.Sprintf("The browser service at %s refused the connection: %s.", addr, status)
	case !p.ep.Local() || p.ep.Service():
		return fmt.Sprintf("The browser service at %s cannot be reached: %s.", addr, causeOf(err))
	case refused:
		return fmt.Sprintf("Nothing answers at %s: the browser started with a debugging port is not running, or uses another port.", addr)
	case refusal:
		return fmt.Sprintf("The browser at %s refused the connection: %s.", addr, status)
	}
	return fmt.Sprintf("The browser at %s cannot be reached: %s.", addr, causeOf(err))
}

// causeOf is err's message without the URL a request's error names (it
// may hold a token) and the prefixes the websocket library adds.
func causeOf(err error) string {
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		err = ue.Err
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time"
	case errors.Is(err, context.Canceled):
		return "the read was cancelled"
	}
	msg := err.Error()
	for _, prefix := range []string{"failed to WebSocket dial: ", "failed to send handshake request: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return strings.TrimSuffix(msg, ".")
}

// failure is the Failure of a read that reached the browser and
// failed trying to do what: browser-restarting when the connection ended
// under it (the browser closed, crashed or restarted), read-failed
// otherwise, and when the provider dropped the connection itself because
// the browser stopped answering (wire.ErrStalled), which it says.
func (p *Provider) failure(what string, err error) error {
	if p.conn != nil && !p.conn.Alive() && !errors.Is(err, wire.ErrStalled) {
		name := p.lastProduct
		if name == "" {
			name = "the browser"
		}
		return fail(ReasonRestarting, fmt.Sprintf("%s went away while the provider tried to %s (it closed, crashed or restarted); "+
			"the next read looks for it again.", capitalize(name), what), err)
	}
	return fail(ReasonReadFailed, fmt.Sprintf("Could not %s: %s.", what, causeOf(err)), err)
}

// consentMessage says what the person has to do while the browser asks.
func consentMessage(name string) string {
	return fmt.Sprintf("%s is asking whether to allow remote debugging: click Allow in its window "+
		"(the dialog \"Allow remote debugging?\") to let cdpprovider read what you see.", capitalize(name))
}

func capitalize(s string) string {
	if s == "" {
		return "The browser"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
