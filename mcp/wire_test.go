package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWire pins the JSON-RPC a host sees: a script of client messages,
// each with the server's answer. An answer is compared as a subset: every
// member it names must be in the server's message with that value.
func TestWire(t *testing.T) {
	script := []struct{ send, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"0"}}}`,
			`{"id":1,"result":{"capabilities":{"resources":{},"extensions":{"uicontext/provider":` +
				`{"protocol":"0.2.0","operations":["current","locate"],"descriptor":"uicontext://descriptor"}}}}}`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`, ""},
		{`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"uicontext://nope"}}`,
			`{"id":2,"error":{"code":-32602,"data":{"uri":"uicontext://nope","reason":"no-such-resource"},"message":"resource not found: no resource matches \"uicontext://nope\"; ` +
				`this provider has uicontext://current, uicontext://current?scope=screen, uicontext://descriptor, uicontext://locate/{id}"}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"uicontext://locate/n1.7_AAAAAAAA"}}`,
			`{"id":3,"result":{"ttlMs":0,"cacheScope":"private","contents":[{"uri":"uicontext://locate/n1.7_AAAAAAAA","mimeType":"application/json","text":"{\"state\":\"gone\"}"}]}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"uicontext://locate/a0_AAAAAAAA"}}`,
			`{"id":4,"error":{"code":-32602,"data":{"uri":"uicontext://locate/a0_AAAAAAAA","reason":"cannot-be-placed","why":"application"},` +
				`"message":"resource not found: element \"a0_AAAAAAAA\" cannot be placed on screen: the Application is the browser itself and has no place on screen of its own; its Windows have places"}}`},
	}

	runScript(t, Options{Locate: true}, script)
}

// TestWireTools pins the tool mirror as a host's model sees it: the tools
// capability, the list with its schemas and annotations, a result and an
// error.
func TestWireTools(t *testing.T) {
	script := []struct{ send, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"0"}}}`,
			`{"id":1,"result":{"capabilities":{"resources":{},"tools":{},"extensions":{"uicontext/provider":` +
				`{"protocol":"0.2.0","operations":["current","locate"],"descriptor":"uicontext://descriptor"}}}}}`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`, ""},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
			`{"id":2,"result":{"tools":[` +
				`{"name":"ui_current","title":"What the user sees in the browser",` +
				`"description":"What the user has open in their browser now: windows, tabs and the active page as a tree of elements (role, title, value, states, id). ` +
				`The focus path, the hovered and the selected elements are marked with the states focused, hovered and selected. ` +
				`Without arguments, the same JSON as the resource uicontext://current: {protocol, instance, root}, root the Application element, ` +
				`each element {id, role, title, value, description, url, level, states, omitted, children}. ` +
				`format \"outline\" answers the same tree in fewer words, one element a line, the page's text without ids, ` +
				`and no line for a paragraph, list item, figure or image that has nothing but its role and id (ui_find gives any element's id). ` +
				`root answers only the subtree of the element with that id (in json, that element's object, not the whole answer). ` +
				`depth cuts the tree that many levels below the root (or the Application); an element whose children were cut ` +
				`says how many elements were left out below it (omitted, or (+N omitted) in the outline). ` +
				`Start with scope \"screen\" and format \"outline\": what the user sees, a small part of the page; then read more ` +
				`with root (the whole of that element) or scope \"page\" with a small depth.",` +
				`"inputSchema":{"type":"object","properties":{` +
				`"scope":{"type":"string","enum":["page","screen"],"default":"page","description":"screen: in the page (and its iframes), only the elements on screen, each with its ancestors; ` +
				`an element with children off screen says how many (omitted), and in the outline lines \"… N above\", \"… N below\", ` +
				`\"… N off screen\" say where, in reading order. page: the whole page."},` +
				`"format":{"type":"string","enum":["json","outline"],"default":"json","description":"json: the answer as JSON. ` +
				`outline: one element a line, indented one space a level, Role title = \"value\" [states] <url> level=N (\"description\") (+N omitted) #id, ` +
				`each part after the role only when the element has it, a title quoted only when it holds a quote, backslash, = [ < ( # ] > ) or starts or ends with a space; the page's text (a Text with a title alone) is only its quoted title, without role and id, ` +
				`and the texts side by side share a line: \"Read the\" \"manual\" \".\"; inline code is its text between backquotes in that line: \"Call\" ` + "`open()`" + `; ` +
				`a Paragraph, ListItem, Figure, Image or Text with nothing but its role and id (a ListItem's level aside) has no line, its children in its place; ` +
				`a title is said once: a Tab and the Window's Document with the Window's title, and an element whose title is its children's text, leave it out; ` +
				`a url is relative to the url of the Document above it ` +
				`(#top, page.html, /about) when it resolves so; with root, a first line \"in: …\" names the root's ancestors (role and title)."},` +
				`"root":{"type":"string","description":"An element id from ui_current: answer only that element and its descendants. ` +
				`An id no longer in what the user sees fails with gone."},` +
				`"depth":{"type":"integer","minimum":0,"description":"How many levels below the root to answer: 0 the root alone, 1 it and its children; default all."}},` +
				`"additionalProperties":false},` +
				`"annotations":{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}},` +
				`{"name":"ui_find","title":"Find elements the user sees",` +
				`"inputSchema":{"type":"object","additionalProperties":false},` +
				`"outputSchema":{"type":"object","required":["matches","more"]},` +
				`"annotations":{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}},` +
				`{"name":"ui_locate","title":"Where an element is on screen",` +
				`"description":"Where an element is on screen, by the id ui_current gave it: onscreen (with its frame and visible part in screen points), ` +
				`offscreen (scrolled away, hidden, in a background tab or a minimised window; an element without a box, such as one not displayed, is offscreen without a frame), ` +
				`or gone (removed, or its page navigated away or closed). Windows, Documents and the elements of a page can be located. ` +
				`The Application and a Tab or TabList cannot: the browser draws them and they have no place of their own (locate a Window, or the Document of the active tab); ` +
				`nor can an element without a DOM node, a JavaScript dialog, or the Document of a crashed page. Those calls fail with cannot-be-placed; ` +
				`an id that ui_current did not give in this run fails with not-issued. The same JSON as the resource uicontext://locate/{id}.",` +
				`"inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"An element id from ui_current."}},"required":["id"],"additionalProperties":false},` +
				`"annotations":{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}}]}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ui_locate","arguments":{"id":"n1.7_AAAAAAAA"}}}`,
			`{"id":3,"result":{"content":[{"type":"text","text":"{\"state\":\"gone\"}"}]}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ui_locate","arguments":{"id":"n9_AAAAAAAA"}}}`,
			`{"id":4,"result":{"isError":true,"_meta":{"uicontext/error":{"reason":"not-issued"}},` +
				`"content":[{"type":"text","text":"not-issued: element id \"n9_AAAAAAAA\" was not issued by this run of the provider: call ui_current for the ids of this run"}]}}`},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ui_current","arguments":{"x":1}}}`,
			`{"id":5,"result":{"isError":true,"_meta":{"uicontext/error":{"reason":"invalid-arguments"}},` +
				`"content":[{"type":"text","text":"invalid-arguments: ui_current takes only {\"scope\": …, \"format\": …, \"root\": …, \"depth\": …}; unknown argument \"x\""}]}}`},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ui_find","arguments":{"text":"order"}}}`,
			`{"id":6,"result":{"content":[{"type":"text","text":"Button Order [hovered] #n1.5_AAAAAAAA in: Application Chromium > Window \"Fish & <Chips>\" > Document \"Fish & <Chips>\"\n"}],` +
				`"structuredContent":{"matches":[{"id":"n1.5_AAAAAAAA","role":"Button","title":"Order","states":["hovered"],` +
				`"in":[{"role":"Application","title":"Chromium"},{"role":"Window","title":"Fish & <Chips>"},{"role":"Document","title":"Fish & <Chips>"}]}],"more":0}}}`},
	}
	runScript(t, Options{Locate: true, Tools: true}, script)
}

// runScript serves a fake with opts and plays the script to it.
func runScript(t *testing.T, opts Options, script []struct{ send, want string }) {
	t.Helper()
	// A server that never answers fails the step at this limit rather than
	// hanging until go test's timeout.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	opts.Logger = slog.New(slog.DiscardHandler)
	srv := NewServer(newFake(), opts)
	ss, err := srv.mcp.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	for i, step := range script {
		msg, err := jsonrpc.DecodeMessage([]byte(step.send))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatalf("step %d: write: %v", i, err)
		}
		if step.want == "" {
			continue
		}
		got, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("step %d: %s: no answer: %v", i, step.send, err)
		}
		raw, err := jsonrpc.EncodeMessage(got)
		if err != nil {
			t.Fatal(err)
		}
		var gotV, wantV any
		if err := json.Unmarshal(raw, &gotV); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(step.want), &wantV); err != nil {
			t.Fatalf("step %d: bad want: %v", i, err)
		}
		if diff := cmp.Diff(wantV, subset(wantV, gotV)); diff != "" {
			t.Errorf("step %d: %s\nanswer (-want +got):\n%s\nfull answer: %s", i, step.send, diff, raw)
		}
	}
}

// subset returns got with only the object members that want names, so
// that the two can be compared; in arrays of the same length, item by
// item.
func subset(want, got any) any {
	if w, ok := want.([]any); ok {
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return got
		}
		out := make([]any, len(g))
		for i := range g {
			out[i] = subset(w[i], g[i])
		}
		return out
	}
	w, ok1 := want.(map[string]any)
	g, ok2 := got.(map[string]any)
	if !ok1 || !ok2 {
		return got
	}
	out := make(map[string]any, len(w))
	for k, wv := range w {
		if gv, ok := g[k]; ok {
			out[k] = subset(wv, gv)
		}
	}
	return out
}
