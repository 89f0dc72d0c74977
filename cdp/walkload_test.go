package cdp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// A page that loads again in a tab a host has read is walked at once in
// the background, with no read asking: the first read after the load is
// answered from the kept tree, not with getFullAXTree.
func TestWalkAfterLoad(t *testing.T) {
	path := testChrome(t)
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Walked</title><main>`)
	for i := range 60 {
		fmt.Fprintf(&b, `<section><h2>Part %d</h2><p>Text <a href="#%d">link %d</a></p><button>Button %d</button></section>`, i, i, i, i)
	}
	b.WriteString(`</main><script>window.__reloaded = false</script>`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, b.String()) }))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	br, err := Launch(ctx, LaunchOptions{Path: path, URLs: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	p, err := NewProvider(Options{Connect: br.DebugURL()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	u := newUser(t, ctx, br.DebugURL())
	defer u.close()
	u.waitLoaded(t, 0)
	waitWalked(t, ctx, p)

	// The person loads the page again; the provider is not asked.
	s := u.session(t, u.tabs[0])
	u.eval(t, s, `window.__reloaded = true; location.reload(); ''`)
	u.waitNewDocument(t, s)
	u.waitLoaded(t, 0)
	tree, err := cdp.Call(ctx, s, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	frame, loader := tree.FrameTree.Frame.ID, tree.FrameTree.Frame.LoaderID
	p.mu.Lock()
	a := p.state.sessions[u.tabs[0]].ax.Load()
	p.mu.Unlock()
	if a == nil {
		t.Fatal("the tab has no warm trees after a read")
	}
	if err := waitFor(ctx, func() bool { return a.WalkedDocument(frame) == loader }); err != nil {
		t.Fatalf("the new document was not walked without a read: %v", err)
	}

	before := p.Answers()
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Answers().Minus(before)
	if got.Kept() != 1 || got.All() != 1 {
		t.Errorf("the first read after the load: %v, want the kept tree alone", got)
	}
	if !strings.Contains(fmt.Sprint(outlineOf(cur.Root)), "Button 59") {
		t.Errorf("the read does not show the page: %v", outlineOf(cur.Root))
	}
}

// waitFor polls cond until it holds, for at most two minutes.
func waitFor(ctx context.Context, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}
