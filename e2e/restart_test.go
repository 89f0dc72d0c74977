package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wantBrowserError reads current and wants the internal error of 7.2: what
// failed, and how to start Chrome with a debugging port.
func (p *provider) wantBrowserError(t testing.TB, when string) {
	t.Helper()
	_, err := p.readRaw(t, currentURI)
	if err == nil {
		t.Fatalf("read %s %s: succeeded, want an error", currentURI, when)
	}
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("read %s %s: %v (%T), want a JSON-RPC error", currentURI, when, err, err)
	}
	t.Logf("read %s %s: %d %s", currentURI, when, we.Code, we.Message)
	if we.Code != jsonrpc.CodeInternalError {
		t.Errorf("read %s %s: code %d, want internal error %d", currentURI, when, we.Code, jsonrpc.CodeInternalError)
	}
	if !strings.Contains(we.Message, "--remote-debugging-port") {
		t.Errorf("read %s %s: message %q does not say how to start Chrome with a debugging port (--remote-debugging-port)", currentURI, when, we.Message)
	}
	if !p.running() {
		t.Fatalf("the provider exited %s; stderr:\n%s", when, p.stderr.String())
	}
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

	p.wantBrowserError(t, "with no browser on the port")
	p.wantBrowserError(t, "again with no browser on the port")

	br, err := startChrome(port)
	if err != nil {
		t.Fatalf("start Chromium on port %d: %v", port, err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			br.stop()
		}
	})
	user := userOf(t, br)
	tb := openTab(t, user, env.pageA+"/plain.html")

	cur := p.current(t)
	doc := findDoc(t, cur.Root, tb.url)
	btn := find(t, doc, "Button", "Plain button")
	if l := p.locate(t, btn.ID); l.State != "onscreen" {
		t.Errorf("locate with the browser up: %s, want onscreen", l.raw)
	}

	// The browser dies mid-session.
	br.stop()
	stopped = true
	p.wantBrowserError(t, "after the browser was killed")
	if l, err := p.readRaw(t, locatePrefix+btn.ID); err == nil {
		// Answering gone here is acceptable too: the element is gone.
		t.Logf("locate with the browser down: %s", l)
	}

	// It comes back on the same port.
	br2, err := startChrome(port)
	if err != nil {
		t.Fatalf("restart Chromium on port %d: %v", port, err)
	}
	t.Cleanup(br2.stop)
	user2 := userOf(t, br2)
	tb2 := openTab(t, user2, env.pageA+"/plain.html")

	cur2 := p.current(t)
	if cur2.Instance != cur.Instance {
		t.Errorf("instance changed across the browser restart: %q then %q; it changes only when the provider restarts", cur.Instance, cur2.Instance)
	}
	btn2 := find(t, findDoc(t, cur2.Root, tb2.url), "Button", "Plain button")
	if btn2.ID == btn.ID {
		t.Errorf("the button of the new browser got the id %q of the old browser's button; ids are never reused", btn.ID)
	}
	old := map[string]string{"button": btn.ID, "document": doc.ID, "window": windowWithTab(t, cur.Root, tb.url).ID}
	for name, id := range old {
		if l := p.locate(t, id); l.State != "gone" {
			t.Errorf("locate of the old browser's %s: %s, want gone", name, l.raw)
		}
	}
	if l := p.locate(t, btn2.ID); l.State != "onscreen" {
		t.Errorf("locate of the new browser's button: %s, want onscreen", l.raw)
	}
}
