package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ui_at: what is at a point of the screen.

// pointerFake is newFake that can say what is at a point: the button
// within its frame (10,20 80x24), the window's frame above y=20, nothing
// off the window (x or y below 0).
type pointerFake struct {
	*fakeSource
	mu     sync.Mutex
	asked  [][2]float64
	atErr  error
	window *mapping.Element
}

func newPointerFake() *pointerFake {
	f := newFake()
	return &pointerFake{fakeSource: f, window: f.current.Root.Children[0]}
}

func (f *pointerFake) At(_ context.Context, x, y float64) (*mapping.Hit, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, [2]float64{x, y})
	if f.atErr != nil {
		return nil, f.atErr
	}
	root := f.current.Root
	switch {
	case x < 0 || y < 0:
		return mapping.HitAt(root, x, y, mapping.OffWindows, nil), nil
	case y < 20:
		return mapping.HitAt(root, x, y, mapping.InWindowFrame, []string{"w1_AAAAAAAA"}), nil
	case x >= 10 && x < 90 && y < 44:
		return mapping.HitAt(root, x, y, mapping.InPage, []string{"n1.9_AAAAAAAA", "n1.5_AAAAAAAA", "d1_AAAAAAAA", "w1_AAAAAAAA"}), nil
	}
	return mapping.HitAt(root, x, y, mapping.InPage, []string{"d1_AAAAAAAA", "w1_AAAAAAAA"}), nil
}

// atResult calls ui_at, which must answer: its text, and its
// structuredContent checked against the tool's output schema.
func atResult(t *testing.T, cs *sdk.ClientSession, args map[string]any) (string, map[string]any) {
	t.Helper()
	res := callResult(t, cs, ToolAt, args)
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s %v: %s", ToolAt, args, dump(t, res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	for _, tool := range list.Tools {
		if tool.Name == ToolAt {
			out = tool.OutputSchema
		}
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("at.json", out); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("at.json")
	if err != nil {
		t.Fatalf("ui_at's output schema: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("structuredContent %s against the output schema: %v", raw, err)
	}
	var sc map[string]any
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*sdk.TextContent).Text, sc
}

func TestToolAt(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := newPointerFake()
			cs := connect(t, src, Options{Locate: true, Tools: true}, version)

			text, sc := atResult(t, cs, map[string]any{"x": 50, "y": 30.5})
			if want := "at 50,30.5: Button Order [hovered] #n1.5_AAAAAAAA in: Application Chromium > Window \"Fish & <Chips>\" > Document \"Fish & <Chips>\"\n"; text != want {
				t.Errorf("on the button: %q, want %q", text, want)
			}
			el, _ := sc["element"].(map[string]any)
			if sc["where"] != mapping.InPage || el["id"] != "n1.5_AAAAAAAA" || len(el["in"].([]any)) != 3 {
				t.Errorf("on the button: structuredContent %v", sc)
			}

			text, sc = atResult(t, cs, map[string]any{"x": 50, "y": 5})
			if text != "at 50,5: the frame of Window \"Fish & <Chips>\" [focused] #w1_AAAAAAAA in: Application Chromium\n" || sc["where"] != mapping.InWindowFrame {
				t.Errorf("on the window's frame: %q, %v", text, sc)
			}
			text, sc = atResult(t, cs, map[string]any{"x": -3, "y": 5})
			if text != "at -3,5: no window of the browser is there\n" || sc["where"] != mapping.OffWindows || sc["element"] != nil {
				t.Errorf("off every window: %q, %v", text, sc)
			}

			src.mu.Lock()
			asked := len(src.asked)
			src.mu.Unlock()
			for _, args := range []any{nil, map[string]any{}, map[string]any{"x": 1}, map[string]any{"x": "1", "y": 2},
				map[string]any{"x": 1, "y": nil}, map[string]any{"x": 1, "y": true}} {
				wantToolError(t, cs, ToolAt, args, "invalid-arguments", "", atUsage)
			}
			wantToolError(t, cs, ToolAt, map[string]any{"x": 1, "y": 2, "id": "w1_AAAAAAAA"}, "invalid-arguments", "",
				`ui_at takes only {"x": …, "y": …}; unknown argument "id"`)
			src.mu.Lock()
			if len(src.asked) != asked {
				t.Errorf("calls with arguments refused asked the source %d times", len(src.asked)-asked)
			}
			src.atErr = &failure{"browser-unreachable", "Nothing answers at 127.0.0.1:9222."}
			src.mu.Unlock()
			wantToolError(t, cs, ToolAt, map[string]any{"x": 1, "y": 2}, "browser-unreachable", "", "Nothing answers at 127.0.0.1:9222.")
			src.mu.Lock()
			src.atErr = errors.New("no reason given")
			src.mu.Unlock()
			wantToolError(t, cs, ToolAt, map[string]any{"x": 1, "y": 2}, "read-failed", "", "no reason given")
		})
	}
}

// ui_at is offered with the tools when locate is, and only by a source
// that can tell.
func TestToolAtOnlyWithLocate(t *testing.T) {
	for _, c := range []struct {
		src    Source
		locate bool
		want   bool
	}{{newPointerFake(), true, true}, {newPointerFake(), false, false}, {newFake(), true, false}} {
		cs := connect(t, c.src, Options{Locate: c.locate, Tools: true}, "")
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		has := slices.ContainsFunc(res.Tools, func(tool *sdk.Tool) bool { return tool.Name == ToolAt })
		if has != c.want {
			t.Errorf("%T, locate %v: ui_at listed %v, want %v", c.src, c.locate, has, c.want)
		}
	}
}
