package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The person's own browser: Chromium on its default profile (a fresh HOME
// of the test's), with remote debugging allowed at chrome://inspect (the
// setting written to its Local State before it starts, as the page's
// checkbox stores it), and no debugging flag. Such a browser listens on
// 127.0.0.1:9222, answers 404 on /json/*, writes its websocket path to
// DevToolsActivePort, and shows "Allow remote debugging?" in its window
// for every new connection. The test plays the person: it answers the
// dialog with the keyboard, through the X server.

// consentPort is where a browser whose person allowed debugging at
// chrome://inspect listens: always this port.
const consentPort = 9222

// ownBrowser is one such Chromium on a virtual screen.
type ownBrowser struct {
	scr  *screen
	home string
	cmd  *exec.Cmd
	done chan struct{}
}

// profileDir is the browser's default user-data directory under home.
func profileDir(home string) string { return filepath.Join(home, ".config", "chromium") }

// environ is the environment of the browser and of the providers that
// look for it: HOME is the test's, so the default profile is its own.
func (o *ownBrowser) environ() []string {
	env := slices.DeleteFunc(o.scr.env(), func(kv string) bool {
		return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=")
	})
	return append(env, "HOME="+o.home)
}

// startOwnBrowser starts Chromium on home's default profile, showing url,
// and waits until it has written DevToolsActivePort and listens.
func startOwnBrowser(t testing.TB, scr *screen, home, url string) *ownBrowser {
	t.Helper()
	dir := profileDir(home)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "Local State")
	if _, err := os.Stat(state); err != nil {
		if err := os.WriteFile(state, []byte(`{"devtools":{"remote_debugging":{"user-enabled":true}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	activePort := filepath.Join(dir, "DevToolsActivePort")
	os.Remove(activePort) // the last run's, stale: wait for this run's
	o := &ownBrowser{scr: scr, home: home, done: make(chan struct{})}
	args := slices.Concat(quietFlags, []string{"--password-store=basic", "--window-position=0,0", "--window-size=1000,700", url})
	o.cmd = exec.Command(env.chromePath, args...)
	o.cmd.Env = o.environ()
	setProcAttr(o.cmd)
	var out syncbuf.Buffer
	o.cmd.Stdout, o.cmd.Stderr = &out, &out
	if err := o.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", env.chromePath, err)
	}
	go func() { o.cmd.Wait(); close(o.done) }()
	t.Cleanup(o.stop)
	waitFor(t, "the browser to write DevToolsActivePort and listen on its port", func() bool {
		select {
		case <-o.done:
			t.Fatalf("the browser exited: %s", out.String())
		default:
		}
		b, err := os.ReadFile(activePort)
		if err != nil || !strings.HasPrefix(string(b), strconv.Itoa(consentPort)+"\n") {
			return false
		}
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", consentPort))
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return o
}

// stop kills the browser and waits for it to exit.
func (o *ownBrowser) stop() {
	killGroup(o.cmd)
	<-o.done
}

// window is the browser window's X id.
func (o *ownBrowser) window(t testing.TB) string {
	t.Helper()
	var ids []string
	waitFor(t, "the browser window", func() bool {
		ids = o.scr.search("--onlyvisible", "--class", "chromium")
		return len(ids) > 0
	})
	return ids[len(ids)-1]
}

// dimmed says whether the page is dimmed, as it is behind the "Allow
// remote debugging?" dialog: the pixel at the bottom middle of the
// window, on the page's white, is grey.
func (o *ownBrowser) dimmed(t testing.TB, win string) bool {
	t.Helper()
	c := exec.Command("xdotool", "getwindowgeometry", "--shell", win)
	c.Env = o.scr.env()
	out, err := c.Output()
	if err != nil {
		t.Fatalf("xdotool getwindowgeometry %s: %v", win, err)
	}
	geo := map[string]int{}
	for _, l := range strings.Fields(string(out)) {
		if k, v, ok := strings.Cut(l, "="); ok {
			geo[k], _ = strconv.Atoi(v)
		}
	}
	img := o.scr.capture(t)
	r, g, b, _ := img.At(geo["X"]+geo["WIDTH"]/2, geo["Y"]+geo["HEIGHT"]-30).RGBA()
	return r>>8 < 200 && g>>8 < 200 && b>>8 < 200
}

// answer waits for the dialog, then clicks Cancel or Allow with the
// keyboard as a person would (focus starts on Cancel; Tab moves to
// Allow), and waits for the dialog to close.
func (o *ownBrowser) answer(t testing.TB, allow bool) {
	t.Helper()
	win := o.window(t)
	waitFor(t, `the "Allow remote debugging?" dialog`, func() bool { return o.dimmed(t, win) })
	if err := o.scr.xdotool("windowactivate", "--sync", win); err != nil {
		t.Fatal(err)
	}
	keys := []string{"Return"}
	if allow {
		keys = []string{"Tab", "Return"}
	}
	for _, k := range keys {
		if err := o.scr.xdotool("key", "--window", win, k); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the dialog to close", func() bool { return !o.dimmed(t, win) })
}

// readError reads current and wants the internal error (-32603) whose
// message has every one of want.
func readError(t testing.TB, p *provider, when string, want ...string) string {
	t.Helper()
	_, err := p.readRaw(t, currentURI)
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("read %s %s: %v, want a JSON-RPC error", currentURI, when, err)
	}
	if we.Code != jsonrpc.CodeInternalError {
		t.Errorf("read %s %s: code %d, want %d", currentURI, when, we.Code, jsonrpc.CodeInternalError)
	}
	for _, w := range want {
		if !strings.Contains(we.Message, w) {
			t.Errorf("read %s %s: %q does not say %q", currentURI, when, we.Message, w)
		}
	}
	return we.Message
}

// asking is what a read says while the browser asks its person.
const asking = "is asking whether to allow remote debugging"

// readWhileAsking reads current until the read no longer says the browser
// asks (the person's answer has reached the provider), and returns the
// answer or the error.
func readWhileAsking(t testing.TB, p *provider) (*answer, error) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		raw, err := p.readRaw(t, currentURI)
		if err == nil {
			return &answer{Current: checkCurrent(t, raw), raw: raw}, nil
		}
		if !strings.Contains(err.Error(), asking) || time.Now().After(deadline) {
			return nil, err
		}
	}
}

func TestOwnBrowser(t *testing.T) {
	needDisplayTools(t)
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", consentPort)); err == nil {
		c.Close()
		t.Fatalf("port %d is taken: this test needs it, since a browser that allows debugging from chrome://inspect always listens there", consentPort)
	}
	scr := startScreen(t, 1280, 900)
	home, err := os.MkdirTemp("", "cdpprovider-e2e-profile-")
	if err != nil {
		t.Fatal(err)
	}
	// Registered first, so it runs after the browsers are stopped.
	t.Cleanup(func() { removeAllRetrying(home) })
	page := env.pageA + "/own.html"
	br := startOwnBrowser(t, scr, home, page)

	// doctor sees it, and that it will ask.
	out, code := runDoctor(t, home)
	if code != 0 {
		t.Errorf("doctor: exit status %d with the browser allowing debugging, want 0", code)
	}
	wantLines(t, out, "DevToolsActivePort: port 9222, live", "/json/version: 404", "chrome://inspect setting: on", "click Allow")

	// No browser flag at all: the browser the person uses.
	u := newUpdates()
	p := startProviderCmd(t, []string{"serve"}, br.environ(), u.handler())
	readError(t, p, "while the browser asks", asking, "click Allow")
	readError(t, p, "while the browser still asks", asking)
	if n := strings.Count(p.stderr.String(), asking); n != 1 {
		t.Errorf("the log says the browser asks %d times, want once:\n%s", n, p.stderr.String())
	}

	// Cancel: a clear error; the next read asks again.
	br.answer(t, false)
	if _, err := readWhileAsking(t, p); err == nil || !strings.Contains(err.Error(), "did not allow remote debugging") {
		t.Fatalf("read after Cancel: %v, want an error saying remote debugging was not allowed", err)
	}
	readError(t, p, "after the read that said Cancel", asking)

	// Allow: the page, and one connection for everything after.
	br.answer(t, true)
	cur, err := readWhileAsking(t, p)
	if err != nil {
		t.Fatalf("read after Allow: %v", err)
	}
	elemtest.FindDoc(t, cur.Root, page)
	button := elemtest.Find(t, cur.Root, "Button", "Save")
	if err := p.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: currentURI}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	var loc *location
	for range 20 {
		p.current(t)
		loc = p.locate(t, button.ID)
	}
	if loc.State != "onscreen" {
		t.Fatalf("locate the Save button: %s, want onscreen", loc.raw)
	}
	if br.dimmed(t, br.window(t)) {
		t.Fatal("the browser asks again after twenty reads and locates: the provider opened a second connection")
	}
	// The subscription: the real pointer onto the button is a change.
	t0 := time.Now()
	f := loc.Frame
	if err := scr.xdotool("mousemove", strconv.Itoa(int(f.X+f.Width/2)), strconv.Itoa(int(f.Y+f.Height/2))); err != nil {
		t.Fatal(err)
	}
	if u.next(t0, 30*time.Second).IsZero() {
		t.Fatal("no notification after the pointer moved onto the button")
	}
	waitFor(t, "the Save button hovered", func() bool {
		return elemtest.Has(elemtest.Find(t, p.current(t).Root, "Button", "Save"), "hovered")
	})
	if br.dimmed(t, br.window(t)) {
		t.Fatal("the browser asks again after the subscription: the provider opened a second connection")
	}

	// --connect auto, and the port's address whose /json/version answers
	// 404: each a provider of its own, each asks once.
	for _, connect := range []string{"auto", fmt.Sprintf("http://127.0.0.1:%d", consentPort)} {
		q := startProviderCmd(t, []string{"serve", "--connect", connect}, br.environ(), nil)
		readError(t, q, "with --connect "+connect+" while the browser asks", asking)
		br.answer(t, true)
		cur, err := readWhileAsking(t, q)
		if err != nil {
			t.Fatalf("--connect %s: read after Allow: %v", connect, err)
		}
		elemtest.FindDoc(t, cur.Root, page)
		if err := q.close(); err != nil {
			t.Errorf("--connect %s: %v", connect, err)
		}
	}

	// The browser killed and started again: the provider finds it on its
	// new DevToolsActivePort, asks once more, and old ids are gone.
	br.stop()
	readError(t, p, "with the browser gone")
	t1 := time.Now()
	br = startOwnBrowser(t, scr, home, page)
	br.answer(t, true)
	again, err := readWhileAsking(t, p)
	if err != nil {
		t.Fatalf("read after the browser restarted and Allow: %v", err)
	}
	if again.Instance != cur.Instance {
		t.Errorf("the instance changed across the browser's restart")
	}
	if got := p.locate(t, button.ID); got.State != "gone" {
		t.Errorf("locate the Save button of the old browser: %s, want gone", got.raw)
	}
	if nb := elemtest.Find(t, again.Root, "Button", "Save"); nb.ID == button.ID {
		t.Errorf("the new browser's Save button has the old id %s", nb.ID)
	}
	if u.next(t1, 30*time.Second).IsZero() {
		t.Error("no notification after the browser came back")
	}
	for range 5 {
		p.current(t)
	}
	if br.dimmed(t, br.window(t)) {
		t.Fatal("the restarted browser asks again: the provider opened a second connection")
	}
}

// removeAllRetrying removes dir, retrying while a dying browser's helpers
// still write in it.
func removeAllRetrying(dir string) {
	for range 40 {
		if err := os.RemoveAll(dir); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
