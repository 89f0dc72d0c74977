package provider

import (
	"net/url"
	"strings"

	"github.com/cdpprovider/cdpprovider/cdp"
	"github.com/cdpprovider/cdpprovider/cdp/browsers"
)

// Advice is what the command line adds when it prints a failed read: what
// to do there, with its flags, by the failure's reason (cdp.ReasonOf) and
// how the browser was reached. The failure's own message, which a host
// also shows its person, names no flag; empty when there is nothing to
// add (the person is asked to click Allow, and that is all).
func Advice(err error, cfg Config) string {
	const doctor = " `cdpprovider doctor` says what it sees."
	switch cdp.ReasonOf(err) {
	case cdp.ReasonUnreachable, cdp.ReasonRestarting:
		if a := serviceAdvice(cdp.ServiceAnswer(err)); a != "" {
			return a
		}
		switch reached(cfg) {
		case "launched":
			return "Run the command again to start a new browser with --launch; --chrome PATH picks the browser to start." + doctor
		case "auto":
			return "In Chrome, Chromium, Edge or Brave open chrome://inspect/#remote-debugging and allow remote debugging; " +
				"or start one with a debugging port, as in `chromium --remote-debugging-port=9222 --user-data-dir=DIR` " +
				"(a directory other than its default profile), and use --connect http://127.0.0.1:9222; " +
				"or let cdpprovider start one with --launch." + doctor
		case "local":
			return "Start the browser with --remote-debugging-port=PORT --user-data-dir=DIR (a directory other than its default profile) " +
				"and give that port to --connect (a browser that answers 404 there allows debugging from chrome://inspect: name its " +
				"directory with --user-data-dir DIR); or use --connect auto for the browser you use, once chrome://inspect/#remote-debugging " +
				"allows it; or let cdpprovider start one with --launch." + doctor
		default:
			return "Check the service's address (--connect) and the token it wants (--header 'Name: value')."
		}
	case cdp.ReasonLaunchFailed:
		return "Give the browser to start with --chrome PATH (or $CHROME), or read a browser you started with --connect." + doctor
	case cdp.ReasonBadAddress:
		return "--connect takes auto, http://127.0.0.1:9222, 127.0.0.1:9222 or a ws:// or wss:// URL (not on this machine only with " +
			"--allow-remote); --header takes 'Name: value'."
	case cdp.ReasonReadFailed:
		return "Try again; --log-level debug says more." + doctor
	}
	return "" // consent-pending, consent-declined: the message says what to click
}

// serviceAdvice is what to do after a browser service's answer (the
// kind cdp.ServiceAnswer says), "" after any other failure: a service's
// refusal is never mended by the advice for a local browser.
func serviceAdvice(kind string) string {
	switch kind {
	case cdp.ServiceToken:
		return "Give the service's token as it wants it: in the address, --connect 'http://HOST:PORT?token=T', " +
			"or as a header, --header 'Authorization: Bearer T'."
	case cdp.ServiceFull:
		return "Wait until one of the service's sessions ends, or raise its limit (Browserless: CONCURRENT and QUEUED)."
	case cdp.ServiceNoSession:
		return "Name the agent's session with --session ID (the service's GET /sessions?token=T lists them), " +
			"or give --connect that session's own address, ws://HOST:PORT/devtools/browser/ID?token=T."
	case cdp.ServiceEnded:
		return "Start cdpprovider again for the agent's next session; --hold-session keeps a session connected after the agent's client left."
	case cdp.ServiceNoList:
		return "Give --connect the agent's session's own address (the service's connect URL for that session)."
	}
	return ""
}

// reached says how cfg reaches the browser: "launched", "auto", "local"
// (a debugging address on this machine) or "remote" (a browser service).
func reached(cfg Config) string {
	switch {
	case cfg.Launch:
		return "launched"
	case cfg.Connect == "" || cfg.Connect == browsers.Auto:
		return "auto"
	}
	addr := cfg.Connect
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	// A token or a session named is a browser service's, wherever it
	// runs: the advice for a browser started with a port does not mend it.
	u, err := url.Parse(addr)
	service := len(cfg.Headers) > 0 || cfg.Session != "" || err == nil && u.RawQuery != ""
	if err == nil && browsers.IsLoopback(u.Hostname()) && !service {
		return "local"
	}
	return "remote"
}

// withAdvice is err with the command line's advice after it, for the
// current command; err itself when there is none.
func withAdvice(err error, cfg Config) error {
	if a := Advice(err, cfg); a != "" {
		return &advised{err: err, advice: a}
	}
	return err
}

// advised is an error the command line prints with its advice.
type advised struct {
	err    error
	advice string
}

func (a *advised) Error() string { return a.err.Error() + "\n" + a.advice }

func (a *advised) Unwrap() error { return a.err }
