package cdp

import "errors"

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
