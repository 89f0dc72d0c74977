package cdp

import (
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

func TestParseSignal(t *testing.T) {
	for _, c := range []struct {
		payload string
		want    signal
		ok      bool
	}{
		{"12 7 1", signal{watcher: 12, count: 7, visible: 1}, true},
		{"12 7 0", signal{watcher: 12, count: 7, visible: 0}, true},
		{"12 7", signal{watcher: 12, count: 7, visible: -1}, true}, // an older provider's watchers
		{"12 7 2", signal{}, false},
		{"12", signal{}, false},
		{"12 x 1", signal{}, false},
		{"", signal{}, false},
		{"1 2 3 4", signal{}, false},
	} {
		got, ok := parseSignal(jsonv2.Value(`{"name":"` + bindingName + `","payload":"` + c.payload + `"}`))
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("parseSignal(%q) = %+v, %v; want %+v, %v", c.payload, got, ok, c.want, c.ok)
		}
	}
}

// A change of a page's visibility is a tab switch only when the page's
// visibility was known before: from a read, or from its watchers.
func TestVisibilityChanges(t *testing.T) {
	var r aheadReads
	steps := []struct {
		watcher int64
		visible int8
		want    bool
	}{
		{1, 1, false},  // first told: known now
		{1, 1, false},  // the same
		{1, 0, true},   // hidden
		{1, -1, false}, // not told
		{1, 0, false},
		{1, 1, true}, // shown again
		{2, 0, false},
		{2, 1, true},
	}
	for i, s := range steps {
		if got := r.visibility(s.watcher, s.visible); got != s.want {
			t.Errorf("step %d: visibility(%d, %d) = %v, want %v", i, s.watcher, s.visible, got, s.want)
		}
	}
}

// The host is told of the target events that change what current shows:
// a tab opened, navigated or closed, an out-of-process frame gone. A
// worker, a service worker, a DevTools window or a page of Chrome's own
// UI (a window's omnibox popup: created and dropped as Chrome pleases)
// that comes and goes is no change.
func TestTargetEventsToldOnlyForWhatIsShown(t *testing.T) {
	p, err := NewProvider(Options{Connect: "http://127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	told := 0
	f := func() { told++ }
	p.watcher.Store(&f)
	// As while Target.setDiscoverTargets is answered: no read ahead
	// starts (this provider has no browser to read).
	p.ahead.discovering.Store(true)
	info := func(id, typ, url string) jsonv2.Value {
		return jsonv2.Value(`{"targetInfo":{"targetId":"` + id + `","type":"` + typ + `","title":"","url":"` + url + `","attached":false,"canAccessOpener":false}}`)
	}
	ended := func(id string) jsonv2.Value { return jsonv2.Value(`{"targetId":"` + id + `"}`) }
	created, changed, destroyed := target.TargetCreated.Method, target.TargetInfoChanged.Method, target.TargetDestroyed.Method
	shown := map[target.ID]bool{}
	for _, step := range []struct {
		what   string
		method string
		params jsonv2.Value
		told   bool
	}{
		{"a tab opened", created, info("T1", "page", "https://example.test/"), true},
		{"its worker started", created, info("W1", "worker", "https://example.test/worker.js"), false},
		{"its cross-site frame", created, info("F1", "iframe", "https://other.test/"), false},
		{"a service worker started", created, info("S1", "service_worker", "https://example.test/sw.js"), false},
		{"the tab navigated", changed, info("T1", "page", "https://example.test/next"), true},
		{"the frame navigated", changed, info("F1", "iframe", "https://other.test/next"), false},
		{"the worker ended", destroyed, ended("W1"), false},
		{"the service worker ended", destroyed, ended("S1"), false},
		{"the frame ended", destroyed, ended("F1"), true},
		{"a window's omnibox popup (Chrome's own UI) made", created, info("U1", "browser_ui", "chrome://omnibox-popup.top-chrome/"), false},
		{"and dropped", destroyed, ended("U1"), false},
		{"a DevTools window opened", created, info("D1", "page", "devtools://devtools/bundled/inspector.html"), false},
		{"the DevTools window closed", destroyed, ended("D1"), false},
		{"the tab closed", destroyed, ended("T1"), true},
		{"an unknown target ended", destroyed, ended("X1"), false},
		{"an event Chrome never sends", created, jsonv2.Value(`{"targetInfo":`), false},
	} {
		before := told
		p.onBrowserEvent(shown, step.method, step.params)
		if got := told > before; got != step.told {
			t.Errorf("%s (%s): host told %v, want %v", step.what, step.method, got, step.told)
		}
	}
	if len(shown) != 0 {
		t.Errorf("targets still held after all ended: %v", shown)
	}
}
