package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// A person's browser has pages that crash, freeze and wait on dialogs.
// One long-running provider reads through all of it, and afterwards still
// reads a normal page exactly.

// readNow reads current once and fails, with the answer's outline, when
// cond does not hold. The test calls it once it has seen the browser
// reach the state cond checks (through its own session: an event it
// heard, a call that returned, the page's own script): the provider's
// first read after that must show it.
func readNow(t testing.TB, p *provider, what string, cond func(*answer) bool) *answer {
	t.Helper()
	a := p.current(t)
	if !cond(a) {
		t.Fatalf("the first read after %s does not show it:\n%s", what, elemtest.Outline(a.Root))
	}
	return a
}

// heard runs act and waits until the test's own session on a page (ctx)
// hears ev: Chrome has then reached the state the event tells of (a
// dialog opened or closed, a crash), and has told the provider too.
func heard[E any](t testing.TB, ctx context.Context, ev cdproto.Event[E], what string, act func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	events := chromedp.Events(ctx, ev)
	act()
	for _, err := range events {
		if err != nil {
			t.Fatalf("waiting for %s (%s): %v", what, ev.Method, err)
		}
		return
	}
	t.Fatalf("waiting for %s (%s): the session ended", what, ev.Method)
}

// shown waits until the tab's page is visible: it is in front of its window.
func (tb *tab) shown(t testing.TB) {
	t.Helper()
	waitFor(t, tb.url+" in front of its window", func() bool {
		return eval[string](t, tb.ctx, `document.visibilityState`) == "visible"
	})
}

// answering waits until the provider counts every page as answering, as
// its log tells from offset from on: it said none is not responding, or
// it said a page answers again after it last said one is not. A page it
// marked not responding is known to answer again only by the provider's
// own probe in the background, which nothing the test sees can tell of.
func (p *provider) answering(t testing.TB, from int) {
	t.Helper()
	waitFor(t, "the provider to count the page as answering again (its log)", func() bool {
		log := p.stderr.String()[from:]
		stuck := strings.LastIndex(log, "a page is not responding")
		return stuck < 0 || strings.LastIndex(log, "a page answers again") > stuck
	})
}

// docOfTab returns the Document of the window whose active tab has the
// url, and that window; nil when that tab is not shown.
func docOfTab(root *mapping.Element, url string) (*mapping.Element, *mapping.Element) {
	for _, w := range elemtest.Windows(root) {
		for _, tb := range elemtest.Tabs(w) {
			if tb.URL == url && elemtest.Has(tb, "selected") {
				return elemtest.DocOf(w), w
			}
		}
	}
	return nil, nil
}

// dialogOf returns a window's Dialog, if any: a direct child after the
// Document.
func dialogOf(w *mapping.Element) *mapping.Element {
	for _, c := range w.Children {
		if c.Role == "Dialog" {
			return c
		}
	}
	return nil
}

// noPointing fails when an element under e, e excepted, is focused or
// hovered: a page that was not read says nothing of that.
func noPointing(t testing.TB, e *mapping.Element, what string) {
	t.Helper()
	for _, c := range e.Children {
		elemtest.Walk(c, func(x *mapping.Element, _ []*mapping.Element) {
			if elemtest.Has(x, "focused") || elemtest.Has(x, "hovered") {
				t.Errorf("%s: %s %q is %v, though the page was not read", what, x.Role, x.Title, x.States)
			}
		})
	}
}

// withoutIDs is an outline without ids, to compare two runs' answers.
func withoutIDs(e *mapping.Element) string {
	var b strings.Builder
	for _, l := range strings.Split(elemtest.Outline(e), "\n") {
		if i := strings.LastIndex(l, " #"); i >= 0 {
			l = l[:i]
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

func TestNeverHang(t *testing.T) {
	needEnv(t)
	br := chromeFor(t, 0)
	user := userOf(t, br)
	up := newUpdates()
	p := startProviderWith(t, br.httpURL(), up.handler())
	if err := p.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: currentURI}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	url := env.pageA + "/hang.html"
	tb := openTab(t, user, url)
	tb.shown(t)
	first := readNow(t, p, "the page loaded in front", func(a *answer) bool {
		d, _ := docOfTab(a.Root, url)
		return d != nil && len(elemtest.FindAll(d, "Button", "Save")) == 1
	})
	save := elemtest.Find(t, first.Root, "Button", "Save")

	run := func(expr string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr)); err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
	}
	answerDialog := func(accept bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
		defer cancel()
		if _, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept}); err != nil {
			t.Fatalf("answer the dialog: %v", err)
		}
	}

	for _, tc := range []struct {
		kind, open string
		message    string
		buttons    []string
		field      string // a prompt's default value
	}{
		{"alert", `setTimeout(() => alert("Saved your changes"), 0)`, "Saved your changes", []string{"OK"}, ""},
		{"confirm", `setTimeout(() => confirm("Delete the draft?"), 0)`, "Delete the draft?", []string{"OK", "Cancel"}, ""},
		{"prompt", `setTimeout(() => prompt("Name the file", "report.txt"), 0)`, "Name the file", []string{"OK", "Cancel"}, "report.txt"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			t0 := time.Now()
			heard(t, tb.ctx, page.JavascriptDialogOpening, "the "+tc.kind+" dialog", func() { run(tc.open) })
			a := readNow(t, p, "the "+tc.kind+" dialog opened", func(a *answer) bool {
				_, w := docOfTab(a.Root, url)
				return w != nil && dialogOf(w) != nil
			})
			doc, w := docOfTab(a.Root, url)
			dlg := dialogOf(w)
			if !elemtest.Has(dlg, "modal") {
				t.Errorf("the dialog is %v, want modal", dlg.States)
			}
			if ch := w.Children; ch[len(ch)-1] != dlg || ch[len(ch)-2] != doc {
				t.Errorf("the dialog is not the window's child right after the tab's Document:\n%s", elemtest.Outline(w))
			}
			if got := elemtest.Text(dlg); !strings.Contains(got, tc.message) {
				t.Errorf("the dialog's text %q lacks the message %q", got, tc.message)
			}
			var buttons []string
			for _, c := range dlg.Children {
				if c.Role == "Button" {
					buttons = append(buttons, c.Title)
				}
			}
			if fmt.Sprint(buttons) != fmt.Sprint(tc.buttons) {
				t.Errorf("the dialog's buttons are %v, want %v", buttons, tc.buttons)
			}
			focusIn := elemtest.Find(t, dlg, "Button", tc.buttons[0])
			if tc.field != "" {
				fields := elemtest.FindAll(dlg, "TextField", "")
				if len(fields) != 1 || fields[0].Value != tc.field {
					t.Fatalf("the prompt's fields: %s, want one with value %q", dump(fields), tc.field)
				}
				focusIn = fields[0]
			}
			if elemtest.Has(w, "focused") && !elemtest.Has(focusIn, "focused") {
				t.Errorf("focus is not in the dialog's %s %q:\n%s", focusIn.Role, focusIn.Title, elemtest.Outline(w))
			}
			if elemtest.Has(doc, "focused") {
				t.Errorf("the page behind the dialog has the focus")
			}
			if doc.Description != mapping.BehindDialog {
				t.Errorf("the Document behind the dialog says %q, want %q", doc.Description, mapping.BehindDialog)
			}
			noPointing(t, doc, "behind the dialog")
			// The page cannot be asked where it is: as for an element that
			// cannot be placed.
			p.wantNotFound(t, locatePrefix+save.ID, "the page behind a dialog cannot be asked")
			p.wantNotFound(t, locatePrefix+dlg.ID, "a dialog cannot be placed")
			if up.next(t0, 30*time.Second).IsZero() {
				t.Error("no notification when the dialog opened")
			}
			t1 := time.Now()
			heard(t, tb.ctx, page.JavascriptDialogClosed, "the dialog closed", func() { answerDialog(true) })
			readNow(t, p, "the dialog closed", func(a *answer) bool {
				d, w := docOfTab(a.Root, url)
				return w != nil && dialogOf(w) == nil && d.Description == "" && len(d.Children) > 0
			})
			if up.next(t1, 30*time.Second).IsZero() {
				t.Error("no notification when the dialog closed")
			}
			if got := p.locate(t, dlg.ID); got.State != "gone" {
				t.Errorf("locate the closed dialog: %s, want gone", got.raw)
			}
		})
	}

	t.Run("beforeunload", func(t *testing.T) {
		run(`guard()`)
		// Chrome asks before leaving only a page the person has used.
		tb.click(t, center(rectOf(t, tb.ctx, `document.querySelector("h1")`)))
		heard(t, tb.ctx, page.JavascriptDialogOpening, `the "Leave site?" dialog`, func() { run(`setTimeout(() => location.reload(), 0)`) })
		a := readNow(t, p, `the "Leave site?" dialog opened`, func(a *answer) bool {
			_, w := docOfTab(a.Root, url)
			return w != nil && dialogOf(w) != nil
		})
		_, w := docOfTab(a.Root, url)
		dlg := dialogOf(w)
		if dlg.Title != "Leave site?" || len(elemtest.FindAll(dlg, "Button", "Leave")) != 1 || len(elemtest.FindAll(dlg, "Button", "Cancel")) != 1 {
			t.Errorf("the beforeunload dialog:\n%s", elemtest.Outline(dlg))
		}
		heard(t, tb.ctx, page.JavascriptDialogClosed, "the dialog closed", func() { answerDialog(false) }) // stay
		readNow(t, p, "the dialog closed", func(a *answer) bool {
			_, w := docOfTab(a.Root, url)
			return w != nil && dialogOf(w) == nil
		})
		run(`window.onbeforeunload = null`)
	})

	t.Run("busy", func(t *testing.T) {
		t0 := time.Now()
		from := p.stderr.Len()
		run(`busy(15000)`)
		// Reads answer while the page is busy: several in a row say it does
		// not respond (one that waited for the page would come back after
		// the loop, complete).
		for i := range 3 {
			a := p.current(t)
			doc, _ := docOfTab(a.Root, url)
			if doc == nil || doc.Description != mapping.NotResponding {
				t.Fatalf("read %d during the busy loop: the page's Document is %s, want it to say %q", i, dump(doc), mapping.NotResponding)
			}
			if len(elemtest.FindAll(doc, "Button", "Save")) != 1 {
				t.Errorf("read %d during the busy loop: the page as last shown is not there:\n%s", i, elemtest.Outline(doc))
			}
			noPointing(t, doc, "a busy page")
		}
		run(`true`) // answered once the loop is over
		p.answering(t, from)
		a := readNow(t, p, "the page answering again", func(a *answer) bool {
			d, _ := docOfTab(a.Root, url)
			return d != nil && d.Description == ""
		})
		if up.next(t0.Add(time.Second), 30*time.Second).IsZero() {
			t.Error("no notification when the page answered again")
		}
		wantSameAsFresh(t, br, a, url)
	})

	t.Run("paused", func(t *testing.T) {
		from := p.stderr.Len()
		// Another debugger (the test's own session) pauses the page.
		if _, err := chromedp.Call(tb.ctx, debugger.Enable, debugger.EnableParams{}); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Call(tb.ctx, debugger.Pause, cdproto.Empty{}); err != nil {
			t.Fatal(err)
		}
		// Chrome serves a paused page's calls from the debugger's loop, or
		// does not; either way a read answers while the page stays paused
		// (it is resumed only after them): the page as it is, or as last
		// shown saying it is not responding. A read that waited for the
		// page would fail at its time limit instead.
		for i := range 3 {
			a := p.current(t)
			doc, _ := docOfTab(a.Root, url)
			switch {
			case doc == nil:
				t.Fatalf("read %d while paused: no Document for the page:\n%s", i, elemtest.Outline(a.Root))
			case doc.Description != "" && doc.Description != mapping.NotResponding:
				t.Errorf("read %d while paused: the Document says %q", i, doc.Description)
			case len(elemtest.FindAll(doc, "Button", "Save")) != 1:
				t.Errorf("read %d while paused: the page's content is not there:\n%s", i, elemtest.Outline(doc))
			}
			t.Logf("read %d while paused: %q", i, doc.Description)
		}
		if _, err := chromedp.Call(tb.ctx, debugger.Resume, debugger.ResumeParams{}); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Call(tb.ctx, debugger.Disable, cdproto.Empty{}); err != nil {
			t.Fatal(err)
		}
		// A read that found the page paused may have marked it not
		// responding: the provider learns it answers again in the
		// background.
		p.answering(t, from)
		readNow(t, p, "the page resumed", func(a *answer) bool {
			d, _ := docOfTab(a.Root, url)
			return d != nil && d.Description == "" && len(d.Children) > 0
		})
	})

	t.Run("crash in a background tab", func(t *testing.T) {
		bgURL := env.pageB + "/plain.html"
		bg := openTab(t, user, bgURL, chromedp.WithNewWindow(false))
		tb.activate(t)
		waitFor(t, "the new tab to go to the background", func() bool {
			return eval[string](t, bg.ctx, `document.visibilityState`) == "hidden"
		})
		// The test's own session on the tab hears the crash; only once it
		// has does a read tell anything about the provider.
		ctx, cancel := context.WithTimeout(bg.ctx, time.Minute)
		defer cancel()
		crashes := chromedp.Events(ctx, inspector.TargetCrashed)
		go chromedp.Call(bg.ctx, page.Crash, cdproto.Empty{})
		for _, err := range crashes {
			if err != nil {
				t.Fatalf("waiting for the background tab to crash: %v", err)
			}
			break
		}
		// The first read after the crash shows the active page whole and
		// the crashed tab still a tab of its window, as last known.
		a := p.current(t)
		if d, _ := docOfTab(a.Root, url); d == nil || d.Description != "" || len(elemtest.FindAll(d, "Button", "Save")) != 1 {
			t.Errorf("the active page after a background tab crashed: %s", dump(d))
		}
		var crashedTab *mapping.Element
		for _, w := range elemtest.Windows(a.Root) {
			for _, x := range elemtest.Tabs(w) {
				if x.URL == bgURL {
					crashedTab = x
				}
			}
		}
		if crashedTab == nil || elemtest.Has(crashedTab, "selected") || crashedTab.Title == "" {
			t.Fatalf("the crashed background tab: %s, want a tab, not selected, with its title; the read:\n%s", dump(crashedTab), elemtest.Outline(a.Root))
		}
		// Brought to the front, its Document says it crashed: the
		// provider knew while it was in the background.
		bg.activate(t)
		waitFor(t, "the page before to go to the background", func() bool {
			return eval[string](t, tb.ctx, `document.visibilityState`) == "hidden"
		})
		readNow(t, p, "the crashed tab brought to the front, saying it crashed", func(a *answer) bool {
			d, _ := docOfTab(a.Root, bgURL)
			return d != nil && d.Description == mapping.Crashed
		})
		tb.activate(t)
		tb.shown(t)
	})

	t.Run("crash in the active tab", func(t *testing.T) {
		t0 := time.Now()
		heard(t, tb.ctx, inspector.TargetCrashed, "the page to crash", func() { go chromedp.Call(tb.ctx, page.Crash, cdproto.Empty{}) })
		a := readNow(t, p, "the page crashed", func(a *answer) bool {
			d, _ := docOfTab(a.Root, url)
			return d != nil && d.Description == mapping.Crashed
		})
		doc, w := docOfTab(a.Root, url)
		if len(doc.Children) != 0 || doc.Title == "" || doc.URL != url {
			t.Errorf("the crashed page's Document: %s, want its title and url and no children", dump(doc))
		}
		if w.Title == "" {
			t.Errorf("the crashed tab's window has no title")
		}
		if got := p.locate(t, save.ID); got.State != "gone" {
			t.Errorf("locate an element of the crashed page: %s, want gone", got.raw)
		}
		if up.next(t0, 30*time.Second).IsZero() {
			t.Error("no notification after the crash")
		}
		if _, err := chromedp.Call(tb.ctx, page.Reload, page.ReloadParams{}); err != nil {
			t.Fatalf("reload the crashed tab: %v", err)
		}
		waitFor(t, "the page loaded again after the crash", func() bool {
			return eval[bool](t, tb.ctx, `document.readyState === "complete" && document.getElementById("save") !== null`)
		})
		readNow(t, p, "the page loaded again", func(a *answer) bool {
			d, _ := docOfTab(a.Root, url)
			return d != nil && d.Description == "" && len(elemtest.FindAll(d, "Button", "Save")) == 1
		})
	})

	t.Run("stalled connection", func(t *testing.T) {
		px := newStallProxy(t, br.port)
		q := startProvider(t, px.url())
		q.current(t)
		px.stall()
		_, err := q.readRaw(t, currentURI)
		if err == nil || !strings.Contains(err.Error(), "stopped answering") {
			t.Fatalf("read through a stalled connection: %v, want an error saying the browser stopped answering", err)
		}
		px.resume()
		// The provider dials again on the next read, through the proxy
		// that forwards again.
		readNow(t, q, "the connection forwarding again", func(a *answer) bool {
			d, _ := docOfTab(a.Root, url)
			return d != nil
		})
	})

	// After all of it, the same process reads a normal page exactly.
	fresh := openTab(t, user, env.pageA+"/form.html")
	fresh.shown(t)
	a := readNow(t, p, "a normal page loaded in front", func(a *answer) bool {
		d, _ := docOfTab(a.Root, fresh.url)
		return d != nil && len(d.Children) > 0
	})
	wantSameAsFresh(t, br, a, fresh.url)
}

// wantSameAsFresh compares the Document of url in a with what a new
// provider process reads.
func wantSameAsFresh(t testing.TB, br *chrome, a *answer, url string) {
	t.Helper()
	q := startProvider(t, br.httpURL())
	b := readNow(t, q, "a new provider started", func(b *answer) bool {
		d, _ := docOfTab(b.Root, url)
		return d != nil && len(d.Children) > 0
	})
	da, _ := docOfTab(a.Root, url)
	db, _ := docOfTab(b.Root, url)
	if x, y := withoutIDs(da), withoutIDs(db); x != y {
		t.Errorf("the long-running provider's read of %s differs from a new provider's:\n%s\n--- new:\n%s", url, x, y)
	}
}

// stallProxy forwards TCP to a browser's debugging port until stalled:
// then it forwards nothing, either way, until resumed.
type stallProxy struct {
	l       net.Listener
	target  string
	mu      sync.Mutex
	stalled bool
	cond    *sync.Cond
}

func newStallProxy(t testing.TB, port int) *stallProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	px := &stallProxy{l: l, target: fmt.Sprintf("127.0.0.1:%d", port)}
	px.cond = sync.NewCond(&px.mu)
	t.Cleanup(func() { l.Close(); px.resume() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go px.serve(c)
		}
	}()
	return px
}

func (px *stallProxy) url() string { return "http://" + px.l.Addr().String() }

func (px *stallProxy) stall() { px.mu.Lock(); px.stalled = true; px.mu.Unlock() }

func (px *stallProxy) resume() {
	px.mu.Lock()
	px.stalled = false
	px.cond.Broadcast()
	px.mu.Unlock()
}

func (px *stallProxy) serve(c net.Conn) {
	defer c.Close()
	b, err := net.Dial("tcp", px.target)
	if err != nil {
		return
	}
	defer b.Close()
	done := make(chan struct{}, 2)
	go func() { px.copy(b, c); done <- struct{}{} }()
	go func() { px.copy(c, b); done <- struct{}{} }()
	<-done
}

// copy forwards src to dst, holding each chunk while the proxy stalls.
func (px *stallProxy) copy(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		px.mu.Lock()
		for px.stalled {
			px.cond.Wait()
		}
		px.mu.Unlock()
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
