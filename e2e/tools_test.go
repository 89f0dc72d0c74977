package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serve --tools: current and locate also as the read-only tools ui_current
// and ui_locate, for hosts whose model is given tools only; outside the
// protocol's binding.

// callText calls a tool and returns the text of its one text item.
func callText(t *testing.T, session *mcp.ClientSession, name string, args any) (text string, isError bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("tools/call %s: %d content items, want 1: %s", name, len(res.Content), dump(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("tools/call %s: a %T, want text", name, res.Content[0])
	}
	return tc.Text, res.IsError
}

func TestTools(t *testing.T) {
	needEnv(t)
	p := startProvider(t, env.browser.httpURL(), "--tools")
	// An & in the URL: an encoding of the tool's own (json.Marshal's
	// \u0026) would differ from the resource's.
	openTab(t, env.rootCtx, env.pageA+"/plain.html?fish=1&chips=2")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	caps := p.session.InitializeResult().Capabilities
	if caps.Tools == nil {
		t.Errorf("capabilities.tools missing with --tools: %s", dump(caps))
	}
	// The protocol's binding is unchanged: the extension and the
	// descriptor name the operations, not the tools.
	ext := map[string]any{"protocol": "0.2.0", "operations": []any{"current", "locate"}, "descriptor": descriptorURI}
	if diff := cmp.Diff(ext, asJSON(t, caps.Extensions[extensionName])); diff != "" {
		t.Errorf("extension declaration with --tools (-want +got):\n%s", diff)
	}
	if d := p.descriptor(t); !cmp.Equal(d.Operations, []string{"current", "locate"}) {
		t.Errorf("descriptor operations with --tools: %v", d.Operations)
	}

	list, err := p.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	type entry struct {
		Name                 string
		ReadOnly, Idempotent bool
	}
	var got []entry
	for _, tool := range list.Tools {
		e := entry{Name: tool.Name}
		if a := tool.Annotations; a != nil {
			e.ReadOnly, e.Idempotent = a.ReadOnlyHint, a.IdempotentHint
		}
		got = append(got, e)
	}
	if diff := cmp.Diff([]entry{{"ui_current", true, true}, {"ui_locate", true, true}}, got); diff != "" {
		t.Errorf("tools/list (-want +got):\n%s\n%s", diff, dump(list.Tools))
	}

	// Between two reads of current that are equal, nothing changed: a
	// call of ui_current between them has their text, byte for byte.
	var cur *answer
	waitFor(t, "two equal reads of current around a call of ui_current", func() bool {
		before := p.current(t)
		text, isError := callText(t, p.session, "ui_current", map[string]any{})
		after := p.current(t)
		if string(before.raw) != string(after.raw) {
			return false
		}
		if isError || text != string(before.raw) {
			t.Fatalf("ui_current (isError %v):\n%s\nthe resource's text:\n%s", isError, text, before.raw)
		}
		if !strings.Contains(text, "fish=1&chips=2") {
			t.Fatalf("ui_current does not hold the tab's URL as it is: %s", text)
		}
		cur = before
		return true
	})
	btn := elemtest.Find(t, cur.Root, "Button", "Plain button")
	loc := p.locate(t, btn.ID)
	if text, isError := callText(t, p.session, "ui_locate", map[string]any{"id": btn.ID}); isError || text != string(loc.raw) {
		t.Errorf("ui_locate %s (isError %v): %s, want the resource's %s", btn.ID, isError, text, loc.raw)
	}

	// A read's error is the call's, as a result with isError: its reason,
	// then a message that names tools, not resources.
	for _, id := range []string{"n1.5_AAAAAAAA", "no such id", cur.Root.ID} {
		_, err := p.readRaw(t, locatePrefix+url.PathEscape(id))
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) {
			t.Fatalf("read the locate of %q: %v, want an error", id, err)
		}
		var data struct{ Reason string }
		json.Unmarshal(werr.Data, &data)
		text, isError := callText(t, p.session, "ui_locate", map[string]any{"id": id})
		if !isError || data.Reason == "" || !strings.HasPrefix(text, data.Reason+": ") || strings.Contains(text, "uicontext://") {
			t.Errorf("ui_locate %q: %q (isError %v), want isError, the read's reason %q and no resource named", id, text, isError, data.Reason)
		}
	}
	p.wantServing(t, "tool calls")
}

// Without --tools: no tools capability, tools/list answers an empty list
// (go-sdk answers the list whatever the capabilities), and a call is
// go-sdk's "unknown tool", -32602.
func TestToolsOffWithoutTheFlag(t *testing.T) {
	p := sharedProvider(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if caps := p.session.InitializeResult().Capabilities; caps.Tools != nil {
		t.Errorf("capabilities.tools = %s without --tools, want none", dump(caps.Tools))
	}
	list, err := p.session.ListTools(ctx, nil)
	if err != nil || list == nil || list.Tools == nil || len(list.Tools) != 0 {
		t.Errorf("tools/list without --tools = %s, %v; want an empty list", dump(list), err)
	}
	_, err = p.session.CallTool(ctx, &mcp.CallToolParams{Name: "ui_current"})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || werr.Message != `unknown tool "ui_current"` {
		t.Errorf("tools/call ui_current without --tools = %v, want the JSON-RPC error %d unknown tool \"ui_current\"", err, jsonrpc.CodeInvalidParams)
	}
	p.wantServing(t, "a call of a tool it does not have")
}
