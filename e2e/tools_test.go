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
	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serve --tools: current and locate also as the read-only tools ui_current
// and ui_locate, and ui_find and ui_at beside them, for hosts whose model is given
// tools only; outside the protocol's binding.

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
	if diff := cmp.Diff([]entry{{"ui_at", true, true}, {"ui_current", true, true}, {"ui_find", true, true}, {"ui_locate", true, true}}, got); diff != "" {
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

// ui_current's arguments through the binary: format outline, whose ids
// ui_locate accepts; root, its subtree under the line naming its
// ancestors, and gone once the element is removed from the page; depth.
func TestToolCurrentArguments(t *testing.T) {
	needEnv(t)
	p := startProvider(t, env.browser.httpURL(), "--tools")
	tb := openTab(t, env.rootCtx, env.pageA+"/plain.html")

	// Every line of the outline but the page's text ends with its
	// element's id, one ui_locate places or says cannot be placed, never
	// one it does not know.
	outline, isError := callText(t, p.session, "ui_current", map[string]any{"format": "outline"})
	if isError {
		t.Fatalf("ui_current outline: %s", outline)
	}
	var button, remove string
	for line := range strings.Lines(outline) {
		if strings.HasPrefix(strings.TrimSpace(line), `"`) || strings.HasPrefix(strings.TrimSpace(line), "`") {
			continue // the text of the page: quoted titles of Texts (and inline Code), no ids
		}
		_, id, ok := strings.Cut(strings.TrimSpace(line), " #")
		for ok && strings.Contains(id, " #") { // a title holding " #"
			_, id, ok = strings.Cut(id, " #")
		}
		if !ok || id == "" {
			t.Fatalf("outline line without an id: %q", line)
		}
		text, isError := callText(t, p.session, "ui_locate", map[string]any{"id": id})
		if isError && !strings.HasPrefix(text, "cannot-be-placed: ") {
			t.Errorf("ui_locate %s of the outline's line %q: %s", id, line, text)
		}
		switch {
		case strings.Contains(line, `Button Plain button`):
			button = id
			if text != `{"state":"onscreen"` && !strings.HasPrefix(text, `{"state":"onscreen"`) {
				t.Errorf("ui_locate of the outline's Plain button: %s, want onscreen", text)
			}
		case strings.Contains(line, `Button Remove me`):
			remove = id
		}
	}
	if button == "" || remove == "" {
		t.Fatalf("the outline lacks the page's buttons:\n%s", outline)
	}

	doc := elemtest.FindDoc(t, p.current(t).Root, tb.url)
	text, _ := callText(t, p.session, "ui_current", map[string]any{"root": doc.ID, "format": "outline"})
	lines := strings.Split(text, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], `in: Application `) || !strings.HasSuffix(lines[0], ` > Window Plain page`) ||
		!strings.HasPrefix(lines[1], `Document Plain page`) || !strings.HasSuffix(lines[1], " #"+doc.ID) {
		t.Errorf("ui_current root %s outline, want the Application and the Window, then the Document:\n%s", doc.ID, text)
	}
	if !strings.Contains(text, `Button Plain button #`+button+"\n") {
		t.Errorf("ui_current root %s outline lacks the button #%s:\n%s", doc.ID, button, text)
	}
	// The paragraph, which has nothing but its role and id, has no line in
	// the outline: its text stands in its place, at its depth. Its id as
	// root answers its line and its text, under its ancestors.
	if !strings.Contains(text, "\n \"Plain paragraph.\"\n") || strings.Contains(text, "Paragraph") {
		t.Errorf("ui_current root %s outline: want the paragraph's text in its place, without a Paragraph line:\n%s", doc.ID, text)
	}
	para := elemtest.Find(t, doc, "Paragraph", "")
	text, isError = callText(t, p.session, "ui_current", map[string]any{"root": para.ID, "format": "outline"})
	in, rest, _ := strings.Cut(text, "\n")
	if want := "Paragraph #" + para.ID + "\n \"Plain paragraph.\"\n"; isError || rest != want ||
		!strings.HasPrefix(in, `in: Application `) || !strings.HasSuffix(in, ` > Window Plain page > Document Plain page`) {
		t.Errorf("ui_current root %s (the paragraph) outline:\n%s\nwant the Application, Window and Document, then:\n%s", para.ID, text, want)
	}
	text, _ = callText(t, p.session, "ui_current", map[string]any{"root": doc.ID})
	var sub mapping.Element
	if err := json.Unmarshal([]byte(text), &sub); err != nil || sub.ID != doc.ID || sub.Role != "Document" {
		t.Fatalf("ui_current root %s: %s, want the Document's element object (%v)", doc.ID, text, err)
	}
	elemtest.Find(t, &sub, "Button", "Plain button")

	// depth 0: the Document alone, counting what is below it; depth 1:
	// its children, nothing deeper.
	text, _ = callText(t, p.session, "ui_current", map[string]any{"root": doc.ID, "depth": 0})
	sub = mapping.Element{}
	if err := json.Unmarshal([]byte(text), &sub); err != nil || sub.Children != nil || sub.Omitted < 4 {
		t.Errorf("ui_current root %s depth 0: %s, want the Document without children, omitted 4 or more (%v)", doc.ID, text, err)
	}
	text, _ = callText(t, p.session, "ui_current", map[string]any{"root": doc.ID, "depth": 1, "format": "outline"})
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n")[1:] {
		if strings.HasPrefix(line, "  ") {
			t.Errorf("ui_current root %s depth 1: a line two levels down: %q\n%s", doc.ID, line, text)
		}
	}
	if !strings.Contains(text, "\n Button Plain button #"+button+"\n") {
		t.Errorf("ui_current root %s depth 1 lacks the button:\n%s", doc.ID, text)
	}
	text, _ = callText(t, p.session, "ui_current", map[string]any{"depth": 0, "format": "outline"})
	if !strings.HasPrefix(text, "Application ") || strings.Count(text, "\n") != 1 || !strings.Contains(text, " omitted) #") {
		t.Errorf("ui_current depth 0 outline: %q, want the Application's one line, what was cut counted", text)
	}

	// The button removed from the page: its id is gone, not unknown.
	eval[bool](t, tb.ctx, `document.getElementById('removeme').remove(), true`)
	text, isError = callText(t, p.session, "ui_current", map[string]any{"root": remove, "format": "outline"})
	if !isError || !strings.HasPrefix(text, "gone: element \""+remove+"\" is not in what the user sees now") {
		t.Errorf("ui_current root of a removed button: %q (isError %v), want gone", text, isError)
	}
	// The button's id with another check letter: well formed, never issued.
	forged := button[:len(button)-1] + map[bool]string{true: "b", false: "a"}[strings.HasSuffix(button, "a")]
	for id, reason := range map[string]string{forged: "not-issued", "no such id": "malformed"} {
		if text, isError := callText(t, p.session, "ui_current", map[string]any{"root": id}); !isError || !strings.HasPrefix(text, reason+": ") {
			t.Errorf("ui_current root %q: %q (isError %v), want %s", id, text, isError, reason)
		}
	}
	p.wantServing(t, "calls of ui_current with arguments")
}
