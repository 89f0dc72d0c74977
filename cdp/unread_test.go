package cdp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/internal/conformance"
	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// faultProxy stands between the provider and a browser: the /json
// documents pass as they are, and on the websocket each call of the
// provider's that fail picks is answered with an error by the proxy
// instead of reaching the browser, as a browser's failing call is
// answered. So a test makes a page's isolated world, or the read of its
// document, fail in a real browser, and heal again.
type faultProxy struct {
	srv *httptest.Server

	mu sync.Mutex
	// fail says whether to fail a call: its session ("" for the
	// browser's) and method; nil fails none. Guarded by mu.
	fail func(session, method string) bool
	// failed counts the calls failed, by method; guarded by mu.
	failed map[string]int
}

// newFaultProxy serves a proxy of the browser whose /json/version is at
// debugURL (http://127.0.0.1:PORT), and returns it; its srv.URL is the
// address to connect to.
func newFaultProxy(t *testing.T, debugURL string) *faultProxy {
	t.Helper()
	u, err := url.Parse(debugURL)
	if err != nil {
		t.Fatal(err)
	}
	fp := &faultProxy{failed: map[string]int{}}
	jsonDocs := httputil.NewSingleHostReverseProxy(u)
	fp.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/devtools/") {
			jsonDocs.ServeHTTP(w, r)
			return
		}
		fp.relay(t, w, r, "ws://"+u.Host+r.URL.Path)
	}))
	t.Cleanup(fp.srv.Close)
	return fp
}

// failWith sets which calls fail from now on (nil: none).
func (fp *faultProxy) failWith(fail func(session, method string) bool) {
	fp.mu.Lock()
	fp.fail = fail
	fp.mu.Unlock()
}

// failedCalls returns how many calls of each method were failed.
func (fp *faultProxy) failedCalls() map[string]int {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	m := map[string]int{}
	for k, v := range fp.failed {
		m[k] = v
	}
	return m
}

// relay joins the provider's websocket to the browser's at ws, failing
// the calls fail picks.
func (fp *faultProxy) relay(t *testing.T, w http.ResponseWriter, r *http.Request, ws string) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	up, _, err := websocket.Dial(ctx, ws, nil)
	if err != nil {
		t.Errorf("the proxy could not reach the browser: %v", err)
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer up.CloseNow()
	down, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer down.CloseNow()
	up.SetReadLimit(-1)
	down.SetReadLimit(-1)
	var writeDown sync.Mutex // the browser's messages and the proxy's answers
	go func() {
		defer cancel()
		for {
			typ, msg, err := up.Read(ctx)
			if err != nil {
				return
			}
			writeDown.Lock()
			err = down.Write(ctx, typ, msg)
			writeDown.Unlock()
			if err != nil {
				return
			}
		}
	}()
	for {
		typ, msg, err := down.Read(ctx)
		if err != nil {
			return
		}
		var call struct {
			ID        int64  `json:"id"`
			Method    string `json:"method"`
			SessionID string `json:"sessionId,omitempty"`
		}
		if json.Unmarshal(msg, &call) == nil && fp.fails(call.SessionID, call.Method) {
			answer, _ := json.Marshal(map[string]any{
				"id": call.ID, "sessionId": call.SessionID,
				"error": map[string]any{"code": -32000, "message": "failed by the test's proxy"},
			})
			writeDown.Lock()
			err = down.Write(ctx, websocket.MessageText, answer)
			writeDown.Unlock()
		} else {
			err = up.Write(ctx, typ, msg)
		}
		if err != nil {
			return
		}
	}
}

// fails says whether the proxy fails the call, and counts it.
func (fp *faultProxy) fails(session, method string) bool {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	if fp.fail == nil || !fp.fail(session, method) {
		return false
	}
	fp.failed[method]++
	return true
}

// A tab whose page's isolated world fails (Page.createIsolatedWorld and
// every script in it fail) and a tab whose document cannot be fetched
// (Page.getFrameTree and Accessibility.getFullAXTree fail) stay in the
// answer, each in its window, as the person sees them: the first's Tab
// and Document marked with why (PageNoScript, TabNoScript), the second's
// Document (PageReadFailed), both Documents with the content last read
// and the focus where it was; the rest of the answer is the answer of
// before. The log says so at Info once per tab, however many reads fail.
// Once the calls answer again, the next read is the answer of before,
// unmarked, and the provider keeps no note of either tab.
func TestUnreadTabsStayInTheAnswer(t *testing.T) {
	path := testChrome(t)
	site := serve(t, map[string]string{
		"/alpha": sectionsPage("Alpha", 2),
		"/beta":  sectionsPage("Beta", 2),
		"/gamma": sectionsPage("Gamma", 2),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	br, err := browsers.Launch(ctx, browsers.LaunchOptions{Path: path, URLs: []string{site + "/gamma"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close() })
	u := newUser(t, ctx, br.DebugURL())
	t.Cleanup(u.close)
	u.waitLoaded(t, 0)
	// Alpha and Beta each in a window of its own, Beta opened last: the
	// focused window (headless windows all claim the focus; the one
	// activated last is taken), so that the focus stays where it was
	// while Alpha cannot say whether it has it.
	for _, page := range []string{"/alpha", "/beta"} {
		r, err := cdproto.Call(ctx, u.c.Browser(), target.CreateTarget, target.CreateTargetParams{URL: site + page, NewWindow: ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		u.tabs = append(u.tabs, r.TargetID)
		u.waitLoaded(t, len(u.tabs)-1)
	}
	alpha, beta := u.tabs[1], u.tabs[2]

	fp := newFaultProxy(t, br.DebugURL())
	logged := new(syncbuf.Buffer)
	p, err := NewProvider(Options{Connect: fp.srv.URL, RestAfter: -1, Logger: slog.New(slog.NewTextHandler(logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })

	before, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	docOf := func(root *mapping.Element, page string) *mapping.Element {
		return first(root, func(e *mapping.Element) bool { return e.Role == "Document" && e.URL == site+page })
	}
	tabOf := func(root *mapping.Element, page string) *mapping.Element {
		return first(root, func(e *mapping.Element) bool { return e.Role == "Tab" && e.URL == site+page })
	}
	for _, page := range []string{"/alpha", "/beta", "/gamma"} {
		if d := docOf(before.Root, page); d == nil || len(d.Children) == 0 || d.Description != "" {
			t.Fatalf("the first read, nothing failing, does not show %s read:\n%s", page, strings.Join(outlineOf(before.Root), "\n"))
		}
	}
	if w := first(before.Root, func(e *mapping.Element) bool { return e.Role == "Window" && slices.Contains(e.States, "focused") }); w == nil || w.Title != "Beta" || len(first(before.Root, func(e *mapping.Element) bool { return e.Role == "Application" }).Children) != 3 {
		t.Fatalf("not three windows, Beta's, activated last, the focused one:\n%s", strings.Join(outlineOf(before.Root), "\n"))
	}

	inAlpha, inBeta := sessionOf(t, p, alpha).ID(), sessionOf(t, p, beta).ID()
	fp.failWith(func(session, method string) bool {
		switch session {
		case string(inAlpha):
			return method == "Page.createIsolatedWorld" || method == "Runtime.evaluate"
		case string(inBeta):
			return method == "Page.getFrameTree" || method == "Accessibility.getFullAXTree"
		}
		return false
	})
	// What the answer must be: the one before, the two tabs marked.
	var want mapping.Current
	b, _ := json.Marshal(before)
	json.Unmarshal(b, &want)
	tabOf(want.Root, "/alpha").Description = mapping.TabNoScript
	docOf(want.Root, "/alpha").Description = mapping.PageNoScript
	docOf(want.Root, "/beta").Description = mapping.PageReadFailed
	for i := range 2 {
		cur, err := p.Current(ctx)
		if err != nil {
			t.Fatalf("read %d with the faults: %v", i, err)
		}
		if d := cmp.Diff(outlineOf(want.Root), outlineOf(cur.Root)); d != "" {
			t.Errorf("read %d with the faults (-want +got):\n%s", i, d)
		}
		raw, err := json.Marshal(cur)
		if err != nil {
			t.Fatal(err)
		}
		conformance.CheckCurrent(t, raw)
	}
	failed := fp.failedCalls()
	if failed["Runtime.evaluate"] == 0 || failed["Page.getFrameTree"] == 0 {
		t.Fatalf("the proxy failed %v: not the calls the test means to fail", failed)
	}
	const said = "a tab could not be read"
	if n := strings.Count(logged.String(), said); n != 2 {
		t.Errorf("the log says %d times that a tab could not be read over two reads of two such tabs, want twice (once a tab):\n%s", n, logged.String())
	}
	for _, mark := range []string{mapping.TabNoScript, mapping.PageReadFailed} {
		if !strings.Contains(logged.String(), mark) {
			t.Errorf("the log does not say %q:\n%s", mark, logged.String())
		}
	}

	fp.failWith(nil)
	after, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(outlineOf(before.Root), outlineOf(after.Root)); d != "" {
		t.Errorf("the read once the calls answer again is not the read before the faults (-before +after):\n%s", d)
	}
	p.mu.Lock()
	notes := 0
	for _, t := range p.state.tabs {
		if t.unread != "" {
			notes++
		}
	}
	p.mu.Unlock()
	if notes != 0 {
		t.Errorf("the provider keeps %d notes of tabs it could not read, after a read that read them all", notes)
	}
}
