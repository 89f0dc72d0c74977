package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/cdp"
	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// The command line's advice follows the failure's reason and how the
// browser was reached; a failure that asks the person to click Allow has
// none.
func TestAdvice(t *testing.T) {
	fail := func(kind string) error {
		return fmt.Errorf("read current: %w", &cdp.Failure{Kind: kind, Err: errors.New("what happened")})
	}
	for _, c := range []struct {
		kind string
		cfg  Config
		want []string // each in the advice; none: no advice
	}{
		{cdp.ReasonUnreachable, Config{Connect: "auto"}, []string{"chrome://inspect/#remote-debugging", "--remote-debugging-port=9222 --user-data-dir=DIR", "--connect", "--launch", "cdpprovider doctor"}},
		{cdp.ReasonUnreachable, Config{}, []string{"chrome://inspect/#remote-debugging", "--remote-debugging-port=9222"}},
		{cdp.ReasonRestarting, Config{Connect: "127.0.0.1:9222"}, []string{"--remote-debugging-port=PORT --user-data-dir=DIR", "--connect auto", "--launch", "cdpprovider doctor"}},
		{cdp.ReasonUnreachable, Config{Connect: "http://localhost:9222"}, []string{"--remote-debugging-port=PORT"}},
		{cdp.ReasonUnreachable, Config{Connect: "wss://browser.example/x", AllowRemote: true}, []string{"--connect", "--header"}},
		// A service on this machine (a token, a session named) is a
		// service: never the advice for a browser started with a port.
		{cdp.ReasonUnreachable, Config{Connect: "http://127.0.0.1:3000?token=T"}, []string{"--connect", "--header"}},
		{cdp.ReasonRestarting, Config{Connect: "http://127.0.0.1:3000", Session: "b1"}, []string{"--connect", "--header"}},
		{cdp.ReasonRestarting, Config{Launch: true}, []string{"--launch", "--chrome"}},
		{cdp.ReasonLaunchFailed, Config{Launch: true}, []string{"--chrome", "cdpprovider doctor"}},
		{cdp.ReasonBadAddress, Config{Connect: "ftp://x"}, []string{"--connect takes auto", "--header"}},
		{cdp.ReasonReadFailed, Config{}, []string{"--log-level debug"}},
		{cdp.ReasonConsentPending, Config{}, nil},
		{cdp.ReasonConsentDeclined, Config{}, nil},
	} {
		got := Advice(fail(c.kind), c.cfg)
		if len(c.want) == 0 && got != "" {
			t.Errorf("%s with %+v: advice %q, want none", c.kind, c.cfg, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s with %+v: advice %q lacks %q", c.kind, c.cfg, got, w)
			}
		}
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&browsers.StatusError{Code: 401, Err: errors.New("GET /json/version: 401")}, "--header 'Authorization: Bearer T'"},
		{&browsers.StatusError{Code: 429, Err: errors.New("GET /sessions: 429")}, "CONCURRENT"},
		{browsers.ErrSessions, "--session ID"},
		{browsers.ErrNoSession, "--session ID"},
		{browsers.ErrNoSessionList, "session's own address"},
	} {
		// On this machine, with no sign of a service but the answer.
		err := fmt.Errorf("read current: %w", &cdp.Failure{Kind: cdp.ReasonUnreachable, Err: c.err})
		got := Advice(err, Config{Connect: "127.0.0.1:3000"})
		if !strings.Contains(got, c.want) || strings.Contains(got, "--remote-debugging-port") {
			t.Errorf("a service's %v: advice %q, want %q and not a local browser's", c.err, got, c.want)
		}
	}
	if got := Advice(errors.New("no reason"), Config{}); !strings.Contains(got, "--log-level debug") {
		t.Errorf("an error without a reason: advice %q, want read-failed's", got)
	}
}

// failingSource fails every read of current with err.
type failingSource struct {
	fakeSource
	err error
}

func (f *failingSource) Current(context.Context) (*mapping.Current, error) { return nil, f.err }
func (f *failingSource) Screen(context.Context) (*mapping.Current, error)  { return nil, f.err }

// The current command prints the failure with the advice after it, and
// the failure stays what it was (errors.Is, the reason).
func TestCurrentAddsAdvice(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	msg := "Nothing answers at 127.0.0.1:9222: the browser started with a debugging port is not running, or uses another port."
	failure := &cdp.Failure{Kind: cdp.ReasonUnreachable, Err: errors.New(msg)}
	err := current(context.Background(), Config{Connect: "127.0.0.1:9222"}, &failingSource{err: failure}, io.Discard, quiet)
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.SplitN(err.Error(), "\n", 2)
	if lines[0] != "read current: "+msg || len(lines) != 2 || !strings.Contains(lines[1], "--remote-debugging-port=PORT") {
		t.Errorf("current: %q, want the failure, then the advice on a line of its own", err)
	}
	if cdp.ReasonOf(err) != cdp.ReasonUnreachable || !errors.Is(err, failure) {
		t.Errorf("current: %v is no longer the failure", err)
	}
	// launch-failed, from the provider package's own browser: passed on,
	// with its advice.
	launch := &cdp.Failure{Kind: cdp.ReasonLaunchFailed, Err: errors.New("The browser cdpprovider was to start did not start.")}
	err = current(context.Background(), Config{Launch: true}, &failingSource{err: launch}, io.Discard, quiet)
	if err == nil || !strings.Contains(err.Error(), "--chrome") || cdp.ReasonOf(err) != cdp.ReasonLaunchFailed {
		t.Errorf("current with a launch that failed: %v", err)
	}
}
