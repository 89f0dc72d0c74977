package cdp

import (
	"errors"
	"testing"

	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/cdp/wire"
)

// The active tab of a window is the visible one; when none says so, the
// one last known, unless it answers hidden while a tab that cannot answer
// (crashed, frozen) was activated more recently: the person brought that
// one to the front. A minimised window keeps the one last known.
func TestPickActive(t *testing.T) {
	tab := func(id string, visible bool, down error) *tabState {
		return &tabState{info: &target.Info{TargetID: target.ID(id)}, state: pageState{visible: visible}, down: down}
	}
	// rank by the order of creation, newest first, as /json/list does
	// in headless (activation does not reorder it there)
	recent := func(id target.ID) int { return map[target.ID]int{"new": 0, "mid": 1, "old": 2}[id] }
	for _, tc := range []struct {
		name      string
		tabs      []*tabState
		last      target.ID
		minimized bool
		want      target.ID
	}{
		{"the visible one", []*tabState{tab("old", false, nil), tab("new", true, nil)}, "old", false, "new"},
		{"several visible: the most recent", []*tabState{tab("old", true, nil), tab("new", true, nil)}, "old", false, "new"},
		{"none visible: the one last known", []*tabState{tab("old", false, nil), tab("new", false, nil)}, "old", false, "old"},
		{"the one last known is down", []*tabState{tab("old", false, wire.ErrCrashed), tab("new", false, nil)}, "old", false, "old"},
		{"a crashed tab brought to the front", []*tabState{tab("old", false, nil), tab("new", false, wire.ErrCrashed)}, "old", false, "new"},
		{"two down: the most recent", []*tabState{tab("old", false, nil), tab("mid", false, wire.ErrNotResponding), tab("new", false, wire.ErrCrashed)}, "old", false, "new"},
		{"minimised: the one last known", []*tabState{tab("old", false, nil), tab("new", false, wire.ErrCrashed)}, "old", true, "old"},
		{"one tab that cannot say", []*tabState{tab("old", false, wire.ErrCrashed)}, "", false, "old"},
		{"nothing known", []*tabState{tab("old", false, nil)}, "", false, ""},
	} {
		got := pickActive(tc.tabs, recent, tc.last, tc.minimized)
		var id target.ID
		if got != nil {
			id = got.info.TargetID
		}
		if id != tc.want {
			t.Errorf("%s: picked %q, want %q", tc.name, id, tc.want)
		}
	}
}

// A window none of whose tabs is left is forgotten (its number, its
// active tab), so that a provider attached all day keeps only the
// windows alive; while a tab does not say which window it is in, no
// window is.
func TestGoneWindowsAreForgotten(t *testing.T) {
	p := &Provider{log: discardLogger(), state: &connState{windows: map[int64]*windowInfo{}, tabs: map[target.ID]uint64{}}}
	tab := func(id string, window int64, err error) *tabState {
		return &tabState{info: &target.Info{TargetID: target.ID(id)}, window: window, state: pageState{visible: true}, err: err}
	}
	recent := func(target.ID) int { return 0 }
	active := func() int {
		n := 0
		for _, w := range p.state.windows {
			if w.active != "" {
				n++
			}
		}
		return n
	}
	p.groupWindows([]*tabState{tab("a", 1, nil), tab("b", 2, nil)}, recent)
	if len(p.state.windows) != 2 || active() != 2 {
		t.Fatalf("two windows read: %d numbered, %d with an active tab", len(p.state.windows), active())
	}
	key := p.state.windows[2].key
	p.groupWindows([]*tabState{tab("b", 2, nil), tab("c", 0, errors.New("no answer"))}, recent)
	if len(p.state.windows) != 2 || active() != 2 {
		t.Errorf("with a tab that did not say its window, %d windows numbered and %d with an active tab kept, want 2", len(p.state.windows), active())
	}
	p.groupWindows([]*tabState{tab("b", 2, nil)}, recent)
	if _, ok := p.state.windows[1]; ok || len(p.state.windows) != 1 {
		t.Errorf("window 1 closed: windows numbered %v", p.state.windows)
	}
	if w := p.state.windows[2]; w == nil || w.key != key || w.active != "b" {
		t.Errorf("window 2 renumbered or its active tab lost: %+v, was number %d", w, key)
	}
}
