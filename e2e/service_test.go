package e2e

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/internal/browserless"
	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// startBrowserless starts the pinned Browserless (e2e/testdata/browserless) for
// this test, its browsers the shared Chromium's executable. Where it is
// not installed the test skips, naming what to run, and fails under
// CI=true, where .ci/test installs it.
func startBrowserless(t *testing.T) *browserless.Service {
	t.Helper()
	needEnv(t)
	if err := browserless.Installed(moduleRoot()); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (CI=true: failing instead of skipping)", err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := browserless.Start(ctx, moduleRoot(), env.chromePath, browserless.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Browserless's log:\n%s", s.Log())
		}
		if err := s.Stop(); err != nil {
			t.Errorf("stop Browserless: %v", err)
		}
	})
	return s
}

// agent is an agent's client of the service: a chromedp connection to
// its bare address, which starts a browser, a session of its own, with a
// tab on url.
type agent struct {
	ctx   context.Context
	id    string // the session's id in the service's list
	leave context.CancelFunc
}

func startAgent(t *testing.T, s *browserless.Service, url string) *agent {
	t.Helper()
	actx, leave := remote.NewAllocator(context.Background(), s.WS(), remote.NoModifyURL)
	// Leaving, the agent drops its connection and leaves its tab open,
	// as a client that ends does.
	ctx, _ := chromedp.NewContext(actx, chromedp.WithDetachOnCancel())
	t.Cleanup(leave)
	// The first Run binds the connection's life to its context: no
	// timeout here.
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("an agent opens %s through Browserless: %v", url, err)
	}
	a := &agent{ctx: ctx, leave: leave}
	waitFor(t, "the service to list the session on "+url, func() bool {
		a.id, _ = s.SessionOf(context.Background(), url)
		return a.id != ""
	})
	return a
}

// clients is how many clients the service counts on session id, -1 once
// it no longer lists it. Browserless answers its list with 500 now and
// then while a browser closes: the list is asked again.
func clients(t *testing.T, s *browserless.Service, id string) int {
	t.Helper()
	var n int
	var listed bool
	waitFor(t, "the service's list of sessions", func() bool {
		var err error
		n, listed, err = s.Clients(context.Background(), id)
		return err == nil
	})
	if !listed {
		return -1
	}
	return n
}

// wantUnreachable reads current and wants browser-unreachable with a
// message that holds each of want.
func wantUnreachable(t *testing.T, what string, p *provider, want ...string) {
	t.Helper()
	_, err := p.readRaw(t, currentURI)
	we := wantHostError(t, what, err, currentURI, jsonrpc.CodeInternalError, "", "browser-unreachable", "")
	for _, w := range want {
		if !strings.Contains(we.Message, w) {
			t.Errorf("%s: %q lacks %q", what, we.Message, w)
		}
	}
}

// docShowing is the document of the answer whose URL is url, nil when
// none is.
func docShowing(a *answer, url string) *mapping.Element {
	return elemtest.First(a.Root, func(e *mapping.Element) bool { return e.Role == "Document" && e.URL == url })
}

// A browser service, the real open-source Browserless: the provider
// finds the agent's session in its list (never its bare address, which
// would start a new, blank browser), with its token on every request,
// reads it, locates in it, is told of its changes, reads the right one of
// two sessions, lets go of a session its agent left (so that the service
// ends it, and says so to the next read), and holds one with
// --hold-session.
func TestBrowserService(t *testing.T) {
	s := startBrowserless(t)
	bare := s.URL + "?token=" + s.Token

	// Without its token the service refuses: its words, and what they
	// mean, not the advice for a browser on this machine.
	p := startProvider(t, s.URL)
	wantUnreachable(t, "no token", p, `401 Unauthorized (it said "Bad or missing authentication.")`, "the token is missing or wrong")

	// No agent yet: nothing to read, and reading started no browser.
	p = startProvider(t, bare)
	wantUnreachable(t, "no session", p, "no session whose browser has pages", "new, blank browser")
	if es, err := s.Sessions(context.Background()); err != nil || len(es) != 0 {
		t.Fatalf("after a read of the bare address the service lists %v, %v; want no session", es, err)
	}

	// One agent: its session is the one whose browser has pages.
	a := startAgent(t, s, env.pageA+"/plain.html")
	p = startProvider(t, bare)
	if docShowing(p.current(t), env.pageA+"/plain.html") == nil {
		t.Fatal("the service's one session with pages was not read")
	}
	if err := p.close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the provider to leave A's session", func() bool { return clients(t, s, a.id) == 1 })

	b := startAgent(t, s, env.pageA+"/other.html")

	// Two sessions with pages and none named: the provider cannot tell
	// the agent's, and starts no third.
	p = startProvider(t, strings.Replace(bare, "http:", "ws:", 1))
	wantUnreachable(t, "two sessions", p, a.id, b.id, "new, blank browser")
	if es, _ := s.Sessions(context.Background()); countBrowsers(es) != 2 {
		t.Fatalf("the service lists %d sessions, want the agents' 2", countBrowsers(es))
	}

	// --session names A's: its page, not B's; the token in a header.
	u := newUpdates()
	pa := startProviderWith(t, s.URL, u.handler(), "--header", "Authorization: Bearer "+s.Token, "--session", a.id, "--log-level", "debug")
	cur := pa.current(t)
	if docShowing(cur, env.pageA+"/plain.html") == nil || docShowing(cur, env.pageA+"/other.html") != nil {
		t.Fatalf("--session %s read %s, want agent A's plain.html alone", a.id, withoutIDs(cur.Root))
	}
	if n := clients(t, s, a.id); n != 2 {
		t.Errorf("the service counts %d clients on A's session, want the agent and the provider", n)
	}
	button := elemtest.First(cur.Root, func(e *mapping.Element) bool { return e.Title == "Plain button" })
	if button == nil {
		t.Fatalf("no Plain button in %s", withoutIDs(cur.Root))
	}
	if loc := pa.locate(t, button.ID); loc.State != mapping.OnScreen || loc.Frame == nil || loc.Frame.Width <= 0 {
		t.Errorf("locate the Plain button: %s, want it on screen", loc.raw)
	}

	// Subscribed, the provider is told of the agent's change.
	if err := pa.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: currentURI}); err != nil {
		t.Fatal(err)
	}
	pa.current(t)
	quiet(t, u)
	t0 := time.Now()
	if _, err := chromedp.Run(a.ctx, chromedp.Evaluate[string](`document.querySelector("h1").textContent = "Changed by the agent"`)); err != nil {
		t.Fatal(err)
	}
	if u.next(t0, waitLimit).IsZero() {
		t.Fatal("no notification after the agent changed its page")
	}
	if h := elemtest.First(pa.current(t).Root, func(e *mapping.Element) bool { return e.Title == "Changed by the agent" }); h == nil {
		t.Error("the read after the notification does not show the agent's change")
	}

	// B's session through its own address, held after B leaves.
	pb := startProvider(t, strings.Replace(s.URL, "http:", "ws:", 1)+"/devtools/browser/"+b.id+"?token="+s.Token, "--hold-session")
	if docShowing(pb.current(t), env.pageA+"/other.html") == nil {
		t.Fatal("the session's own address did not read agent B's other.html")
	}

	// A leaves: the provider lets go, the service ends the session, and
	// the subscribed host is told, then reads why.
	t0 = time.Now()
	a.leave()
	waitFor(t, "the service to end A's session once its agent left", func() bool { return clients(t, s, a.id) == -1 })
	if u.next(t0, waitLimit).IsZero() {
		t.Error("no notification when A's session ended")
	}
	wantUnreachable(t, "A's session ended", pa, "the service ended the session", a.id)

	// B leaves: held, its session lives on with the provider as its
	// one client, and reads still answer.
	b.leave()
	waitFor(t, "the provider to hold B's session alone", func() bool {
		return strings.Contains(pb.stderr.String(), "msg=\"the agent's client left the browser service's session: holding it")
	})
	if docShowing(pb.current(t), env.pageA+"/other.html") == nil {
		t.Error("a held session does not read its page after its agent left")
	}
	if n := clients(t, s, b.id); n != 1 {
		t.Errorf("B's held session: %d clients, want the provider's", n)
	}
	// The service ends the held session (its limit, or /kill): the
	// session's own address dials nothing, and the list says why.
	if err := s.Kill(context.Background(), b.id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the service to end B's session", func() bool { return clients(t, s, b.id) == -1 })
	var we *jsonrpc.Error
	waitFor(t, "a read of B's session to say the service ended it", func() bool {
		// A read under way as the connection dropped answers that the
		// browser went away; the next says why.
		_, err := pb.readRaw(t, currentURI)
		return errors.As(err, &we) && strings.Contains(we.Message, "the service ended the session")
	})
	wantHostError(t, "B's session ended", we, currentURI, jsonrpc.CodeInternalError, "", "browser-unreachable", "")
}

// countBrowsers is how many sessions the list holds.
func countBrowsers(es []browserless.Entry) int {
	n := 0
	for _, e := range es {
		if e.Type == "browser" {
			n++
		}
	}
	return n
}
