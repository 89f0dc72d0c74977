package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wantBrowserError reads current and wants the internal error of 7.2 of
// the reason: browser-unreachable before any read worked,
// browser-restarting after.
func (p *provider) wantBrowserError(t testing.TB, reason, when string) {
	t.Helper()
	p.wantBrowserErrorOn(t, currentURI, reason, when)
}

// wantBrowserErrorOn reads uri and wants the internal error of 7.2 of
// the reason, whose message names no command-line flag (that advice is
// the command line's), and returns its message.
func (p *provider) wantBrowserErrorOn(t testing.TB, uri, reason, when string) string {
	t.Helper()
	raw, err := p.readRaw(t, uri)
	if err == nil {
		t.Fatalf("read %s %s: answered %s, want an error", uri, when, raw)
	}
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("read %s %s: %v (%T), want a JSON-RPC error", uri, when, err, err)
	}
	t.Logf("read %s %s: %d %s %s", uri, when, we.Code, we.Message, we.Data)
	if we.Code != jsonrpc.CodeInternalError {
		t.Errorf("read %s %s: code %d, want internal error %d", uri, when, we.Code, jsonrpc.CodeInternalError)
	}
	var data struct{ URI, Reason string }
	if err := json.Unmarshal(we.Data, &data); err != nil || data.URI != uri || data.Reason != reason {
		t.Errorf("read %s %s: data %s, want the uri and the reason %s", uri, when, we.Data, reason)
	}
	if strings.Contains(we.Message, "--") {
		t.Errorf("read %s %s: message %q gives a host command-line flags", uri, when, we.Message)
	}
	if !p.running() {
		t.Fatalf("the provider exited %s; stderr:\n%s", when, p.stderr.String())
	}
	return we.Message
}

// userOf attaches the test, as the user, to a browser of its own.
func userOf(t testing.TB, br *chrome) context.Context {
	t.Helper()
	alloc, cancelAlloc := remote.NewAllocator(context.Background(), br.httpURL())
	root, _ := chromedp.NewContext(alloc)
	if err := chromedp.Do(root); err != nil {
		t.Fatalf("attach to %s: %v", br.httpURL(), err)
	}
	t.Cleanup(func() {
		chromedp.Cancel(root)
		cancelAlloc()
	})
	return root
}

// Point 10: a browser that is not running gives a clear error on read;
// once it runs, the next read works; when it dies mid-session, reads fail
// clearly again; when it is back, reads work and ids issued before answer
// gone.
func TestBrowserNotRunningThenBack(t *testing.T) {
	needEnv(t)
	port := freePort(t)
	p := startProvider(t, fmt.Sprintf("http://127.0.0.1:%d", port))

	p.wantBrowserError(t, "browser-unreachable", "with no browser on the port")
	p.wantBrowserError(t, "browser-unreachable", "again with no browser on the port")

	br := chromeFor(t, port)
	user := userOf(t, br)
	tb := openTab(t, user, env.pageA+"/plain.html")

	cur := p.current(t)
	doc := elemtest.FindDoc(t, cur.Root, tb.url)
	btn := elemtest.Find(t, doc, "Button", "Plain button")
	if l := p.locate(t, btn.ID); l.State != "onscreen" {
		t.Errorf("locate with the browser up: %s, want onscreen", l.raw)
	}

	// The browser dies mid-session.
	br.stop()
	p.wantBrowserError(t, "browser-restarting", "after the browser was killed")
	// Locate of an id this run issued, with no browser to ask: not gone
	// (the browser may come back with the page) nor not-found (the id was
	// issued), but the same internal error as current (7.2).
	p.wantBrowserErrorOn(t, locatePrefix+btn.ID, "browser-restarting", "(locate of the button) with the browser down")
	p.wantBrowserErrorOn(t, descriptorURI, "browser-restarting", "(the descriptor) with the browser down")

	// It comes back on the same port.
	br2 := chromeFor(t, port)
	user2 := userOf(t, br2)
	tb2 := openTab(t, user2, env.pageA+"/plain.html")

	cur2 := p.current(t)
	if cur2.Instance != cur.Instance {
		t.Errorf("instance changed across the browser restart: %q then %q; it changes only when the provider restarts", cur.Instance, cur2.Instance)
	}
	btn2 := elemtest.Find(t, elemtest.FindDoc(t, cur2.Root, tb2.url), "Button", "Plain button")
	if btn2.ID == btn.ID {
		t.Errorf("the button of the new browser got the id %q of the old browser's button; ids are never reused", btn.ID)
	}
	old := map[string]string{"button": btn.ID, "document": doc.ID, "window": elemtest.WindowWithTab(t, cur.Root, tb.url).ID}
	for name, id := range old {
		if l := p.locate(t, id); l.State != "gone" {
			t.Errorf("locate of the old browser's %s: %s, want gone", name, l.raw)
		}
	}
	if l := p.locate(t, btn2.ID); l.State != "onscreen" {
		t.Errorf("locate of the new browser's button: %s, want onscreen", l.raw)
	}
}

// The browser dies in the middle of a read: the read is the internal
// error of 7.2 saying the browser went away (browser-restarting);
// the provider keeps running, and once a browser is back on the port the
// next read works. A relay between the provider and the browser holds
// back the browser's answer to the read's first call (its list of
// targets), so that the browser is killed while the read waits on it.
func TestBrowserDiesDuringARead(t *testing.T) {
	needEnv(t)
	port := freePort(t)
	br := chromeFor(t, port)
	rl := startRelay(t, "127.0.0.1:0", fmt.Sprintf("127.0.0.1:%d", port))
	p := startProvider(t, "http://"+rl.addr())
	tb := openTab(t, userOf(t, br), env.pageA+"/plain.html")
	elemtest.Find(t, elemtest.FindDoc(t, p.current(t).Root, tb.url), "Button", "Plain button")

	held := rl.holdAt(`"targetInfos"`)
	type result struct {
		raw []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := p.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: currentURI})
		var r result
		if err == nil && len(res.Contents) == 1 {
			r.raw = []byte(res.Contents[0].Text)
		}
		r.err = err
		done <- r
	}()
	select {
	case <-held:
	case r := <-done:
		t.Fatalf("the read ended before the browser answered its first call: %s %v", r.raw, r.err)
	case <-time.After(waitLimit):
		t.Fatalf("the read sent no Target.getTargets within %v", waitLimit)
	}
	br.stop() // the relay passes the end of the connection on
	var r result
	select {
	case r = <-done:
	case <-time.After(waitLimit):
		t.Fatalf("the read did not end within %v of the browser's death", waitLimit)
	}
	var we *jsonrpc.Error
	if !errors.As(r.err, &we) {
		t.Fatalf("the read while the browser died: %s %v, want a JSON-RPC error", r.raw, r.err)
	}
	t.Logf("the read while the browser died: %d %s", we.Code, we.Message)
	if we.Code != jsonrpc.CodeInternalError || !strings.Contains(we.Message, "went away") || !strings.Contains(string(we.Data), `"reason":"browser-restarting"`) {
		t.Errorf("the read while the browser died: %d %q %s, want internal error %d saying the browser went away, reason browser-restarting", we.Code, we.Message, we.Data, jsonrpc.CodeInternalError)
	}
	if !p.running() {
		t.Fatalf("the provider exited when the browser died mid-read; stderr:\n%s", p.stderr.String())
	}
	rl.release()
	p.wantBrowserError(t, "browser-restarting", "with the browser dead")

	br2 := chromeFor(t, port)
	tb2 := openTab(t, userOf(t, br2), env.pageA+"/other.html")
	elemtest.Find(t, elemtest.FindDoc(t, p.current(t).Root, tb2.url), "Heading", "Other heading")
}

// The browser dies while a host is subscribed to current: the provider
// does not crash (its watch loses its connection under it) and tells the
// host, which has not read since, that current changed (a read now is
// the clear error of 7.2); while no browser answers it reads for itself,
// so that when a browser is back on the port the host is told again (7.2:
// after browser-restarting a host may wait for a notification) and its
// next read works. The test changes nothing meanwhile: the first
// notification after the kill, and the first after the new browser is
// started, are those. The provider logs at debug level why it told.
func TestBrowserDiesWhileSubscribed(t *testing.T) {
	needEnv(t)
	port := freePort(t)
	br := chromeFor(t, port)
	user := userOf(t, br)
	tb := openTab(t, user, env.pageA+"/notify.html")
	u := newUpdates()
	p := startProviderWith(t, br.httpURL(), u.handler(), "--log-level", "debug")
	if err := p.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: currentURI}); err != nil {
		t.Fatalf("subscribe to %s: %v", currentURI, err)
	}
	p.current(t)
	quiet(t, u)
	// The watch is live: a change is told.
	t0 := time.Now()
	eval[bool](t, tb.ctx, `document.getElementById('status').textContent = 'Changed', true`)
	if u.next(t0, waitLimit).IsZero() {
		t.Fatalf("no notification for a change within %v: the watch is not running", waitLimit)
	}
	quiet(t, u) // what is told from now on is the browser's death

	died := time.Now()
	br.stop()
	if !p.running() {
		t.Fatalf("the provider exited when the browser died; stderr:\n%s", p.stderr.String())
	}
	if u.next(died, waitLimit).IsZero() {
		t.Fatalf("no notification within %v of the browser's death: the subscribed host is not told that current now answers an error", waitLimit)
	}
	p.wantBrowserError(t, "browser-restarting", "after the browser died under a subscription")
	p.wantBrowserError(t, "browser-restarting", "again after the browser died under a subscription")

	// A browser back on the port: the host is told before it reads again.
	back := time.Now()
	chromeFor(t, port)
	told := u.next(back, waitLimit)
	if told.IsZero() {
		t.Fatalf("no notification within %v of a browser back on the port: the subscribed host is not told that current answers again", waitLimit)
	}
	t.Logf("told %v after the new browser was started; notifications since the death: %s", told.Sub(back).Round(time.Millisecond), clock(u.since(died)))
	p.current(t)
	if s := p.stderr.String(); strings.Contains(s, "panic") {
		t.Errorf("the provider panicked:\n%s", s)
	}
}
