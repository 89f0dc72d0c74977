package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// call calls a tool and returns its result, which must be one text item.
func call(t *testing.T, cs *sdk.ClientSession, name string, args any) (text string, isError bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("tools/call %s %v: %d content items, want 1", name, args, len(res.Content))
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("tools/call %s %v: content %T, want text", name, args, res.Content[0])
	}
	if res.StructuredContent != nil {
		t.Errorf("tools/call %s %v: structuredContent %v, want none", name, args, res.StructuredContent)
	}
	return tc.Text, res.IsError
}

// With Tools, tools/list has exactly ui_current, ui_find and ui_locate,
// read-only; ui_find takes locate only when locate is offered.
func TestToolsAreListed(t *testing.T) {
	forEach(t, func(t *testing.T, locate bool, version string) {
		cs := connect(t, newFake(), Options{Locate: locate, Tools: true}, version)
		if caps := cs.InitializeResult().Capabilities; caps.Tools == nil || caps.Tools.ListChanged {
			t.Errorf("tools capability %+v, want one with an unchanging list", caps.Tools)
		}
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		type entry struct {
			Name                  string
			ReadOnly, Idempotent  bool
			OpenWorld, InputProps string
		}
		var got []entry
		for _, tool := range res.Tools {
			e := entry{Name: tool.Name}
			if a := tool.Annotations; a != nil {
				e.ReadOnly, e.Idempotent = a.ReadOnlyHint, a.IdempotentHint
				if a.OpenWorldHint != nil {
					e.OpenWorld = fmt.Sprint(*a.OpenWorldHint)
				}
			}
			e.InputProps = inputProps(tool.InputSchema)
			got = append(got, e)
		}
		find := "limit:integer regex:boolean role:string(" + strings.Join(mapping.Roles, "|") + ") text:string"
		if locate {
			find = "limit:integer locate:boolean regex:boolean role:string(" + strings.Join(mapping.Roles, "|") + ") text:string"
		}
		want := []entry{
			{ToolCurrent, true, true, "false", "depth:integer format:string(json|outline) root:string scope:string(page|screen)"},
			{ToolFind, true, true, "false", find},
		}
		if locate {
			want = append(want, entry{ToolLocate, true, true, "false", "id:string"})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tools/list (-want +got):\n%s", diff)
		}
	})
}

// inputProps lists an input schema's properties, sorted: each one's
// name, type and enum, and each must have a description.
func inputProps(schema any) string {
	props := schema.(map[string]any)["properties"].(map[string]any)
	var list []string
	for name, p := range props {
		p := p.(map[string]any)
		s := fmt.Sprintf("%s:%v", name, p["type"])
		if enum, ok := p["enum"].([]any); ok {
			s += fmt.Sprintf("(%v)", strings.Trim(strings.ReplaceAll(fmt.Sprint(enum), " ", "|"), "[]"))
		}
		if d, _ := p["description"].(string); d == "" {
			s += "(no description)"
		}
		list = append(list, s)
	}
	slices.Sort(list)
	return strings.Join(list, " ")
}

// A tool's text is exactly the text of the resource it mirrors.
func TestToolsAnswerTheResourcesText(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			cs := connect(t, newFake(), Options{Locate: true, Tools: true}, version)
			text, isError := call(t, cs, ToolCurrent, map[string]any{})
			if isError {
				t.Fatalf("%s: error %s", ToolCurrent, text)
			}
			// The fake's titles hold & < >: any other encoding differs.
			if want := string(read(t, cs, CurrentURI)); text != want {
				t.Errorf("%s text:\n%s\nresource text:\n%s", ToolCurrent, text, want)
			}
			if text, _ := call(t, cs, ToolCurrent, nil); text != string(read(t, cs, CurrentURI)) {
				t.Errorf("%s without arguments: %s", ToolCurrent, text)
			}
			for _, id := range []string{"n1.5_AAAAAAAA", "n1.6_AAAAAAAA", "n1.7_AAAAAAAA"} {
				text, isError := call(t, cs, ToolLocate, map[string]any{"id": id})
				if want := string(read(t, cs, locatePrefix+id)); text != want || isError {
					t.Errorf("%s %s: %s (isError %v), want the resource's %s", ToolLocate, id, text, isError, want)
				}
			}
		})
	}
}

// callResult calls a tool and returns its result.
func callResult(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	return res
}

// wantToolError calls a tool, which must fail: isError, one text item
// that starts with the reason and a colon and then says msg (its start),
// naming no resource, and the reason (and why) in _meta.
func wantToolError(t *testing.T, cs *sdk.ClientSession, name string, args any, reason, why, msg string) string {
	t.Helper()
	text, isError := call(t, cs, name, args)
	if !isError {
		t.Errorf("%s %v: %q, want isError", name, args, text)
	}
	if want := reason + ": " + msg; !strings.HasPrefix(text, want) {
		t.Errorf("%s %v: %q, want it to start %q", name, args, text, want)
	}
	if strings.Contains(text, "uicontext://") || strings.Contains(text, "resource") {
		t.Errorf("%s %v: %q names a resource; a tool's error names tools", name, args, text)
	}
	data := map[string]any{"reason": reason}
	if why != "" {
		data["why"] = why
	}
	meta := callResult(t, cs, name, args).Meta
	if diff := cmp.Diff(data, meta[MetaError]); diff != "" {
		t.Errorf("%s %v: _meta (-want +got):\n%s", name, args, diff)
	}
	return text
}

// A read that fails is a tool result with isError, the reason and a
// message for a model: the resource's, but naming tools.
func TestToolErrors(t *testing.T) {
	const browserGone = "Chromium went away while the provider tried to locate the element."
	src := newFake()
	src.locateErrs = map[string]error{
		"n1.8_AAAAAAAA": mapping.CannotPlace(mapping.PlaceNotAnswering, errors.New("the page is not responding")),
		"n1.9_AAAAAAAA": &failure{"browser-restarting", browserGone},
		"a0_AAAAAAAA":   mapping.CannotPlace(mapping.PlaceApplication, nil),
		"t1_AAAAAAAA":   mapping.CannotPlace(mapping.PlaceTab, nil),
	}
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			cs := connect(t, src, Options{Locate: true, Tools: true}, version)
			wantToolError(t, cs, ToolLocate, map[string]any{"id": "n9_AAAAAAAA"}, "not-issued", "",
				`element id "n9_AAAAAAAA" was not issued by this run of the provider: call ui_current for the ids of this run`)
			wantToolError(t, cs, ToolLocate, map[string]any{"id": "a0_AAAAAAAA"}, "cannot-be-placed", "application",
				`element "a0_AAAAAAAA" cannot be placed on screen: the Application is the browser itself and has no place on screen of its own; its Windows have places`)
			wantToolError(t, cs, ToolLocate, map[string]any{"id": "t1_AAAAAAAA"}, "cannot-be-placed", "tab",
				`element "t1_AAAAAAAA" cannot be placed on screen: a Tab has no place on screen of its own`)
			wantToolError(t, cs, ToolLocate, map[string]any{"id": "n1.8_AAAAAAAA"}, "cannot-be-placed", "page-not-answering",
				`element "n1.8_AAAAAAAA" cannot be placed on screen: its page cannot be asked now (the page is not responding); try again once it answers`)
			wantToolError(t, cs, ToolLocate, map[string]any{"id": "n1.9_AAAAAAAA"}, "browser-restarting", "", browserGone)
			for _, id := range []string{"a b", "%41", "a/b", "a?b#c", "x" + string(make([]byte, 200)), ""} {
				wantToolError(t, cs, ToolLocate, map[string]any{"id": id}, "malformed", "",
					fmt.Sprintf("malformed element id %q: an id is 1 to 128 characters of A-Z a-z 0-9 . _ ~ -; give an id exactly as ui_current gave it", id))
			}
			for _, args := range []any{nil, map[string]any{}, map[string]any{"id": 7}, map[string]any{"id": nil}} {
				wantToolError(t, cs, ToolLocate, args, "invalid-arguments", "", `ui_locate needs {"id": "…"}: the id of an element as ui_current gave it`)
			}

			for _, reason := range browserReasons {
				src.setCurrentErr(&failure{reason, "The browser failed: " + reason})
				wantToolError(t, cs, ToolCurrent, nil, reason, "", "The browser failed: "+reason)
			}
			src.setCurrentErr(errors.New("no reason given"))
			wantToolError(t, cs, ToolCurrent, nil, "read-failed", "", "no reason given")
			src.setCurrentErr(nil)
			if _, isError := call(t, cs, ToolCurrent, nil); isError {
				t.Errorf("%s after the browser is back: still an error", ToolCurrent)
			}
		})
	}
}

// Arguments the input schema does not allow are refused, naming them:
// additionalProperties is false for both tools.
func TestToolArguments(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := newFake()
			cs := connect(t, src, Options{Locate: true, Tools: true}, version)
			wantToolError(t, cs, ToolCurrent, map[string]any{"x": 1}, "invalid-arguments", "", `ui_current takes only {"scope": …, "format": …, "root": …, "depth": …}; unknown argument "x"`)
			wantToolError(t, cs, ToolCurrent, map[string]any{"b": 1, "a": 2}, "invalid-arguments", "", `ui_current takes only {"scope": …, "format": …, "root": …, "depth": …}; unknown argument "a", "b"`)
			wantToolError(t, cs, ToolLocate, map[string]any{"id": "n1.5_AAAAAAAA", "y": 2}, "invalid-arguments", "",
				`ui_locate takes only {"id": …}; unknown argument "y"`)
			wantToolError(t, cs, ToolLocate, map[string]any{"ids": "n1.5_AAAAAAAA"}, "invalid-arguments", "",
				`ui_locate takes only {"id": …}; unknown argument "ids"`)
			wantToolError(t, cs, ToolCurrent, []int{1}, "invalid-arguments", "", "ui_current's arguments must be a JSON object")
			src.mu.Lock()
			located := len(src.located)
			src.mu.Unlock()
			if located != 0 {
				t.Errorf("calls with arguments refused asked the source %d times", located)
			}
			for _, args := range []any{nil, map[string]any{}} {
				if text, isError := call(t, cs, ToolCurrent, args); isError {
					t.Errorf("%s %v: %s", ToolCurrent, args, text)
				}
			}
			if text, isError := call(t, cs, ToolLocate, map[string]any{"id": "n1.5_AAAAAAAA"}); isError {
				t.Errorf("%s with only an id: %s", ToolLocate, text)
			}
		})
	}
}

// Without Tools there are none: no capability, an empty list, and a call
// is the SDK's unknown tool. With them the descriptor and the extension
// are unchanged: the tools are not the protocol's.
func TestToolsOnlyWhenAsked(t *testing.T) {
	forEach(t, func(t *testing.T, locate bool, version string) {
		without := connect(t, newFake(), Options{Locate: locate}, version)
		if caps := without.InitializeResult().Capabilities; caps.Tools != nil {
			t.Errorf("without Tools: tools capability %+v", caps.Tools)
		}
		if res, err := without.ListTools(context.Background(), nil); err != nil || len(res.Tools) != 0 {
			t.Errorf("without Tools: tools/list = %v, %v; want an empty list", res, err)
		}
		_, err := without.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolCurrent})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || werr.Message != `unknown tool "ui_current"` {
			t.Errorf("without Tools: tools/call %s = %v, want the SDK's unknown tool (%d)", ToolCurrent, err, jsonrpc.CodeInvalidParams)
		}

		with := connect(t, newFake(), Options{Locate: locate, Tools: true}, version)
		a, b := without.InitializeResult().Capabilities, with.InitializeResult().Capabilities
		if diff := cmp.Diff(a.Extensions, b.Extensions); diff != "" {
			t.Errorf("the extension declaration changes with Tools (-without +with):\n%s", diff)
		}
		if d1, d2 := read(t, without, DescriptorURI), read(t, with, DescriptorURI); string(d1) != string(d2) {
			t.Errorf("the descriptor changes with Tools:\n%s\n%s", d1, d2)
		}
	})
}
