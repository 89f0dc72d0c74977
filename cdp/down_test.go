package cdp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// A page that stops answering right after a navigation is reported as the
// new document the person sees, not as the page before it: its Document
// has the new url and says it is not responding, and holds none of the
// elements of the document the tab showed before (the provider knows the
// tab navigated from Page.frameNavigated, which Chrome sends before the
// page's script runs).
func TestABusyPageAfterANavigationIsNotThePageBefore(t *testing.T) {
	path := testChrome(t)
	started := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/busy":
			// Busy from the start of its parse until the browser closes.
			// Its script first asks for /started, synchronously: the
			// page's main thread waits for that answer, then loops, and
			// answers nothing from the moment the server is asked.
			fmt.Fprint(w, `<!doctype html><title>Busy</title><script>const x = new XMLHttpRequest(); x.open("GET", "/started", false); x.send(); for (const end = Date.now() + 120000; Date.now() < end;) {}</script><button>After</button>`)
			return
		case "/started":
			once.Do(func() { close(started) })
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Before</title><main><h1>Before</h1><button>Before button</button></main>`)
	}))
	defer srv.Close()

	ctx, p, u := walkedOnLaunch(t, path, srv.URL+"/")
	p.mu.Lock()
	s := p.state.sessions[u.tabs[0]]
	p.mu.Unlock()
	before := s.ShownDocument()
	u.eval(t, u.session(t, u.tabs[0]), `setTimeout(() => { location.href = "/busy" }, 0); ''`)
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the busy page never started its loop")
	}
	// Read once the provider has seen the navigation: the read's first
	// call is then to the busy page. (A read whose first call the page
	// before answered waits for its later calls until its deadline.) Only
	// the provider's own handling of its event tells when it has.
	if err := waitFor(ctx, func() bool { d := s.ShownDocument(); return d != "" && d != before }); err != nil {
		t.Fatalf("the provider did not see the navigation (Page.frameNavigated): %v", err)
	}
	// The page is busy and the provider knows it navigated: the first read
	// must say so.
	cur, err := p.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	doc := first(cur.Root, func(e *mapping.Element) bool { return e.Role == "Document" && strings.HasSuffix(e.URL, "/busy") })
	if doc == nil || doc.Description != mapping.NotResponding {
		t.Fatalf("the first read once the busy page loops does not answer it as the busy page, not responding:\n%s", strings.Join(outlineOf(cur.Root), "\n"))
	}
	if len(doc.Children) != 0 {
		t.Errorf("the busy page's Document holds the page before it:\n%s", strings.Join(outlineOf(doc), "\n"))
	}
}
