package cdp

import (
	"fmt"
	"strings"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// After a day's worth of what a person does (BenchmarkAllDay's loop, in
// short: a tab opened, read, navigated and closed; the first tab
// navigated between pages that each hold a same-site iframe the page
// replaces and a cross-site one, a process and a target of its own; a
// window opened, read, located, closed and located again, gone),
// everything the provider keeps of the browser (sizes) is of what is
// open: the one window, its tab and the tab's cross-site iframe, the
// documents, worlds, chains and warm trees of the frames alive, and the
// last read's elements, scans and tabs. (Chrome sends no frameDetached
// for the iframes of a document that navigated away: forgetGoneFrames.)
func TestLeakLoopKeepsOnlyWhatIsOpen(t *testing.T) {
	other := serve(t, map[string]string{"/x": sectionsPage("Elsewhere", 5)})
	cross := strings.Replace(other, "127.0.0.1", "localhost", 1)
	site := map[string]string{"/ad": sectionsPage("Advert", 5)}
	for i := range 2 {
		site[fmt.Sprintf("/p%d", i)] = fmt.Sprintf(`<!doctype html><title>Page %d</title><main><h1>Page %d</h1>
<input type="range" aria-label="Volume" aria-valuetext="Loud">
<div id=box><iframe src="/ad?0"></iframe></div><iframe src="%s/x" title=cross></iframe></main><script>
let n = 1; window.__reloaded = false;
window.cycle = () => { const b = document.getElementById('box'); b.innerHTML = ''; const f = document.createElement('iframe'); f.src = '/ad?' + (n++); b.appendChild(f); return new Promise(r => f.onload = () => r('loaded')); };
</script>`, i, i, cross)
	}
	url := serve(t, site)
	ctx, p, u := launchFor(t, url+"/p0", Options{RestAfter: -1})
	us := u.session(t, u.tabs[0])
	read := func() *mapping.Current {
		t.Helper()
		cur, err := p.Current(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return cur
	}
	windows := func(cur *mapping.Current) []string {
		var ids []string
		for _, w := range cur.Root.Children {
			if w.Role == "Window" {
				ids = append(ids, w.ID)
			}
		}
		return ids
	}
	read()
	const loops = 6
	for i := range loops {
		// A tab opened, read, navigated, read and closed (the first tab's
		// warm trees let go meanwhile: it is not shown).
		r, err := cdproto.Call(ctx, u.c.Browser(), target.CreateTarget, target.CreateTargetParams{URL: url + "/p1"})
		if err != nil {
			t.Fatal(err)
		}
		u.tabs = append(u.tabs, r.TargetID)
		u.waitLoaded(t, 1)
		read()
		u.navigate(t, u.session(t, r.TargetID), 1, url+"/p0")
		read()
		closeTab(t, u, r.TargetID)
		read()
		// The first tab navigated between the pages, and the same-site
		// iframe replaced, with the focus in it: worlds, chains, warm
		// trees made in the iframes.
		for j := range 2 {
			u.navigate(t, us, 0, fmt.Sprintf("%s/p%d", url, (j+1)%2))
			read()
			for range 2 {
				if got := u.eval(t, us, `cycle()`); got != "loaded" {
					t.Fatalf("cycle: %q", got)
				}
				u.eval(t, us, `document.querySelector('#box iframe').contentDocument.querySelector('button').focus(); ''`)
				read()
			}
		}
		// A window opened, read, located; closed and located again.
		r, err = cdproto.Call(ctx, u.c.Browser(), target.CreateTarget, target.CreateTargetParams{URL: url + "/p1", NewWindow: ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		u.tabs = append(u.tabs, r.TargetID)
		u.waitLoaded(t, 1)
		ids := windows(read())
		if len(ids) != 2 {
			t.Fatalf("loop %d: %d windows read with a window opened, want 2", i, len(ids))
		}
		for _, id := range ids {
			if loc, err := p.Locate(ctx, id); err != nil || loc.State == mapping.Gone {
				t.Fatalf("loop %d: locate of a window open: %v, %v", i, loc, err)
			}
		}
		closeTab(t, u, r.TargetID)
		gone := 0
		for _, id := range ids {
			loc, err := p.Locate(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if loc.State == mapping.Gone {
				gone++
			}
		}
		if gone != 1 {
			t.Fatalf("loop %d: %d windows located gone after one was closed, want 1", i, gone)
		}
		read()
	}
	read()

	// What is open: the one tab, its window, its frames.
	infos, err := cdproto.Call(ctx, u.c.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatal(err)
	}
	live := map[target.ID]bool{}
	for _, ti := range infos.TargetInfos {
		live[ti.TargetID] = ti.Type == "page" || ti.Type == "iframe"
	}
	ft, err := cdproto.Call(ctx, us, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	frames := len(framesOf(ft.FrameTree)) + 1 // the page's, its same-site iframe's, and the cross-site one's
	p.mu.Lock()
	for id := range p.state.sessions {
		if !live[id] {
			t.Errorf("a session is kept of target %s, gone", id)
		}
	}
	for _, d := range p.state.docs {
		if !live[d.key.target] {
			t.Errorf("document %d is kept of target %s, gone", d.n, d.key.target)
		}
	}
	p.mu.Unlock()
	got := p.sizes()
	t.Logf("after %d loops: %+v; %d frames alive", loops, got, frames)
	// The signals: an iframe's document replaced before any read (cycle)
	// is not known to the trees by its watchers, and its last signal,
	// sent as it ended, is kept until keptWatchers newer ones push it out
	// (warm.Trees.OnSignal): one more than the frames alive, under load.
	// A leak would add one a loop.
	want := stateSizes{Windows: 1, Tabs: 1, Sessions: 2, Docs: frames, Mapped: 1, Shown: 1, Held: 0, Scans: frames, ReadLast: 1, Worlds: frames, Chains: 2 * frames, Warm: frames, Signals: frames + 1, IDs: frames}
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"windows", got.Windows, want.Windows},
		{"tabs numbered", got.Tabs, want.Tabs},
		{"sessions (the tab, its cross-site iframe)", got.Sessions, want.Sessions},
		{"documents numbered (of the frames alive)", got.Docs, want.Docs},
		{"documents with an element kept for the next read", got.Mapped, want.Mapped},
		{"documents with an element of the last answer", got.Shown, want.Shown},
		{"documents answered as last shown", got.Held, want.Held},
		{"node scans (of the documents read)", got.Scans, want.Scans},
		{"tabs read last", got.ReadLast, want.ReadLast},
		{"isolated worlds (one a frame)", got.Worlds, want.Worlds},
		{"element chains (a focus and a hover chain a frame)", got.Chains, want.Chains},
		{"frames held in the warm trees", got.Warm, want.Warm},
		{"documents whose watchers' signals the warm trees keep", got.Signals, want.Signals},
		{"documents whose issued elements the ids record", got.IDs, want.IDs},
	} {
		if c.got > c.want {
			t.Errorf("after %d loops the provider keeps %d %s; what is open has %d", loops, c.got, c.what, c.want)
		}
	}
}

// closeTab closes a tab as the person does, and waits until it is no
// longer listed.
func closeTab(t *testing.T, u *user, id target.ID) {
	t.Helper()
	if _, err := cdproto.Call(u.ctx, u.c.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(u.ctx, func() bool {
		infos, err := cdproto.Call(u.ctx, u.c.Browser(), target.GetTargets, target.GetTargetsParams{})
		if err != nil {
			return false
		}
		for _, ti := range infos.TargetInfos {
			if ti.TargetID == id {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatalf("the tab closed is still listed: %v", err)
	}
	u.tabs = u.tabs[:1]
	delete(u.sess, id)
}
