package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
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

// readErrorMessage reads uri, which must fail, and returns the message.
func readErrorMessage(t *testing.T, cs *sdk.ClientSession, uri string) string {
	t.Helper()
	_, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		t.Fatalf("read %s: %v, want a JSON-RPC error", uri, err)
	}
	return werr.Message
}

// With Tools, tools/list has exactly ui_current and ui_locate, read-only.
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
			e.InputProps = fmt.Sprint(tool.InputSchema.(map[string]any)["properties"])
			got = append(got, e)
		}
		want := []entry{{ToolCurrent, true, true, "false", "map[]"}}
		if locate {
			want = append(want, entry{ToolLocate, true, true, "false", "map[id:map[description:An element id from ui_current. type:string]]"})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tools/list (-want +got):\n%s", diff)
		}
	})
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

// A read that fails is a tool result with isError and the read's message.
func TestToolErrors(t *testing.T) {
	const browserGone = "the browser went away mid-read: restart it with --remote-debugging-port=9222"
	src := newFake()
	src.locateErrs = map[string]error{
		"n1.8_AAAAAAAA": fmt.Errorf("locate: %w: in a page that is not responding", mapping.ErrCannotPlace),
		"n1.9_AAAAAAAA": errors.New(browserGone),
	}
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			cs := connect(t, src, Options{Locate: true, Tools: true}, version)
			for _, id := range []string{
				"n9_AAAAAAAA",                                                 // never issued
				"n1.8_AAAAAAAA",                                               // cannot be placed
				"n1.9_AAAAAAAA",                                               // the browser went away
				"a b", "%41", "a/b", "a?b#c", "x" + string(make([]byte, 200)), // malformed
			} {
				text, isError := call(t, cs, ToolLocate, map[string]any{"id": id})
				want := readErrorMessage(t, cs, locatePrefix+url.PathEscape(id))
				if !isError || text != want {
					t.Errorf("%s %q: %q (isError %v), want isError and the read's %q", ToolLocate, id, text, isError, want)
				}
			}
			if text, isError := call(t, cs, ToolLocate, map[string]any{"id": ""}); !isError || text != `resource not found: malformed element id "": an id is 1 to 128 characters of A-Z a-z 0-9 . _ ~ -` {
				t.Errorf("%s with an empty id: %q (isError %v), want the malformed id's message", ToolLocate, text, isError)
			}
			for _, args := range []any{nil, map[string]any{}, map[string]any{"id": 7}, map[string]any{"ids": "n1.5_AAAAAAAA"}} {
				if text, isError := call(t, cs, ToolLocate, args); !isError || text != `ui_locate needs {"id": "…"}: the id of an element as ui_current gave it` {
					t.Errorf("%s %v: %q (isError %v), want an error that asks for the id", ToolLocate, args, text, isError)
				}
			}

			src.setCurrentErr(errors.New(browserGone))
			text, isError := call(t, cs, ToolCurrent, nil)
			if want := readErrorMessage(t, cs, CurrentURI); !isError || text != want || text != browserGone {
				t.Errorf("%s with the browser gone: %q (isError %v), want isError and %q", ToolCurrent, text, isError, want)
			}
			src.setCurrentErr(nil)
			if _, isError := call(t, cs, ToolCurrent, nil); isError {
				t.Errorf("%s after the browser is back: still an error", ToolCurrent)
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
