package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// ui_current's arguments: format, root and depth.

// format "outline" is the outline the command line prints; "json" is the
// resource's text, as no arguments are.
func TestToolCurrentFormat(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := newFake()
			cs := connect(t, src, Options{Locate: true, Tools: true}, version)
			var want strings.Builder
			mapping.Outline(&want, src.current.Root)
			if text, isError := call(t, cs, ToolCurrent, map[string]any{"format": "outline"}); isError || text != want.String() {
				t.Errorf("%s outline (isError %v):\n%s\nwant:\n%s", ToolCurrent, isError, text, want.String())
			}
			if text, isError := call(t, cs, ToolCurrent, map[string]any{"format": "json"}); isError || text != string(read(t, cs, CurrentURI)) {
				t.Errorf("%s json (isError %v): %s, want the resource's text", ToolCurrent, isError, text)
			}
			for _, format := range []any{"xml", "JSON", "", 1, nil, []string{"json"}} {
				wantToolError(t, cs, ToolCurrent, map[string]any{"format": format}, "invalid-arguments", "", `ui_current's format is "json" or "outline"`)
			}
		})
	}
}

// root answers the element's subtree: in json its element object, in the
// outline its lines under a line naming its ancestors. The root is looked
// up in the answer, without asking Locate.
func TestToolCurrentRoot(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := newFake()
			cs := connect(t, src, Options{Locate: true, Tools: true}, version)
			whole := string(read(t, cs, CurrentURI))
			text, isError := call(t, cs, ToolCurrent, map[string]any{"root": "d1_AAAAAAAA"})
			if want := `{"id":"d1_AAAAAAAA","role":"Document","title":"Fish & <Chips>","states":["focused"],` +
				`"children":[{"id":"n1.5_AAAAAAAA","role":"Button","title":"Order","states":["hovered"]}]}`; isError || text != want {
				t.Errorf("%s root d1 (isError %v):\n%s\nwant:\n%s", ToolCurrent, isError, text, want)
			}
			text, isError = call(t, cs, ToolCurrent, map[string]any{"root": "d1_AAAAAAAA", "format": "outline"})
			if want := `in: Application Chromium > Window "Fish & <Chips>"` + "\n" +
				`Document "Fish & <Chips>" [focused] #d1_AAAAAAAA` + "\n" +
				` Button Order [hovered] #n1.5_AAAAAAAA` + "\n"; isError || text != want {
				t.Errorf("%s root d1 outline (isError %v):\n%s\nwant:\n%s", ToolCurrent, isError, text, want)
			}
			// The Application has no ancestors: no "in:" line.
			var want strings.Builder
			mapping.Outline(&want, src.current.Root)
			if text, _ := call(t, cs, ToolCurrent, map[string]any{"root": "a0_AAAAAAAA", "format": "outline"}); text != want.String() {
				t.Errorf("%s root a0 outline:\n%s\nwant:\n%s", ToolCurrent, text, want.String())
			}
			if text, _ := call(t, cs, ToolCurrent, map[string]any{"root": "n1.5_AAAAAAAA"}); text != `{"id":"n1.5_AAAAAAAA","role":"Button","title":"Order","states":["hovered"]}` {
				t.Errorf("%s root n1.5: %s", ToolCurrent, text)
			}
			src.mu.Lock()
			located := src.located
			src.mu.Unlock()
			if len(located) != 0 {
				t.Errorf("roots in the answer were asked of Locate: %v", located)
			}
			if got := string(read(t, cs, CurrentURI)); got != whole {
				t.Errorf("the answer changed after calls with root:\n%s\nwas:\n%s", got, whole)
			}
		})
	}
}

// A root not in the answer fails as ui_locate fails for the id: malformed,
// not-issued, or the browser's failure; an id of this run that is not in
// the answer (Locate says gone, or anything but those errors) is gone.
func TestToolCurrentRootErrors(t *testing.T) {
	const browserGone = "Chromium went away while the provider tried to locate the element."
	src := newFake()
	src.locateErrs["t2_AAAAAAAA"] = mapping.CannotPlace(mapping.PlaceTab, nil)
	src.locateErrs["n1.9_AAAAAAAA"] = &failure{"browser-restarting", browserGone}
	src.locations["n1.8_AAAAAAAA"] = &mapping.Location{State: mapping.OffScreen}
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			// Locate need not be offered: only the id is asked about.
			for _, locate := range []bool{true, false} {
				cs := connect(t, src, Options{Locate: locate, Tools: true}, version)
				for _, id := range []string{"a b", "%41", "a/b", "x" + strings.Repeat("y", 200), ""} {
					for _, format := range []string{"json", "outline"} {
						wantToolError(t, cs, ToolCurrent, map[string]any{"root": id, "format": format}, "malformed", "",
							`malformed element id "`+id+`": an id is 1 to 128 characters of A-Z a-z 0-9 . _ ~ -; give an id exactly as ui_current gave it`)
					}
				}
				wantToolError(t, cs, ToolCurrent, map[string]any{"root": "n9_AAAAAAAA", "depth": 1}, "not-issued", "",
					`element id "n9_AAAAAAAA" was not issued by this run of the provider: call ui_current for the ids of this run`)
				for _, id := range []string{"n1.7_AAAAAAAA", "t2_AAAAAAAA", "n1.8_AAAAAAAA"} {
					wantToolError(t, cs, ToolCurrent, map[string]any{"root": id, "format": "outline"}, "gone", "",
						`element "`+id+`" is not in what the user sees now: it was removed, its page navigated away or closed, `+
							`or it is no longer shown (its tab is in the background, or a budget left it out); call ui_current without root for the elements of now`)
				}
				wantToolError(t, cs, ToolCurrent, map[string]any{"root": "n1.9_AAAAAAAA"}, "browser-restarting", "", browserGone)
				for _, root := range []any{7, nil, true, []string{"d1_AAAAAAAA"}} {
					wantToolError(t, cs, ToolCurrent, map[string]any{"root": root}, "invalid-arguments", "",
						"ui_current's root is a string: the id of an element as ui_current gave it")
				}
				src.setCurrentErr(&failure{"browser-restarting", browserGone})
				wantToolError(t, cs, ToolCurrent, map[string]any{"root": "d1_AAAAAAAA"}, "browser-restarting", "", browserGone)
				wantToolError(t, cs, ToolCurrent, map[string]any{"format": "outline"}, "browser-restarting", "", browserGone)
				src.setCurrentErr(errors.New("no reason given"))
				wantToolError(t, cs, ToolCurrent, map[string]any{"depth": 2}, "read-failed", "", "no reason given")
				src.setCurrentErr(nil)
			}
		})
	}
}

// depth cuts the tree that many levels below the root; an element whose
// children were cut counts what was left out below it in omitted.
func TestToolCurrentDepth(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := newFake()
			cs := connect(t, src, Options{Locate: true, Tools: true}, version)
			whole := string(read(t, cs, CurrentURI))
			text, isError := call(t, cs, ToolCurrent, map[string]any{"depth": 0})
			var cur mapping.Current
			if err := json.Unmarshal([]byte(text), &cur); err != nil || isError {
				t.Fatalf("%s depth 0 (isError %v): %s: %v", ToolCurrent, isError, text, err)
			}
			if r := cur.Root; cur.Protocol != mapping.Protocol || cur.Instance != src.current.Instance || r.ID != "a0_AAAAAAAA" || r.Omitted != 5 || r.Children != nil {
				t.Errorf("%s depth 0: %s, want the answer with the Application alone, 5 omitted", ToolCurrent, text)
			}
			text, _ = call(t, cs, ToolCurrent, map[string]any{"depth": 1, "format": "outline"})
			if want := `Application Chromium [focused] #a0_AAAAAAAA` + "\n" +
				` Window "Fish & <Chips>" [focused] (+4 omitted) #w1_AAAAAAAA` + "\n"; text != want {
				t.Errorf("%s depth 1 outline:\n%s\nwant:\n%s", ToolCurrent, text, want)
			}
			text, _ = call(t, cs, ToolCurrent, map[string]any{"depth": 1, "root": "w1_AAAAAAAA"})
			if want := `{"id":"w1_AAAAAAAA","role":"Window","title":"Fish & <Chips>","states":["focused"],"children":[` +
				`{"id":"l1_AAAAAAAA","role":"TabList","omitted":1},` +
				`{"id":"d1_AAAAAAAA","role":"Document","title":"Fish & <Chips>","states":["focused"],"omitted":1}]}`; text != want {
				t.Errorf("%s depth 1 root w1:\n%s\nwant:\n%s", ToolCurrent, text, want)
			}
			// Deeper than the tree: nothing cut, the resource's text.
			if text, _ := call(t, cs, ToolCurrent, map[string]any{"depth": 9}); text != whole {
				t.Errorf("%s depth 9:\n%s\nwant the resource's:\n%s", ToolCurrent, text, whole)
			}
			if got := string(read(t, cs, CurrentURI)); got != whole {
				t.Errorf("the answer changed after calls with depth:\n%s\nwas:\n%s", got, whole)
			}
			for _, depth := range []any{-1, 1.5, "2", nil, true} {
				wantToolError(t, cs, ToolCurrent, map[string]any{"depth": depth}, "invalid-arguments", "",
					"ui_current's depth is a whole number of levels below the root: 0 for the root alone")
			}
			src.mu.Lock()
			located := len(src.located)
			src.mu.Unlock()
			if located != 0 {
				t.Errorf("calls with depth asked Locate %d times", located)
			}
		})
	}
}
