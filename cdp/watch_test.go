package cdp

import (
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
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
