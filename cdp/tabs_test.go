package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/cdp/wire"
	"github.com/cdpprovider/cdpprovider/internal/conformance"
	"github.com/cdpprovider/cdpprovider/mapping"
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
	p := &Provider{log: discardLogger(), state: &connState{windows: map[int64]*windowInfo{}, tabs: map[target.ID]*tabInfo{}}}
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
	p.groupWindows([]*tabState{tab("b", 2, nil), tab("c", 0, errNoWindow)}, recent)
	if _, ok := p.state.windows[1]; !ok || len(p.state.windows) != 3 || active() != 2 {
		t.Errorf("with a tab that did not say its window, windows numbered %v (want 1, 2 and the unknown one) and %d with an active tab kept, want 2", p.state.windows, active())
	}
	p.groupWindows([]*tabState{tab("b", 2, nil)}, recent)
	if _, ok := p.state.windows[1]; ok || len(p.state.windows) != 1 {
		t.Errorf("window 1 closed, and every tab said its window: windows numbered %v", p.state.windows)
	}
	if w := p.state.windows[2]; w == nil || w.key != key || w.active != "b" {
		t.Errorf("window 2 renumbered or its active tab lost: %+v, was number %d", w, key)
	}
}

// A tab whose window the browser does not say (its session refused, or
// Browser.getWindowForTarget failed) stays in the answer: in a window of
// its own after the browser's, marked unknown, with no active tab, the
// tab marked with why; the same window and tab, with the same numbers,
// at the next read that does not say it either. The tabs that answered
// are grouped as before.
func TestTabsOfNoWindowStayInTheAnswer(t *testing.T) {
	p := &Provider{log: discardLogger(), state: &connState{windows: map[int64]*windowInfo{}, tabs: map[target.ID]*tabInfo{}}}
	tab := func(id string, window int64, err error) *tabState {
		return &tabState{info: &target.Info{TargetID: target.ID(id), Title: "Tab " + id, URL: "http://x/" + id}, window: window, state: pageState{visible: true}, err: err}
	}
	recent := func(target.ID) int { return 0 }
	read := func() ([]window, *mapping.Element) {
		wins := p.groupWindows([]*tabState{tab("a", 1, nil), tab("b", 0, fmt.Errorf("%w: %w", errNoWindow, errors.New("no window"))), tab("c", 0, fmt.Errorf("%w: %w", errNoAttach, errors.New("refused")))}, recent)
		b, _ := p.browserOf(wins, focusWindow(wins, recent, 3), make([]shownTab, len(wins)), focusPath{}, pointerAt{}, nil)
		return wins, mapping.Build(b, mapping.NewIDs(), mapping.DefaultBudget)
	}
	wins, root := read()
	if len(wins) != 2 || wins[0].unknown || !wins[1].unknown || wins[1].active != nil {
		t.Fatalf("windows %+v: want window 1, then the unknown one with no active tab", wins)
	}
	want := []string{
		`Application [focused]`,
		` Window Tab a [focused]`,
		`  TabList`,
		`   Tab [selected] <http://x/a>`,
		` Window ("The browser did not say which window these tabs are in.")`,
		`  TabList`,
		`   Tab Tab b <http://x/b> ("This tab could not be read: the browser did not say which window it is in.")`,
		`   Tab Tab c <http://x/c> ("This tab could not be read: the browser did not let the provider attach to it.")`,
	}
	if d := cmp.Diff(want, outlineLines(root)); d != "" {
		t.Errorf("the answer (-want +got):\n%s", d)
	}
	raw, err := json.Marshal(&mapping.Current{Protocol: mapping.Protocol, Instance: "410e24a6-f5b2-4b9d-9cfa-6114cf138dcd", Root: root})
	if err != nil {
		t.Fatal(err)
	}
	conformance.CheckCurrent(t, raw)
	// It is no window on screen: locate says so.
	var pe *mapping.PlaceError
	if _, err := p.locateWindow(context.Background(), nil, wins[1].key); !errors.As(err, &pe) || pe.Why != mapping.PlaceWindowUnknown {
		t.Errorf("locate of the unknown window: %v, want it cannot be placed (%s)", err, mapping.PlaceWindowUnknown)
	}
	keys := []uint64{wins[1].key, wins[1].tabs[0].key, wins[1].tabs[1].key}
	again, _ := read()
	if got := []uint64{again[1].key, again[1].tabs[0].key, again[1].tabs[1].key}; !slices.Equal(got, keys) {
		t.Errorf("the unknown window and its tabs renumbered at the next read: %v, were %v", got, keys)
	}
}

// outlineLines is the outline of e without its ids.
func outlineLines(e *mapping.Element) []string {
	var b strings.Builder
	mapping.Outline(&b, e)
	var out []string
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if i := strings.LastIndex(l, " #"); i >= 0 {
			l = l[:i]
		}
		out = append(out, l)
	}
	return out
}

// The note of a tab the provider could not read (noteUnread) goes with
// the tab: a provider attached all day, among tabs that fail and close,
// keeps notes of the tabs alive only.
func TestUnreadNotesGoWithTheirTabs(t *testing.T) {
	p := &Provider{log: discardLogger(), state: &connState{tabs: map[target.ID]*tabInfo{"closed": {key: 1, unread: mapping.TabNoScript}, "open": {key: 2, unread: mapping.PageReadFailed}}}}
	p.forgetDead(p.state, map[target.ID]*target.Info{"open": {TargetID: "open"}})
	notes := map[target.ID]string{}
	for id, t := range p.state.tabs {
		notes[id] = t.unread
	}
	if want := map[target.ID]string{"open": mapping.PageReadFailed}; !maps.Equal(notes, want) {
		t.Errorf("after the tab closed, the notes are %v, want %v", notes, want)
	}
}
