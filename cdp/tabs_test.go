package cdp

import (
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
